"""One sandboxed command: wrapper argv, the policy in a memfd (no file to write and delete per command),
the scrubbed environment; and the session's private temp folder, made on first use, removed at exit."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from paicli.tools.sandbox.rules import command_rules, encode_policy
from paicli.tools.sandbox.status import SandboxStatus, wrapper_argv

_tmp_lock = threading.Lock()
_tmp: list[Path] = []


@dataclass(frozen=True)
class Launch:
    argv: list[str]
    env: dict[str, str]
    fds: tuple[int, ...] = ()  # to pass to the child; closed by cleanup()
    policy: bytes = b""  # for the fork server: the policy and the command inside the wrapper
    inner: tuple[str, ...] = ()

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
    rules = command_rules(project_root, env, str(tmp), paicli_home)
    policy = encode_policy(rules, status.userns)
    fd = _policy_fd(policy)
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
    return Launch(wrapper_argv(f"fd:{fd}", list(inner)), child_env, (fd,), policy, inner if forked else ())
