"""The real REPL in tmux against the loopback server, for what the screen says about the session: a resumed
compacted session shows its last turns (the count of the rest, a denied call marked denied); `/model` with
a name the provider does not list (did-you-mean) or cannot list; `/context` after a turn with cached usage.

Every wait polls the screen until the expected text appears (tests.cli.test_tmux_e2e.Pane); no fixed sleeps.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from paicli.testing.openai_server import FakeOpenAIServer, Reply, is_summary_request
from paicli.testing.proc import paicli_env
from tests.cli.test_tmux_e2e import Pane

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]
SUMMARY = (
    "## 当前目标与成功条件\n回答用户的几个问题\n"
    "## 用户要求与已确认决定\n不要发布到 npm\n"
    "## 已完成工作及证据\n回答了前几个问题\n"
    "## 未解决问题与下一步\n等待下一个问题"
)
EXITED = "[paicli exited]"


@contextmanager
def terminal(
    tmp: Path, project: Path, home: Path, server: FakeOpenAIServer, runs: Sequence[str], **env: str
) -> Iterator[Pane]:
    """A 120x40 tmux pane running `paicli <args>` once per entry of `runs`; after each run it prints
    EXITED and waits for Enter before the next one."""
    settings = paicli_env(home, server.base_url, TERM="xterm-256color", PAICLI_APPROVAL_MODE="auto", **env)
    exports = "\n".join(f"export {key}={shlex.quote(value)}" for key, value in settings.items())
    command = f"{shlex.quote(sys.executable)} -m paicli"
    steps = "".join(f"{command} {args}\necho {shlex.quote(EXITED)}\nread _\n" for args in runs)
    script = tmp / "run.sh"
    script.write_text(f"{exports}\ncd {shlex.quote(str(project))}\n{steps}", encoding="utf-8")
    socket = f"paicli-test-{uuid.uuid4().hex[:8]}"
    size = ["-x", "120", "-y", "40"]
    start = ["tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "t", *size]
    subprocess.run([*start, f"bash {shlex.quote(str(script))}"], check=True, timeout=30)
    try:
        pane = Pane(socket, "t")
        pane.tmux("set-option", "-t", "t", "history-limit", "20000")
        yield pane
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, timeout=30)


def turn(pane: Pane, text: str, answer: str) -> None:
    pane.keys(text, "Enter")
    pane.wait_for(answer)
    pane.wait_prompt(answer)


def _answers(body: dict[str, Any]) -> Reply | str | None:
    """Summaries get the four headings; everything else comes from the queue."""
    return SUMMARY if is_summary_request(body) else None


def test_a_resumed_compacted_session_shows_its_last_turns_and_the_denied_call(
    tmp_path: Path, project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer(responder=_answers) as server:
        server.push(
            "回答一。",
            "回答二。",
            Reply.tool_calls(("execute_command", json.dumps({"command": "npm publish"}))),
            "好的，没有发布。",
            "回答四。",
            "接着上次的话题。",
        )
        runs = ("", "-c")
        with terminal(tmp_path, project, isolated_home, server, runs, PAICLI_RESUME_REPLAY_TURNS="3") as pane:
            pane.wait_for("fake-model · ctx")
            turn(pane, "第一个问题", "回答一。")
            turn(pane, "第二个问题", "回答二。")
            pane.keys("发布到 npm", "Enter")
            pane.wait_for("需要确认: 执行命令: npm publish")
            pane.wait_for("[Esc] 拒绝：")
            pane.keys("n")
            pane.wait_for("好的，没有发布。")
            pane.wait_prompt("好的，没有发布。")
            turn(pane, "第四个问题", "回答四。")
            pane.keys("/compact", "Enter")
            pane.wait_for("📦")
            pane.wait_prompt("📦")
            pane.keys("C-d")
            pane.wait_for(EXITED)
            pane.tmux("clear-history", "-t", "t")
            pane.keys("Enter")  # the script's `read`: the next run starts
            shown = pane.wait_for("── 以上是恢复的对话，可以接着说 ──")
            pane.wait_prompt("── 以上是恢复的对话")
            turn(pane, "继续", "接着上次的话题。")
            requests = [r for r in server.requests if not is_summary_request(r)]

    replay = shown[shown.index("✅ 已恢复会话") : shown.index("── 以上是恢复的对话")]
    assert "（共 4 轮对话，模型上下文 " in replay  # turns the user had, then what the model sees
    assert "（更早的 1 轮未显示，共 4 轮）" in replay
    assert "第一个问题" not in replay and "（更早的对话已压缩成摘要）" not in replay
    order = ["› 第二个问题", "回答二。", "› 发布到 npm", "⏺ execute_command(npm publish)"]
    order += [
        "⎿ 🚫 已拒绝，未执行",
        "好的，没有发布。",
        "› 第四个问题",
        "回答四。",
        "在模型的上下文里已经压缩",
    ]
    positions = [replay.index(text) for text in order]
    assert positions == sorted(positions), replay
    # what the model continues from is still the compacted view
    last = json.dumps(requests[-1]["messages"], ensure_ascii=False)
    assert "[已压缩的历史对话摘要]" in last and "第一个问题" not in last


def test_model_with_a_typo_of_a_listed_name_gets_did_you_mean(
    tmp_path: Path, project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer(models=("fake-model", "gpt-5-mini")) as server:
        server.push("用 gpt-5-mini 回答。")
        with terminal(tmp_path, project, isolated_home, server, ("",)) as pane:
            pane.wait_for("fake-model · ctx")
            pane.keys("/model gpt-5-mnii", "Enter")
            pane.wait_for("你是不是想用 gpt-5-mini？")
            pane.wait_for("仍要切换到不在列表里的 gpt-5-mnii 吗？")
            pane.keys("Enter")
            pane.wait_for("↩️ 没有切换模型")
            pane.wait_prompt("↩️ 没有切换模型")
            pane.keys("/model gpt-5-mini", "Enter")
            pane.wait_for("✅ 已切换到 gpt-5-mini (paicli)")
            pane.wait_prompt("✅ 已切换到 gpt-5-mini (paicli)")
            turn(pane, "你好", "用 gpt-5-mini 回答。")
            models = [request["model"] for request in server.requests]
    assert models == ["gpt-5-mini"]


def test_model_on_a_provider_that_lists_no_models_says_it_cannot_check(
    tmp_path: Path, project: Path, isolated_home: Path
) -> None:
    with (
        FakeOpenAIServer(models_route=False) as server,
        terminal(tmp_path, project, isolated_home, server, ("",)) as pane,
    ):
        pane.wait_for("fake-model · ctx")
        pane.keys("/model gpt-5", "Enter")
        shown = pane.wait_for("✅ 已切换到 gpt-5 (paicli)")
        pane.wait_for("ℹ️ 无法核对 paicli 的模型列表（服务不提供模型列表），没有确认 gpt-5 是否可用")
        pane.wait_prompt("没有确认 gpt-5 是否可用")
    assert "仍要切换" not in shown  # nothing to confirm against: it says so instead


def test_context_after_a_cached_turn_reports_one_cache_figure_and_no_internal_names(
    tmp_path: Path, project: Path, isolated_home: Path
) -> None:
    usage: dict[str, Any] = {"prompt_tokens": 10_000, "completion_tokens": 20, "total_tokens": 10_020}
    usage["prompt_tokens_details"] = {"cached_tokens": 8_960}
    with FakeOpenAIServer() as server:
        server.push(Reply.text("看过了。", usage=usage))
        with terminal(tmp_path, project, isolated_home, server, ("",)) as pane:
            pane.wait_for("fake-model · ctx")
            turn(pane, "看一下项目", "看过了。")
            pane.keys("/context", "Enter")
            shown = pane.wait_for("本会话模型调用:")
            pane.wait_prompt("本会话模型调用:")
            pane.keys("/model info", "Enter")
            info = pane.wait_for("prompt cache: 生效（命中 89.6%）")
    report = shown[shown.index("📊 上下文占用") :]
    report = report[: report.index("本会话模型调用:")]
    cache_lines = [line for line in report.splitlines() if "cache" in line.lower()]
    assert cache_lines == ["  prompt cache: 生效，本会话 89.6% 的输入 token 命中缓存（服务端报告）"]
    assert "conversationHistory" not in report and "MCP" not in report and "none" not in report
    assert "prompt cache: none" not in info
