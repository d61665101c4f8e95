"""One command's launch: wrapper argv, the policy in a memfd (no file to write and delete per command), the
environment; and the session's private temp folder, made on first use, removed at exit. A sandboxed command
also carries its Fence (what the check afterwards needs); a command a human approved runs under the same
wrapper unconfined, which only keeps its descendants from outliving it (a subreaper)."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from paicli.tools.sandbox.mounts import MountOp, mount_plan
from paicli.tools.sandbox.rules import Policy, command_policy, encode_policy
from paicli.tools.sandbox.status import SandboxStatus, wrapper_argv

_tmp_lock = threading.Lock()
_tmp: list[Path] = []


@dataclass(frozen=True)
class Fence:
    """One sandboxed command's policy as the check after it needs it (aftercheck.py, denials.py)."""

    policy: Policy
    plan: tuple[MountOp, ...] | None  # the namespace's file tree; None without user namespaces
    paicli_home: str | None
    home: str


@dataclass(frozen=True)
class Launch:
    argv: list[str]
    env: dict[str, str]
    fds: tuple[int, ...] = ()  # to pass to the child; closed by cleanup()
    policy: bytes = b""  # for the fork server: the policy and the command inside the wrapper
    inner: tuple[str, ...] = ()
    fence: Fence | None = None
    supervised: bool = False  # a wrapper (a subreaper) takes every descendant down with the command

    def cleanup(self) -> None:
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)


def private_tmp() -> Path:
    """The session's temp folder for sandboxed commands (TMPDIR): the only place outside the project they
    may write; removed when paicli exits."""
    with _tmp_lock:
        if not _tmp or not _tmp[0].is_dir():
            folder = Path(tempfile.mkdtemp(prefix="paicli-sbx-"))
            _tmp[:] = [folder]
            atexit.register(shutil.rmtree, folder, ignore_errors=True)
        return _tmp[0]


def _policy_fd(data: bytes) -> int:
    fd = os.memfd_create("paicli-sandbox-policy", os.MFD_CLOEXEC)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def prepare(
    command: str,
    project_root: Path,
    env: Mapping[str, str],
    status: SandboxStatus,
    *,
    paicli_home: str | None,
) -> Launch:
    """`env`: the command's environment, already cut to the allow-list (`environ.sandbox_env`); the result
    adds the sandbox's own variables."""
    tmp = private_tmp()
    policy = command_policy(project_root, env, str(tmp), paicli_home)
    home = os.path.realpath(env.get("HOME") or os.path.expanduser("~"))
    plan = mount_plan(policy.exposed, [home]) if status.userns else None
    extra = [("parent", str(os.getpid())), *(([("scratch", str(tmp)), *plan]) if plan else [])]
    data = encode_policy(policy.rules, status.userns, extra)
    fd = _policy_fd(data)
    child_env = dict(env)
    child_env.update(
        {
            "TMPDIR": str(tmp),
            # ~/.gitconfig is out of reach: say so to git instead of letting it warn on every call
            "GIT_CONFIG_GLOBAL": "/dev/null",
        }
    )
    inner = ("bash", "-c", command)
    forked = status.zygote and "\0" not in command  # a NUL fails in the wrapper path with Popen's own error
    fence = Fence(policy, plan, paicli_home, home)
    argv = wrapper_argv(f"fd:{fd}", list(inner))
    return Launch(argv, child_env, (fd,), data, inner if forked else (), fence, supervised=True)


def prepare_approved(command: str, env: dict[str, str]) -> Launch:
    """A command a human approved (or that needs no sandbox): unconfined, but under the wrapper's subreaper so
    that nothing it starts (`setsid … &`, `nohup`, a double fork, `env -i`) outlives it. Linux only: elsewhere
    the plain shell, and the caller's process-group and marker sweep."""
    inner = ("bash", "-c", command)
    if not sys.platform.startswith("linux") or "\0" in command:
        return Launch(list(inner), env)
    data = encode_policy([], False, [("confine", "0"), ("parent", str(os.getpid()))])
    fd = _policy_fd(data)
    return Launch(wrapper_argv(f"fd:{fd}", list(inner)), env, (fd,), data, inner, supervised=True)
