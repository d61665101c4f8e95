"""Issue 40: while a long block streams, the screen moves (the real REPL in tmux, loopback server).

The server streams part of a block that has no blank line yet and then holds the rest until the test releases
it: meanwhile the screen shows the newest text of the block and a counter of seconds and characters; after the
release the whole block is drawn once. Every wait polls the screen for what it checks.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from tests.cli.test_tmux_visual import repl_pane, wait_until

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

WRITTEN = "第一行：这段代码读取配置文件\n第二行：然后逐个检查每一项设置，最后一句还没有写完"
REST = "，现在写完了。\n\n"
COUNTER = re.compile(r"正在输出回答（已收到 (\d+) 字） · (\d+)s · Esc 取消")


def test_a_block_still_being_written_is_shown_live_then_drawn_whole(
    tmp_path: Path, project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer() as server:
        server.push(Reply.hang(WRITTEN, rest=REST, chunks=6))
        with repl_pane(tmp_path, project, isolated_home, server, 100) as pane:
            pane.wait_for("fake-model · ctx")
            pane.keys("解释一下这段代码", "Enter")
            assert server.wait_for_hang(60)

            def live(screen: str) -> bool:  # the newest text and a clock that goes on while nothing arrives
                counters = COUNTER.findall(screen)
                return "最后一句还没有写完" in screen and any(int(seconds) >= 1 for _, seconds in counters)

            shown = wait_until(pane, live, "the block being written, with its counter")
            assert {int(chars) for chars, _ in COUNTER.findall(shown)} == {len(WRITTEN)}
            assert "现在写完了" not in shown
            server.release()
            done = wait_until(
                pane, lambda s: "现在写完了。" in s and not COUNTER.search(s), "the whole block"
            )
            pane.wait_prompt("现在写完了。")
            assert done.count("最后一句还没有写完") == 1  # the live lines gave way to the drawn block
        server.assert_no_violations()
