"""Issue 44 item 9: text typed while the model streams its answer stays on screen as it is typed (the real
REPL in tmux at 120 and 60 columns, loopback server), and it is the next prompt's text once the answer is done.

The server streams part of a block, then holds the rest until the test releases it; every wait polls the
screen (or the server's requests) for what it checks.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from tests.cli.test_tmux_visual import repl_pane, wait_until

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

WRITTEN = "第一段已经写完。\n\n第二段正在写，还没有写完"
REST = "，现在写完了。\n\n"


@pytest.mark.parametrize("columns", [120, 60])
def test_text_typed_while_the_answer_streams_is_shown_and_becomes_the_next_prompt(
    tmp_path: Path, project: Path, isolated_home: Path, columns: int
) -> None:
    with FakeOpenAIServer() as server:
        server.push(Reply.hang(WRITTEN, rest=REST, chunks=4), Reply.text("第二个回答"))
        with repl_pane(tmp_path, project, isolated_home, server, columns) as pane:
            pane.wait_for("fake-model · ctx")
            pane.keys("第一个问题", "Enter")
            assert server.wait_for_hang(60)
            wait_until(pane, lambda s: "还没有写完" in s, "the block being written")
            pane.keys("-l", "再解释")
            wait_until(pane, lambda s: "已输入: 再解释" in s, "the typed text while the answer streams")
            server.release()

            def prompt_holds_it(
                screen: str,
            ) -> bool:  # the answer is whole and the prompt is back with the text
                rows = screen[screen.rfind("现在写完了。") :].splitlines() if "现在写完了。" in screen else []
                return any(row.rstrip() == "› 再解释" for row in rows) and any(" · ctx " in r for r in rows)

            shown = wait_until(pane, prompt_holds_it, "the next prompt holding the typed text")
            assert shown.count("还没有写完") == 1  # the live lines gave way to the drawn block
            pane.keys("Enter")
            pane.wait_for("第二个回答")
        assert server.requests[1]["messages"][-1] == {"role": "user", "content": "再解释"}
        server.assert_no_violations()
