"""The CLI contract (design/contract.md, issue 24) end to end: real `paicli` subprocesses against the loopback
server. Signals (whatever the parent left behind), exit codes of the piped REPL, usage errors, the settings
that must work as documented, `--max-turns` accounting."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import (
    ignoring_sigint,
    message_text,
    paicli_command,
    paicli_env,
    run_paicli,
    start_paicli,
)

pytestmark = pytest.mark.timeout(240)
WAIT = 90.0
PLANNER_MARK = "Plan Builder"


def wait_until(check: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    done = threading.Event()
    for _ in range(int(timeout / 0.05)):
        if check():
            return
        done.wait(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def no_traceback(err: str) -> bool:
    return "Traceback" not in err and "KeyboardInterrupt" not in err


def user_texts(body: dict[str, Any]) -> list[str]:
    return [message_text(m) for m in body["messages"] if m["role"] == "user"]


def piped_session(command: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        command,
        env=env,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


# ---- 1 / 6: signals -------------------------------------------------------------------------------------


def test_a_piped_session_started_with_sigint_ignored_still_exits_130_on_ctrl_c(
    project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer() as server:
        env = paicli_env(isolated_home, server.base_url)
        proc = piped_session(ignoring_sigint(paicli_command([])), env, project)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("/help\n")
        proc.stdin.flush()
        assert proc.stdout.readline()  # the session is up and has answered
        for _ in range(60):  # one landing while /help still prints only interrupts that command
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=0.5)
                break
            except subprocess.TimeoutExpired:
                continue
        _, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 130, err
    assert no_traceback(err)


def test_sigterm_while_a_piped_session_waits_for_input_exits_130(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        proc = piped_session(paicli_command([]), paicli_env(isolated_home, server.base_url), project)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("/help\n")
        proc.stdin.flush()
        assert proc.stdout.readline()
        proc.send_signal(signal.SIGTERM)  # while /help prints or while it waits: either way the session ends
        _, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 130, err
    assert no_traceback(err)


def test_sigterm_during_a_piped_task_cancels_it_and_reads_no_further_input(
    project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer() as server:
        server.push(Reply.hang("思考中"))
        proc = start_paicli([], paicli_env(isolated_home, server.base_url), project, stdin=subprocess.PIPE)
        assert proc.stdin is not None
        proc.stdin.write("第一件事\n第二件事\n")
        proc.stdin.flush()
        assert server.wait_for_hang(timeout=WAIT)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=WAIT)
        requests = server.requests
    assert proc.returncode == 130, err
    assert no_traceback(err) and "收到终止信号" in err
    assert len(requests) == 1 and "第二件事" not in json.dumps(requests, ensure_ascii=False)


def test_sigterm_during_oneshot_start_up_exits_130_without_traceback(
    project: Path, isolated_home: Path
) -> None:
    """`-p` waits for its piped stdin during start-up: a stop there is a cancel, not a death by signal."""
    with FakeOpenAIServer() as server:
        proc = start_paicli(
            ["-p", "总结输入"], paicli_env(isolated_home, server.base_url), project, stdin=subprocess.PIPE
        )
        log = isolated_home / ".paicli" / "logs" / "paicli.log"  # created just before stdin is read
        wait_until(log.exists, "the start-up to reach its log file")
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=WAIT)
        assert server.requests == []
    assert proc.returncode == 130, err
    assert no_traceback(err)


# ---- 7: the piped REPL's exit code -----------------------------------------------------------------------


def test_a_piped_session_whose_tasks_fail_exits_1(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer(api_key="sk-the-right-one") as server:
        env = paicli_env(isolated_home, server.base_url, PAICLI_API_KEY="sk-a-wrong-one")
        done = run_paicli([], env, project, stdin="你好\n/help\n再试一次\n", timeout=WAIT)
    assert done.returncode == 1, done.stderr
    assert "可用命令" in done.stdout  # the session went on after the failure


def test_a_piped_session_with_an_unknown_command_exits_2_and_one_that_succeeds_0(
    project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer() as server:
        server.push("好的", "好的")
        env = paicli_env(isolated_home, server.base_url)
        bad = run_paicli([], env, project, stdin="/nosuchcommand\n你好\n", timeout=WAIT)
        good = run_paicli([], env, project, stdin="你好\n/context\n", timeout=WAIT)
    assert bad.returncode == 2, bad.stderr
    assert "/nosuchcommand" in bad.stdout and "好的" in bad.stdout  # reported, and the next input still ran
    assert good.returncode == 0, good.stderr


# ---- 4: /resume in the piped REPL ----------------------------------------------------------------------


def test_piped_resume_without_an_argument_lists_sessions_and_leaves_the_next_line_alone(
    project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer() as server:
        server.push("第一次的回答", "第二次的回答")
        env = paicli_env(isolated_home, server.base_url)
        first = run_paicli(["-p", "最早的问题"], env, project, timeout=WAIT)
        assert first.returncode == 0, first.stderr
        done = run_paicli([], env, project, stdin="/resume\n/exit\n", timeout=WAIT)
        later = run_paicli([], env, project, stdin="/resume\n接着的问题\n", timeout=WAIT)
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert "最早的问题" in done.stdout and "/resume <编号" in done.stdout and "👋" in done.stdout
    assert later.returncode == 0, later.stderr
    assert user_texts(requests[-1])[-1].startswith("接着的问题")  # a task, not a search term
    assert "第二次的回答" in later.stdout


# ---- 2: continuing with nothing to continue ----------------------------------------------------------


@pytest.mark.parametrize("mode", ["--plan", "--team"])
def test_continuing_a_run_when_there_is_none_is_a_usage_error_without_a_model_call(
    project: Path, isolated_home: Path, mode: str
) -> None:
    with FakeOpenAIServer() as server:
        server.push("普通的回答")
        env = paicli_env(isolated_home, server.base_url)
        no_session = run_paicli(["-p", "", mode, "-c"], env, project, timeout=WAIT)
        assert server.requests == []
        plain = run_paicli(["-p", "普通的问题"], env, project, timeout=WAIT)
        assert plain.returncode == 0, plain.stderr
        no_run = run_paicli(["-p", "", mode, "-c"], env, project, timeout=WAIT)
        assert len(server.requests) == 1  # only the plain run's
    for done in (no_session, no_run):
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("paicli: ") and mode in lines[0], done.stderr
        assert done.stdout == ""
    assert "还没有会话" in no_session.stderr
    assert "session-" in no_run.stderr  # names the session it looked in


# ---- 3: PAICLI_APPROVAL_MODE ---------------------------------------------------------------------------


def test_approval_mode_plan_runs_plain_inputs_as_plans(project: Path, isolated_home: Path) -> None:
    plan = json.dumps(
        {"summary": "s", "tasks": [{"id": "t1", "description": "写出答案", "type": "ANALYSIS"}]},
        ensure_ascii=False,
    )

    def respond(body: dict[str, Any]) -> Reply | str | None:
        if PLANNER_MARK in message_text(body["messages"][0]):
            return f"```json\n{plan}\n```"
        return "任务完成"

    with FakeOpenAIServer(responder=respond) as server:
        env = paicli_env(isolated_home, server.base_url, PAICLI_APPROVAL_MODE="plan")
        piped = run_paicli([], env, project, stdin="做一件事\n", timeout=WAIT)
        oneshot = run_paicli(["-p", "再做一件事"], env, project, timeout=WAIT)
        planners = [b for b in server.requests if PLANNER_MARK in message_text(b["messages"][0])]
    assert piped.returncode == 0 and oneshot.returncode == 0, piped.stderr + oneshot.stderr
    assert len(planners) == 2
    assert "做一件事" in user_texts(planners[0])[-1] and "再做一件事" in user_texts(planners[1])[-1]


def test_approval_mode_ask_refuses_an_edit_that_auto_allows_in_a_oneshot_run(
    project: Path, isolated_home: Path
) -> None:
    def write(name: str) -> list[Reply | str]:
        call = ("write_file", json.dumps({"path": name, "content": "内容\n"}))
        return [Reply.tool_calls(call), "写好了"]

    with FakeOpenAIServer() as server:
        server.push(*write("asked.txt"), *write("auto.txt"))
        asked = run_paicli(
            ["-p", "写文件"],
            paicli_env(isolated_home, server.base_url, PAICLI_APPROVAL_MODE="ask"),
            project,
            timeout=WAIT,
        )
        auto = run_paicli(["-p", "写文件"], paicli_env(isolated_home, server.base_url), project, timeout=WAIT)
    assert asked.returncode == 0 and auto.returncode == 0, asked.stderr + auto.stderr
    assert not (project / "asked.txt").exists()
    assert (project / "auto.txt").read_text(encoding="utf-8") == "内容\n"


def test_an_approval_mode_that_does_not_exist_is_refused_at_start_up(
    project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer() as server:
        env = paicli_env(isolated_home, server.base_url, PAICLI_APPROVAL_MODE="yolo")
        done = run_paicli(["-p", "你好"], env, project, timeout=WAIT)
        assert server.requests == []
    assert done.returncode == 2
    assert "PAICLI_APPROVAL_MODE" in done.stderr and len(done.stderr.strip().splitlines()) == 1


# ---- 5: --max-turns ------------------------------------------------------------------------------------


def test_max_turns_counts_the_tool_loop_calls_and_num_turns_adds_the_finalisation(
    project: Path, isolated_home: Path
) -> None:
    for name in ("a.txt", "b.txt", "c.txt", "d.txt"):
        (project / name).write_text(f"{name}\n", encoding="utf-8")
    reads: list[str] = []

    def respond(body: dict[str, Any]) -> Reply | str:
        if not body.get("tools"):
            return "部分结果"
        reads.append("abcd"[len(reads) % 4] + ".txt")
        return Reply.tool_calls(("read_file", json.dumps({"path": reads[-1]})))

    with FakeOpenAIServer(responder=respond) as server:
        done = run_paicli(
            ["-p", "一直读", "--max-turns", "3", "--output-format", "json"],
            paicli_env(isolated_home, server.base_url),
            project,
            timeout=WAIT,
        )
        requests = server.requests
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert [bool(b.get("tools")) for b in requests] == [True, True, True, False]
    assert result["num_turns"] == len(requests) == 4
    assert "部分结果" in result["result"] and "3" in result["result"]


# ---- 8: silently ignored input -------------------------------------------------------------------------


def test_an_unknown_paicli_name_gets_one_line_with_the_closest_known_one(
    project: Path, isolated_home: Path
) -> None:
    (isolated_home / ".paicli").mkdir(parents=True, exist_ok=True)
    (isolated_home / ".paicli" / ".env").write_text("PAICLI_MODLE=other\n", encoding="utf-8")
    with FakeOpenAIServer() as server:
        server.push("照常回答")
        env = paicli_env(isolated_home, server.base_url, PAICLI_CONTEX_WINDOW="32000")
        done = run_paicli(["-p", "你好"], env, project, timeout=WAIT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "照常回答"
    lines = [line for line in done.stderr.splitlines() if "未知的设置" in line]
    assert len(lines) == 2, done.stderr
    assert "PAICLI_CONTEX_WINDOW" in lines[0] and "PAICLI_CONTEXT_WINDOW？" in lines[0]
    assert "PAICLI_MODLE" in lines[1] and ".env" in lines[1] and "PAICLI_MODEL？" in lines[1]


def test_output_format_without_p_is_a_usage_error(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        env = paicli_env(isolated_home, server.base_url)
        done = run_paicli(["--output-format", "json"], env, project, stdin="你好\n", timeout=WAIT)
        assert server.requests == []
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "--output-format" in done.stderr


# ---- 9: /export of an empty conversation ---------------------------------------------------------------


def test_exporting_an_empty_conversation_writes_no_file(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        env = paicli_env(isolated_home, server.base_url)
        done = run_paicli([], env, project, stdin="/export\n/export notes.md\n", timeout=WAIT)
        assert server.requests == []
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("没有可导出的内容") == 2
    assert not (isolated_home / ".paicli" / "exports").exists() and not (project / "notes.md").exists()
