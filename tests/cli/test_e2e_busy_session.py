"""Two processes on one session (issue 17, item 8): the second forks or views it, never interleaves it."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paicli.cli.busy_session import claim_session
from paicli.session.flock import in_use
from paicli.session.ledger_index import INDEX_SUFFIX
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_env, run_paicli, start_paicli
from tests.cli.pty_terminal import PtyTerminal

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="flock")
WAIT = 90.0


def ledgers(home: Path) -> list[Path]:
    return sorted((home / ".paicli" / "history" / "raw").glob("session-*.jsonl"))


def entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def user_texts(path: Path) -> list[str]:
    return [str(e["message"]["content"]) for e in entries(path) if e["event"] == "user"]


def assert_clean(path: Path) -> None:
    sequences = [e["sequence"] for e in entries(path)]
    assert sequences == sorted(set(sequences)), f"interleaved ledger {path.name}: {sequences}"
    assert len({e["sessionId"] for e in entries(path)}) == 1


@pytest.fixture
def holder() -> Iterator[Any]:
    """Another process holding a session the way paicli does (session.flock), until told to stop."""
    procs: list[subprocess.Popen[str]] = []

    def hold(path: Path) -> subprocess.Popen[str]:
        code = (
            "import sys; from pathlib import Path; from paicli.session.flock import try_lock; "
            "fd = try_lock(Path(sys.argv[1])); print('held' if fd is not None else 'busy', flush=True); "
            "sys.stdin.read()"
        )
        proc = subprocess.Popen(
            [sys.executable, "-c", code, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        procs.append(proc)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        return proc

    yield hold
    for proc in procs:
        proc.kill()
        proc.wait()


def first_session(server: FakeOpenAIServer, env: dict[str, str], project: Path, home: Path) -> Path:
    server.push("第一次的回答")
    assert run_paicli(["-p", "第一次的问题"], env, project, timeout=WAIT).returncode == 0
    (path,) = ledgers(home)
    return path


def test_two_continues_at_once_never_share_a_ledger(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        env = paicli_env(isolated_home, server.base_url)
        original = first_session(server, env, project, isolated_home)
        server.push(Reply.hang("第二次的回答"))
        first = start_paicli(["-c", "-p", "第二次的问题"], env, project)
        try:
            assert server.wait_for_hang(timeout=WAIT)
            server.push("第三次的回答")
            second = run_paicli(
                ["-c", "-p", "第三次的问题", "--output-format", "json"], env, project, timeout=WAIT
            )
        finally:
            server.release()
            _out, err = first.communicate(timeout=WAIT)
        assert first.returncode == 0, err
        assert second.returncode == 0, second.stderr
        assert "另一个 paicli 进程" in second.stderr and "复制为新会话" in second.stderr
        assert "Traceback" not in second.stderr + err
        fork = next(p for p in ledgers(isolated_home) if p != original)
        assert json.loads(second.stdout.strip().splitlines()[-1])["session_id"] == fork.name[:-6]
        assert "第三次的问题" not in " ".join(user_texts(original))
        assert any("第二次的问题" in t for t in user_texts(original))
        assert any("第一次的问题" in t for t in user_texts(fork)) and any(
            "第三次的问题" in t for t in user_texts(fork)
        )
        for path in (original, fork):
            assert_clean(path)
        assert any(
            e["event"] == "session_forked" and e["metadata"]["forkedFrom"] == original.name[:-6]
            for e in entries(fork)
        )
        # once both are done, -c continues the latest session in place again, without a fork
        server.push("第四次的回答")
        later = run_paicli(["-c", "-p", "第四次的问题"], env, project, timeout=WAIT)
        assert later.returncode == 0 and "复制为新会话" not in later.stderr
        assert len(ledgers(isolated_home)) == 2
        assert server.violations == []


def test_resume_by_id_and_piped_repl_fork_a_held_session(
    project: Path, isolated_home: Path, holder: Any
) -> None:
    with FakeOpenAIServer() as server:
        env = paicli_env(isolated_home, server.base_url)
        original = first_session(server, env, project, isolated_home)
        before = original.read_bytes()
        holder(original)
        server.push("按 id 恢复的回答")
        by_id = run_paicli(["--resume", original.name[:-6], "-p", "按 id 恢复"], env, project, timeout=WAIT)
        assert by_id.returncode == 0 and "复制为新会话" in by_id.stderr, by_id.stderr
        server.push("管道 REPL 的回答")
        piped = run_paicli(
            ["--resume", original.name[:-6]], env, project, stdin="管道里的问题\n/exit\n", timeout=WAIT
        )
        assert piped.returncode == 0 and "复制为新会话" in piped.stderr, piped.stderr
        server.push("斜杠恢复的回答")
        slash = run_paicli(
            [], env, project, stdin=f"/resume {original.name[:-6]}\n斜杠恢复后的问题\n/exit\n", timeout=WAIT
        )
        assert slash.returncode == 0 and "复制为新会话" in slash.stdout + slash.stderr, slash.stderr
        assert original.read_bytes() == before  # the held session was never written to
        assert len(ledgers(isolated_home)) >= 4
        for path in ledgers(isolated_home):
            assert_clean(path)
        assert server.violations == []


def test_a_killed_holder_leaves_no_stale_lock(project: Path, isolated_home: Path, holder: Any) -> None:
    with FakeOpenAIServer() as server:
        env = paicli_env(isolated_home, server.base_url)
        original = first_session(server, env, project, isolated_home)
        proc = holder(original)
        assert in_use(original)
        proc.kill()
        proc.wait()
        assert not in_use(original)
        server.push("继续")
        again = run_paicli(["-c", "-p", "接着来"], env, project, timeout=WAIT)
        assert again.returncode == 0 and "复制为新会话" not in again.stderr
        assert ledgers(isolated_home) == [original]


@pytest.mark.parametrize(("answer", "expected"), [("r\n", 0), ("q\n", 1), ("\n", "fork"), ("f\n", "fork")])
def test_the_interactive_choice(
    tmp_path: Path, holder: Any, capsys: pytest.CaptureFixture[str], answer: str, expected: object
) -> None:
    ledger = tmp_path / "session-1-abc.jsonl"
    line = {
        "schemaVersion": 1,
        "sessionId": "session-1-abc",
        "sequence": 1,
        "timestamp": 1,
        "event": "user",
        "mode": "react",
        "actor": "agent",
        "source": "user_input",
        "message": {"role": "user", "content": "只读可见的问题"},
        "metadata": {},
    }
    ledger.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    holder(ledger)
    err = io.StringIO()
    outcome = claim_session(ledger, ask=True, stdin=io.StringIO(answer), stderr=err)
    assert "另一个 paicli 进程" in err.getvalue()
    if expected == "fork":
        assert isinstance(outcome, Path) and outcome != ledger and outcome.parent == ledger.parent
        assert "只读可见的问题" in outcome.read_text(encoding="utf-8")
        assert not in_use(outcome)
    else:
        assert outcome == expected
        ledgers = [p for p in tmp_path.iterdir() if not p.name.endswith(INDEX_SUFFIX)]  # side index: derived
        assert ledgers == [ledger]
    if answer == "r\n":
        assert "只读可见的问题" in capsys.readouterr().out


class Terminal(PtyTerminal):
    """`paicli` in a pseudo-terminal, so the interactive question is the real thing."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path) -> None:
        super().__init__(["-m", "paicli", *args], env, cwd)

    def expect(self, pattern: str, timeout: float = WAIT) -> str:
        return super().expect(pattern, timeout)

    def close(self) -> int:
        self.drain(WAIT)
        return os.waitstatus_to_exitcode(super().close())


@pytest.mark.timeout(300)
@pytest.mark.parametrize("answer", ["r", "q", "f"])
def test_a_terminal_user_is_asked_fork_view_or_quit(
    project: Path, isolated_home: Path, holder: Any, answer: str
) -> None:
    with FakeOpenAIServer() as server:
        env = paicli_env(isolated_home, server.base_url)
        original = first_session(server, env, project, isolated_home)
        holder(original)
        term = Terminal(["-c"], env, project)
        try:
            term.expect("请选择")
            assert "另一个 paicli 进程" in term.plain()
            term.send(answer + "\r")
            if answer == "r":
                term.expect("只读查看会话")
                term.expect("第一次的回答")
            elif answer == "q":
                term.expect("已退出")
            else:
                term.expect("复制为新会话")
                term.expect("›")
                term.send("/exit\r")
        finally:
            code = term.close()
        assert code == {"r": 0, "q": 1, "f": 0}[answer]
        assert len(ledgers(isolated_home)) == (2 if answer == "f" else 1)
        assert "Traceback" not in term.plain()
