"""Whether the command sandbox can be used here, found once per process by running the real wrapper."""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from paicli.config import knobs
from paicli.config.env import process_environ
from paicli.config.values import SandboxValues

WRAPPER = Path(__file__).with_name("wrapper.py")
# Imported rather than run as a script: an imported module's bytecode is cached, a script is compiled on
# every start (several milliseconds of each command's overhead).
_BOOT = f"import sys; sys.path.insert(0, {str(WRAPPER.parent)!r}); import wrapper; wrapper.main()"


def wrapper_argv(policy: str, argv: list[str]) -> list[str]:
    return [sys.executable, "-I", "-S", "-c", _BOOT, policy, "--", *argv]


def zygote_argv(control_fd: int, parent: int) -> list[str]:
    boot = _BOOT.replace("import wrapper; wrapper.main()", "import forkserver; forkserver.main()")
    return [sys.executable, "-I", "-S", "-c", boot, str(control_fd), str(parent)]


PROBE_TIMEOUT_SECONDS = 10.0
SANDBOX_OFF_WARNING = (
    f"⚠️ {knobs.COMMAND_SANDBOX.key}=off：自动运行的命令不进沙箱，能读你的密钥、联网、改 .git；"
    "去掉这个设置即可恢复沙箱"
)
_PROBE_READ = ("/usr", "/bin", "/lib", "/lib64", "/etc", "/dev", os.path.realpath(sys.base_prefix))


@dataclass(frozen=True)
class SandboxStatus:
    """`kind`: "namespaces" (Landlock + user/network/PID namespaces), "landlock" (Landlock with its TCP rules
    and a subreaper) or "" (unavailable: `reason` says why and what to do, in one line)."""

    mode: str
    kind: str
    reason: str = ""
    zygote: bool = True  # commands forked by the session's fork server (False: one wrapper process each)

    @property
    def active(self) -> bool:
        return self.mode != "off" and bool(self.kind)

    @property
    def userns(self) -> bool:
        return self.kind == "namespaces"

    def describe(self) -> str:
        """The banner's and `/config`'s line."""
        if self.mode == "off":
            return f"命令沙箱: 已关闭（{knobs.COMMAND_SANDBOX.key}=off）：自动运行的命令不受限制，能读写你能读写的一切"
        if self.kind == "namespaces":
            return "命令沙箱: Landlock + 用户/网络/PID 命名空间（自动运行的命令只能写项目、不能联网）"
        if self.kind == "landlock":
            return "命令沙箱: Landlock（含 TCP 规则；用户命名空间不可用，残留进程由监护进程清理）"
        action = (
            "所有命令都先请你确认" if self.mode == "required" else "只有少数纯命令自动运行，其余先请你确认"
        )
        return f"命令沙箱: 不可用（{self.reason}）；{action}"


def landlock_abi() -> int:
    if not sys.platform.startswith("linux"):
        return 0
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    found = int(libc.syscall(ctypes.c_long(444), None, ctypes.c_size_t(0), ctypes.c_uint32(1)))
    return max(found, 0)


def _wrapper_runs(userns: bool) -> tuple[bool, str]:
    import subprocess
    import tempfile

    from paicli.tools.sandbox.mounts import mount_plan
    from paicli.tools.sandbox.rules import encode_policy

    with tempfile.TemporaryDirectory(prefix="paicli-sbx-probe-") as folder:
        policy = Path(folder) / "policy"
        # with namespaces the file tree is built too: a kernel (or an LSM) may allow the namespaces, not mounts
        tree = [("scratch", folder), *mount_plan([*_PROBE_READ, folder])] if userns else []
        policy.write_bytes(encode_policy([("ro", path) for path in _PROBE_READ], userns, tree))
        environ = dict(process_environ())
        path = ":".join(filter(None, (environ.get("PATH"), "/usr/bin:/bin")))
        try:
            done = subprocess.run(
                wrapper_argv(str(policy), ["true"]),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=PROBE_TIMEOUT_SECONDS,
                check=False,
                cwd=folder,
                env={**environ, "PATH": path},
            )
        except (OSError, subprocess.SubprocessError) as error:
            return False, str(error)
    return done.returncode == 0, done.stderr.decode(errors="replace").strip()


def probe(mode: str, allow_userns: bool = True) -> SandboxStatus:
    if mode == "off":
        return SandboxStatus(mode, "")
    if not sys.platform.startswith("linux"):
        return SandboxStatus(mode, "", "只在 Linux 上可用（Landlock）；这里没有可用的内核沙箱")
    abi = landlock_abi()
    if abi < 1:
        return SandboxStatus(
            mode, "", "内核没有启用 Landlock：需要 Linux 5.13 以上，并在启动参数 lsm= 中加入 landlock"
        )
    if allow_userns:
        works, _ = _wrapper_runs(True)
        if works:
            return SandboxStatus(mode, "namespaces")
    if abi < 4:
        return SandboxStatus(
            mode,
            "",
            f"不允许非特权用户命名空间，而 Landlock ABI {abi} < 4 无法断网："
            "允许用户命名空间（如 sysctl kernel.apparmor_restrict_unprivileged_userns=0）或升级到 Linux 6.7+",
        )
    works, error = _wrapper_runs(False)
    if works:
        return SandboxStatus(mode, "landlock")
    return SandboxStatus(mode, "", f"沙箱程序无法启动: {error[:160] or '未知原因'}")


class SandboxGate:
    """The session's sandbox setting; the probe runs on first use (a command, the banner, `/config`)."""

    def __init__(self, values: SandboxValues | None = None) -> None:
        values = values or SandboxValues()  # the settings' defaults
        self.mode = values.mode
        self.allow_userns = values.allow_userns
        self.env_allow = values.env_allow
        self._status: SandboxStatus | None = None
        self._lock = threading.Lock()

    def status(self) -> SandboxStatus:
        with self._lock:
            if self._status is None:
                self._status = probe(self.mode, self.allow_userns)
            return self._status
