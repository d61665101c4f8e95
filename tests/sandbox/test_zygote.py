"""The session's fork server: commands are forked by one long-lived process that is ours alone, dies with us,
and whose failure only sends commands back to a wrapper process each (the boundary tests run both ways)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.config.env import home_dir
from paicli.tools.context import ToolContext
from paicli.tools.guards import PathGuard
from paicli.tools.sandbox import zygote
from paicli.tools.sandbox.executor import SandboxExecutor
from paicli.tools.sandbox.status import SandboxStatus
from paicli.tools.shell import execute_command

from .conftest import API_KEY, require, sandboxed
from .test_boundary import _running, _wait_until


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[zygote.Zygote]:
    """A server of this test's own (the session's stays untouched for the other tests)."""
    fresh = zygote.Zygote()
    monkeypatch.setitem(zygote._session, os.getpid(), fresh)
    yield fresh
    fresh.stop()


@pytest.fixture(params=["namespaces", "landlock"])
def forked(request: pytest.FixtureRequest) -> SandboxStatus:
    return require(str(request.param))


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_one_server_forks_every_command(repo: Path, forked: SandboxStatus, server: zygote.Zygote) -> None:
    first = sandboxed(repo, "echo one", forked)
    pid = server.pid
    second = sandboxed(repo, "echo two; exit 4", forked)
    assert first.content.startswith("one\n") and "退出码: 4" in second.content
    assert server.served == 2 and server.pid == pid and pid is not None
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    assert int(stat[1]) == os.getpid()  # our child, in a session of its own
    assert int(stat[3]) == pid
    assert Path(f"/proc/{pid}/environ").read_bytes() == b""  # none of our keys (PAICLI_API_KEY is set)
    assert API_KEY.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes()


def test_the_wrapper_path_does_not_use_it(repo: Path, forked: SandboxStatus, server: zygote.Zygote) -> None:
    import dataclasses

    out = sandboxed(repo, "echo alone", dataclasses.replace(forked, zygote=False))
    assert out.content.startswith("alone\n") and server.served == 0 and server.pid is None


def test_a_server_started_by_a_finished_thread_lives_on(
    repo: Path, forked: SandboxStatus, server: zygote.Zygote
) -> None:
    worker = threading.Thread(target=sandboxed, args=(repo, "true", forked))
    worker.start()
    worker.join(timeout=60)
    pid = server.pid
    assert pid is not None and _alive(pid)  # PDEATHSIG belongs to the thread that forked it: not this one
    assert sandboxed(repo, "echo again", forked).content.startswith("again\n")
    assert server.pid == pid and server.served == 2


def test_a_dead_server_sends_commands_back_to_a_wrapper(
    repo: Path, forked: SandboxStatus, server: zygote.Zygote
) -> None:
    sandboxed(repo, "true", forked)
    assert server.pid is not None
    os.kill(server.pid, signal.SIGKILL)
    assert _wait_until(lambda: server.broken)
    out = sandboxed(repo, "echo still confined; echo x > $HOME/planted-after-death", forked)
    assert "\nstill confined\n" in out.content and "Permission denied" in out.content
    assert out.content.startswith("🛡️ 命令沙箱拒绝了：写入 ~/planted-after-death")
    assert not (Path(os.environ["HOME"]) / "planted-after-death").exists()
    assert server.served == 1


def test_a_server_dying_mid_command_takes_the_command_along(
    repo: Path, forked: SandboxStatus, server: zygote.Zygote
) -> None:
    tag = f"1000.{uuid.uuid4().int % 10**9}"
    results = []
    worker = threading.Thread(
        target=lambda: results.append(sandboxed(repo, f"(setsid sleep {tag} &); sleep {tag}", forked))
    )
    worker.start()
    assert _wait_until(lambda: len(_running(tag)) >= 2)
    assert server.pid is not None
    os.kill(server.pid, signal.SIGKILL)
    worker.join(timeout=30)
    assert results and not results[0].success
    assert _wait_until(lambda: not _running(tag)), _running(tag)
    assert sandboxed(repo, "echo next", forked).content.startswith("next\n")


def test_a_timeout_ends_the_command_and_all_it_started(repo: Path, status: SandboxStatus) -> None:
    tag = f"1000.{uuid.uuid4().int % 10**9}"
    ctx = ToolContext(
        repo,
        PathGuard(repo),
        CancelToken(),
        executor=SandboxExecutor(status, str(home_dir())),
        command_timeout_seconds=1.0,
    )
    out = execute_command({"command": f"(setsid sleep {tag} &); echo begun; sleep {tag}"}, ctx)
    assert out.timed_out and "begun" in out.content
    assert _wait_until(lambda: not _running(tag)), _running(tag)


def test_a_broken_pipe_ends_the_writer_quietly(repo: Path, status: SandboxStatus) -> None:
    out = sandboxed(repo, "yes | head -n 2", status)
    assert out.success and out.content.startswith("y\ny\n") and "Broken pipe" not in out.content


_ORPHAN = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from paicli.tools.sandbox import zygote
    from paicli.tools.sandbox.status import probe
    from tests.sandbox.conftest import sandboxed
    out = sandboxed(Path(sys.argv[1]), "true", probe("auto", sys.argv[2] == "1"))
    print(zygote.session_zygote().pid, out.success, flush=True)
    os._exit(0)
    """
)


def test_the_server_dies_with_paicli(repo: Path, forked: SandboxStatus) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _ORPHAN, str(repo), "1" if forked.userns else "0"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        cwd=Path(__file__).parents[2],
    )
    pid, success = done.stdout.split()
    assert success == "True"
    assert _wait_until(lambda: not _alive(int(pid)))


def test_commands_run_side_by_side(repo: Path, forked: SandboxStatus, server: zygote.Zygote) -> None:
    results = []
    waiter = threading.Thread(
        target=lambda: results.append(
            sandboxed(
                repo, "for i in $(seq 2000); do [ -e work/go ] && break; sleep 0.01; done; ls work", forked
            )
        )
    )
    waiter.start()
    assert _wait_until(lambda: server.served == 1)
    assert sandboxed(repo, "touch work/go && echo went", forked).content.startswith("went\n")
    waiter.join(timeout=60)
    assert results and results[0].content.startswith("go\n") and server.served == 2


def test_the_command_holds_only_its_stdio(repo: Path, status: SandboxStatus) -> None:
    """Neither the server's sockets nor another command's pipes nor the policy reach the command."""
    (repo / "work" / "fds.py").write_text(
        "import os\n"
        "def is_open(fd):\n"
        "    try:\n"
        "        return bool(os.fstat(fd))\n"
        "    except OSError:\n"
        "        return False\n"
        "print('open:', [fd for fd in range(3, 1024) if is_open(fd)])\n"
    )
    out = sandboxed(repo, "python3 -I -S work/fds.py", status)
    assert out.content.startswith("open: []\n"), out.content
