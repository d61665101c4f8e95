"""Issue 26: one terminal sanitiser for every untrusted string shown. Escape sequences from a model, a
repository or a command never reach the terminal; an approval shows control characters so nothing is hidden."""

from __future__ import annotations

import ast
import io
import itertools
import json
from pathlib import Path

import pytest
from rich.console import Console

from paicli.agent.events import RunFinished, TextDelta
from paicli.agent.plan.model import Plan, PlanTask, TaskType
from paicli.agent.task_events import PlanProposed, TaskActivity, TaskStarted
from paicli.cli.approval import shown
from paicli.cli.live_output import display_line
from paicli.cli.plan_view import plan_table
from paicli.cli.printing import SafeConsole, say
from paicli.cli.render import EventRenderer
from paicli.cli.repl_io import preview_text
from paicli.cli.session_commands import skill_command
from paicli.termsafe import TerminalStream, show_controls, show_one_line, strip_terminal
from paicli.tools.base import ApprovalRequest, ToolFinished, ToolResult, ToolStarted
from paicli.tools.skills import SkillCatalog, SkillDirs
from tests.sources import parsed

ESC = "\x1b"
OSC52 = "\x1b]52;c;ZWNobyBwd25lZA==\x1b\\"  # clipboard write, ended by ESC \
OSC0 = "\x1b]0;owned title\x1b\\"
OSC0_BEL = "\x1b]0;bel title\x07"
OSC_8BIT = "\x9d0;eight bit title\x9c"
DCS = "\x1bPq#0;2;0;0;0#1~~@@\x1b\\"
DCS_8BIT = "\x90+q544e\x9c"
APC = "\x1b_apc payload\x1b\\"
PM_SOS = "\x1b^pm\x1b\\\x1bXsos\x1b\\\x98sos8\x9c"
RIS = "\x1bc"
CHARSET = "\x1b(0lqqk\x1b(B"
CSI_8BIT = "\x9b2J"
HIDDEN = "touch ../P7;:#" + "\x1b[D" * 30 + "ls -la" + "\x1b[K"
HOSTILE = [
    OSC52,
    OSC0,
    OSC0_BEL,
    OSC_8BIT,
    DCS,
    DCS_8BIT,
    APC,
    PM_SOS,
    RIS,
    CHARSET,
    CSI_8BIT,
    "\x1b[2J\x1b[H",
]
# Nothing of these may be on the terminal: the introducers and what only an escape sequence would leave.
FORBIDDEN = [ESC, "\x9b", "\x9c", "\x9d", "\x90", "\x98", "\x9e", "\x9f", "\x07", "\x08", "\r"]


def clean(text: str) -> bool:
    return not any(mark in text for mark in FORBIDDEN)


@pytest.mark.parametrize("sequence", HOSTILE)
def test_strip_terminal_removes_every_kind_of_sequence_whole(sequence: str) -> None:
    out = strip_terminal(f"before {sequence} after")
    assert out.startswith("before ") and out.endswith(" after") and clean(out)
    for payload in ("ZWNob", "owned", "bel title", "eight bit", "apc payload", "544e", "2J"):
        assert payload not in out


def test_c0_and_c1_controls_are_removed_but_newline_and_tab_stay() -> None:
    every = "".join(chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)])
    assert strip_terminal(f"a{every}\nb\u202eevil\u2066") == "a\t\n\nbevil"  # \x9f (APC) ends at the newline
    # an unterminated control string ends at the next control character, not at the end of the text
    assert strip_terminal("x\x9dtitle\nnext line") == "x\nnext line"


def test_show_controls_writes_every_control_out() -> None:
    shown_text = show_controls(HIDDEN)
    assert clean(shown_text)
    assert shown_text == "touch ../P7;:#" + "\\x1b[D" * 30 + "ls -la\\x1b[K"
    assert show_controls("a\rb\x08c\x9bd") == "a\\rb\\x08c\\x9bd"
    assert show_one_line("x\ny\tz") == "x\\ny\\tz"


def test_plain_text_is_returned_as_is() -> None:
    text = "普通文本 with [bold]brackets[/bold], tabs\tand\nnewlines 😀"
    assert strip_terminal(text) is text and show_controls(text) is text


def test_a_sequence_split_across_deltas_is_removed_whole_at_every_split() -> None:
    text = f"pre {OSC52} mid {OSC_8BIT} x {DCS} y {RIS} z {CHARSET} \x1b[31mred\x1b[0m end"
    expected = strip_terminal(text)
    assert expected == "pre  mid  x  y  z lqqk red end"
    for i, j in itertools.combinations(range(len(text) + 1), 2):
        stream = TerminalStream()
        out = stream.feed(text[:i]) + stream.feed(text[i:j]) + stream.feed(text[j:]) + stream.flush()
        assert out == expected, (i, j)


def test_a_stream_of_single_characters_leaks_nothing() -> None:
    stream = TerminalStream()
    pieces = [stream.feed(char) for char in "".join(HOSTILE) + "done"]
    out = "".join(pieces) + stream.flush()
    assert clean(out) and out.endswith("done")


def _renderer(console: Console) -> EventRenderer:
    return EventRenderer(console, console, markdown=True, clock=lambda: 0.0)


def _plain_console() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()  # no colour system: rich writes no escape of its own, so any escape is a leak
    return Console(file=buffer, width=200, color_system=None, force_terminal=False), buffer


def test_streamed_model_text_reaches_the_console_without_escapes() -> None:
    console, buffer = _plain_console()
    render = _renderer(console)
    answer = "结论如下\n\n" + "".join(f"段落{i} {seq} 文本\n\n" for i, seq in enumerate(HOSTILE))
    for start in range(0, len(answer), 3):  # three characters per delta: every sequence is split
        render(TextDelta(answer[start : start + 3]))
    render(RunFinished("done", answer))
    out = buffer.getvalue()
    assert clean(out) and "段落0" in out and f"段落{len(HOSTILE) - 1}" in out


def test_the_hidden_command_is_shown_in_full_on_the_tool_line() -> None:
    console, buffer = _plain_console()
    render = _renderer(console)
    render(ToolStarted("c1", "execute_command", json.dumps({"command": HIDDEN})))
    out = buffer.getvalue()
    assert clean(out)
    assert "touch ../P7;:#\\x1b[D" in out and "ls -la\\x1b[K" in out


def test_the_approval_request_shows_control_characters() -> None:
    request = ApprovalRequest(
        "execute_command", {"command": HIDDEN}, f"执行命令: {HIDDEN}", f"写入 {HIDDEN}", HIDDEN, HIDDEN
    )
    seen = shown(request)
    for text in (seen.summary, seen.reason, seen.preview or "", seen.always or ""):
        assert clean(text) and "touch ../P7;:#\\x1b[D" in text and "ls -la\\x1b[K" in text
    console, buffer = _plain_console()
    console.print(preview_text(seen.preview or ""), soft_wrap=True)  # as the REPL prints it
    assert "ls -la\\x1b[K" in buffer.getvalue() and clean(buffer.getvalue())


def test_file_names_in_a_listing_are_shown_escaped() -> None:
    console, buffer = _plain_console()
    render = _renderer(console)
    listing = f"📁 ./\n  evil{OSC0}.txt\n  {OSC52}\n  ok.txt\n  more\x9b2J.txt"
    render(ToolStarted("c1", "list_dir", '{"path": "."}'))
    render(ToolFinished(ToolResult("c1", "list_dir", listing)))
    out = buffer.getvalue()
    assert clean(out) and "evil\\x1b]0;owned title" in out


def test_command_output_preview_and_live_lines_are_stripped() -> None:
    console, buffer = _plain_console()
    render = _renderer(console)
    output = "\n".join(f"line {seq} tail" for seq in HOSTILE)
    render(ToolStarted("c1", "execute_command", '{"command": "make"}'))
    render(ToolFinished(ToolResult("c1", "execute_command", output)))
    assert clean(buffer.getvalue()) and "line  tail" in buffer.getvalue()  # the sequence gone, spacing kept
    for seq in HOSTILE:
        assert clean(display_line(f"progress {seq} 50%\r{seq}done {seq}", 80))


def test_plan_text_is_stripped_and_markup_is_shown_as_typed() -> None:
    plan = Plan(
        "goal",
        (
            PlanTask("t1", f"读取 [bold red]配置[/] {OSC52}", TaskType.FILE_READ),
            PlanTask("t2", f"运行 {DCS} 测试", TaskType.COMMAND, ("t1",)),
        ),
        summary=f"计划 {OSC0} [link=http://x]点我[/link]",
    )
    console, buffer = _plain_console()
    render = _renderer(console)
    render(PlanProposed(plan))
    render(TaskStarted("t1", f"读取 {OSC0_BEL}", parallel=True))
    render(TaskActivity("t1", f"⏺ read_file {RIS}"))
    console.print(plan_table(plan))
    out = buffer.getvalue()
    assert clean(out)
    assert "[bold red]配置[/]" in out and "[link=http://x]点我[/link]" in out


def test_the_safe_console_escapes_what_a_caller_forgot() -> None:
    buffer = io.StringIO()
    console = SafeConsole(file=buffer, width=200, color_system=None, force_terminal=False)
    from rich.text import Text

    console.print(Text(f"raw {OSC52} {OSC_8BIT} {HIDDEN}"))
    console.print(f"markup string {RIS}", markup=False)
    out = buffer.getvalue()
    assert clean(out) and "\\x1b]52;c;" in out and "touch ../P7;:#\\x1b[D" in out


def test_the_safe_console_keeps_rich_styling() -> None:
    buffer = io.StringIO()
    console = SafeConsole(file=buffer, width=80, color_system="standard", force_terminal=True)
    say(console, f"警告 {OSC52}", "bold red")
    out = buffer.getvalue()
    assert "\x1b[1;31m" in out and "警告" in out and "]52;" not in out


def test_skill_descriptions_are_stripped_in_skill_list(tmp_path: Path) -> None:
    user = tmp_path / "home" / "skills" / "evil"
    user.mkdir(parents=True)
    (user / "SKILL.md").write_text(
        f"---\nname: evil\ndescription: 好用的技能 {OSC52}{OSC0} 结束\n---\n正文 {RIS}\n", encoding="utf-8"
    )
    catalog = SkillCatalog(
        SkillDirs(
            tmp_path / "builtin", tmp_path / "home" / "skills", tmp_path / "proj", tmp_path / "state.json"
        )
    )
    catalog.reload()
    reply = skill_command(catalog, "list")
    console, buffer = _plain_console()
    say(console, reply.text)
    assert "好用的技能" in buffer.getvalue() and clean(buffer.getvalue())
    shown_skill = skill_command(catalog, "show evil")
    console2, buffer2 = _plain_console()
    say(console2, shown_skill.text)
    assert "正文" in buffer2.getvalue() and clean(buffer2.getvalue())


# ---- structure: every display path goes through the sanitiser ------------------------------------------

SRC = Path(__file__).resolve().parents[2] / "src" / "paicli"


def _calls(tree: ast.AST) -> list[ast.Call]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)]


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def test_every_console_paicli_creates_is_a_safe_console() -> None:
    offenders = []
    for path in SRC.rglob("*.py"):
        for call in _calls(parsed(path)):
            if _name(call.func) == "Console":
                offenders.append(f"{path.relative_to(SRC)}:{call.lineno}")
    assert offenders == [], f"create a SafeConsole (cli/printing.py) instead of a rich Console: {offenders}"


def test_no_console_print_of_a_markup_string() -> None:
    """A str handed to console.print is parsed as rich markup (`[bold]`, `[link=…]` from a file name):
    print Text objects or use say()."""
    offenders = []
    for path in (SRC / "cli").rglob("*.py"):
        for call in _calls(parsed(path)):
            if _name(call.func) == "print" and isinstance(call.func, ast.Attribute) and call.args:
                first = call.args[0]
                if isinstance(first, (ast.JoinedStr, ast.BinOp)) or (
                    isinstance(first, ast.Constant) and isinstance(first.value, str)
                ):
                    offenders.append(f"{path.relative_to(SRC)}:{call.lineno}")
    assert offenders == [], offenders
