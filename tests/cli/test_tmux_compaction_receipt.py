"""Issue 38 on a real terminal (tmux, loopback server): right after an automatic compaction notice, Ctrl+O
opens that compaction's receipt and summary. Every wait polls the screen for the text it checks."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from paicli.testing.openai_server import FakeOpenAIServer, Reply, is_summary_request
from tests.cli.test_tmux_visual import SUMMARY, repl_pane

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def test_ctrl_o_after_a_compaction_notice_shows_its_receipt(
    tmp_path: Path, project: Path, isolated_home: Path
) -> None:
    long_answer = "这一轮的回答内容很长，用来把上下文撑到压缩阈值之上。" * 140
    answers = iter(f"第{n}轮：{long_answer}" for n in range(1, 12))

    def respond(body: dict[str, Any]) -> Reply | str:
        return SUMMARY if is_summary_request(body) else next(answers)

    with FakeOpenAIServer(responder=respond) as server:
        with repl_pane(tmp_path, project, isolated_home, server, 100, PAICLI_CONTEXT_WINDOW="16000") as pane:
            pane.wait_for("fake-model · ctx")
            turn = 0
            while not any(is_summary_request(r) for r in server.requests):
                turn += 1
                assert turn <= 10, "no automatic summary was asked for"
                pane.keys(f"第{turn}个问题", "Enter")
                pane.wait_prompt(f"第{turn}轮：")
            shown = pane.wait_for("摘要与回执：Ctrl+O 展开")
            assert "📦 已压缩历史上下文" in shown
            pane.keys("C-o")
            shown = pane.wait_for("── 输出结束")
            block = shown[shown.rindex("── 上下文压缩回执 的完整输出") :]
            assert "🧾 压缩回执（自动，历史摘要）" in block
            assert "摘要替换了" in block and "recall:r" in block
            assert "## 当前目标与成功条件" in block  # the summary itself, as the model now sees it
        assert server.violations == []
