"""Issue 44 item 9 on a real terminal (a pty at 120 and 60 columns): a replayed conversation (what `/resume`
and `paicli --resume` print) wraps its long lines with a hanging indent, so a continuation row stays under
its line's text instead of starting at column 0."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.cli.pty_terminal import PtyTerminal

pty = pytest.importorskip("pty")
pytestmark = pytest.mark.timeout(60)

QUESTION = "请把这个项目里所有的配置文件都读一遍，" * 6 + "然后告诉我哪些设置是多余的"
ANSWER = "配置分三层：进程环境变量、项目目录的 .env 文件和用户主目录下的配置文件，" * 2 + "先找到的值生效"
CHILD = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    from paicli.cli.replay import replay_lines
    from paicli.cli.repl import run_repl
    from paicli.llm.messages import Message, ToolCall
    from paicli.testing.fake_backend import FakeBackend, recording_table

    question, answer = sys.argv[3], sys.argv[4]
    command = json.dumps({"command": "pytest tests/cli -q -k config --maxfail 1 --durations 5 -x"})
    messages = [
        Message.user(question),
        Message("assistant", "", tool_calls=(ToolCall("c1", "execute_command", command),)),
        Message("tool", "collected 3 items\\n退出码: 2", tool_call_id="c1"),
        Message("assistant", answer),
    ]
    intro = "\\n".join(replay_lines(messages))
    backend = FakeBackend(scripts=[], conversation=True)
    code = run_repl(
        backend, interactive=True, history_file=Path(sys.argv[2]), table=recording_table(), intro=intro
    )
    print("RC", code, flush=True)
    """
)


def _continuations(rows: list[str], start: str) -> list[str]:
    """The rows printed after the row that starts with `start`, up to the next replayed line."""
    [first] = [index for index, row in enumerate(rows) if row.startswith(start)]
    following: list[str] = []
    for row in rows[first + 1 :]:
        if not row.startswith("  ") or row.lstrip().startswith(("⏺", "⎿", "──")):
            break
        following.append(row)
    return [rows[first], *following]


@pytest.mark.parametrize("columns", [120, 60])
def test_replayed_lines_wrap_with_a_hanging_indent(tmp_path: Path, columns: int) -> None:
    root = Path(__file__).resolve().parents[2]
    argv = ["-c", CHILD, str(root), str(tmp_path / "h"), QUESTION, ANSWER]
    term = PtyTerminal(argv, os.environ, tmp_path, columns=columns)
    try:
        term.expect("以上是恢复的对话")
        term.expect("›")
        term.send("\x04")
        shown = term.expect("RC 0")
    finally:
        term.close()
    rows = [row.rstrip() for row in shown.replace("\r", "").split("\n")]
    question = _continuations(rows, "› 请把")
    answer = _continuations(rows, "  配置分三层")
    assert len(question) >= 2 and len(answer) >= 2  # both wrap at this width
    for row in [*question[1:], *answer[1:]]:
        assert row.startswith("  ") and row[2] != " ", row  # under the text, not at column 0
    assert all(cell_len(row) <= columns for row in question + answer)
    assert "".join(row.strip() for row in answer) == ANSWER  # nothing lost or added at a break
    tool = _continuations(rows, "  ⏺ execute_command(")
    if columns == 60:  # the tool line wraps only in the narrow terminal: under the tool's name
        assert len(tool) == 2 and tool[1].startswith("    ") and tool[1][4] != " ", tool
        assert "⎿ ❌ 失败（退出码 2）" in shown
