"""An approved command's descendants are tracked: it runs unconfined but under the wrapper's subreaper, so
`setsid env -i … &`, `nohup`, double forks and processes that cleared their environment end with it, and
everything ends with paicli if paicli dies first. Both launch paths: forked by the session's server, and a
wrapper process of its own (the fallback when the server is unusable)."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.tools.context import ToolContext
from paicli.tools.guards import PathGuard
from paicli.tools.sandbox import zygote
from paicli.tools.sandbox.launch import prepare_approved
from paicli.tools.schema import ToolOutput
from paicli.tools.shell import execute_command

from .test_boundary import _running, _wait_until

_ESCAPES = (
    "setsid env -i sleep {tag} & (setsid sleep {tag} &); nohup sleep {tag} >/dev/null 2>&1 &"
    " python3 -c 'import os, sys\n"
    "if os.fork(): sys.exit(0)\n"
    "os.setsid()\n"
    "if os.fork(): os._exit(0)\n"
    'os.execve("/bin/sleep", ["sleep", "{tag}"], {{}})\n'
    "'; echo started"
)


@pytest.fixture(params=["zygote", "wrapper"])
def launch_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    if not sys.platform.startswith("linux"):
        pytest.skip("the wrapper is Linux-only")
    server = zygote.Zygote()
    if request.param == "wrapper":
        server.stop()  # an unusable server: every command runs a wrapper process of its own
    monkeypatch.setitem(zygote._session, os.getpid(), server)
    yield str(request.param)
    server.stop()


def _approved(root: Path, command: str) -> ToolOutput:
    ctx = ToolContext(root, PathGuard(root), CancelToken())
    return execute_command({"command": command}, ctx)


def test_nothing_an_approved_command_starts_outlives_it(tmp_path: Path, launch_path: str) -> None:
    tag = f"1000.{uuid.uuid4().int % 10**9}"
    out = _approved(tmp_path, _ESCAPES.format(tag=tag))
    assert "started" in out.content, out.content
    assert _wait_until(lambda: not _running(tag)), _described(_running(tag))


def test_an_approved_command_keeps_its_exit_code_environment_and_output(
    tmp_path: Path, launch_path: str
) -> None:
    out = _approved(tmp_path, "echo $HOME; echo out; echo err >&2; exit 7")
    assert out.content.startswith(f"{os.environ['HOME']}\nout\nerr\n") and "退出码: 7" in out.content
    assert _approved(tmp_path, "kill -TERM $$").content.endswith("退出码: -15（被信号 15 终止）")


_PAICLI = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from paicli.cancel import CancelToken
    from paicli.tools.context import ToolContext
    from paicli.tools.guards import PathGuard
    from paicli.tools.sandbox import zygote
    from paicli.tools.shell import execute_command
    from tests.tools.helpers import env as lookup
    if sys.argv[3] == "wrapper":
        zygote.session_zygote().stop()
    root = Path(sys.argv[1])
    def seen(line):
        if line == "started":
            print("STARTED", flush=True)
    ctx = ToolContext(root, PathGuard(root), CancelToken(), on_output=seen)
    execute_command({"command": sys.argv[2]}, ctx)
    """
)


def _described(pids: list[int]) -> list[str]:
    """For a failure message: each process's state, parent and command line."""
    found = []
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            line = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:120]
        except OSError:
            continue
        found.append(f"{pid} state={stat[0]} ppid={stat[1]} {line!r}")
    return found


def _sleeps(tag: str) -> list[int]:
    """The escaped `sleep TAG` processes themselves (not paicli, the wrapper or the shell, whose command lines
    also hold the tag)."""
    wanted = f"sleep\0{tag}\0".encode()
    found = []
    for pid in _running(tag):
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes() == wanted:
                found.append(pid)
        except OSError:
            continue
    return found


def _all_ended(pids: list[int], timeout: float = 60.0) -> bool:
    """Waits on each process's end as an event (a pidfd turns readable), not by polling; `timeout` only
    bounds a failure."""
    deadline = time.monotonic() + timeout
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue
        try:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                return False
        finally:
            os.close(fd)
    return True


def test_everything_ends_with_paicli(tmp_path: Path, launch_path: str) -> None:
    tag = f"1000.{uuid.uuid4().int % 10**9}"
    command = _ESCAPES.format(tag=tag) + f"; sleep {tag}"
    paicli = subprocess.Popen(
        [sys.executable, "-c", _PAICLI, str(tmp_path), command, launch_path],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parents[2],
    )
    try:
        assert paicli.stdout is not None
        assert paicli.stdout.readline().strip() == "STARTED"
        # four escapes and the last `sleep`: each one exec'd already, so none is still a shell half-way
        assert _wait_until(lambda: len(_sleeps(tag)) == 5, timeout=60), _described(_running(tag))
        left = _running(tag)  # the wrapper and the shell too, not only the sleeps
        paicli.send_signal(signal.SIGKILL)
        paicli.wait()
        assert _all_ended(left), _described(_running(tag))
        assert not _running(tag), _described(_running(tag))
    finally:
        paicli.kill()
        paicli.wait()
        for pid in _running(tag):
            os.kill(pid, signal.SIGKILL)


def test_a_wrapper_told_to_stop_again_while_sweeping_still_ends_everything(tmp_path: Path) -> None:
    """A parent with threads sends the wrapper its death signal again as each thread ends; a second SIGTERM
    that comes while the wrapper sweeps must not end the sweep early (it used to: descendants then went to
    init)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the wrapper is Linux-only")
    tag = f"1000.{uuid.uuid4().int % 10**9}"
    launch = prepare_approved(
        f"for i in $(seq 30); do setsid sleep {tag} & done; echo started; sleep {tag}", dict(os.environ)
    )
    wrapper = subprocess.Popen(
        launch.argv, env=launch.env, pass_fds=launch.fds, stdout=subprocess.PIPE, start_new_session=True
    )
    launch.cleanup()
    try:
        assert wrapper.stdout is not None and wrapper.stdout.readline() == b"started\n"
        assert _wait_until(lambda: len(_sleeps(tag)) == 31, timeout=60), _described(_running(tag))
        while wrapper.poll() is None:  # stop signals, one after another, until it has ended
            try:
                wrapper.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                break
        wrapper.wait()
        assert wrapper.returncode == -signal.SIGTERM
        # it ended only after killing and reaping every descendant: nothing to wait for
        assert not _running(tag), _described(_running(tag))
    finally:
        wrapper.kill()
        wrapper.wait()
        for pid in _running(tag):
            os.kill(pid, signal.SIGKILL)
