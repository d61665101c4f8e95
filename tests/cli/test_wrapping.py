"""The CJK-aware line-breaking policy (cli/wrapping.py), alone and as rich's word wrap."""

from __future__ import annotations

import io

from rich.cells import cell_len
from rich.markdown import Markdown
from rich.text import Text

from paicli.cli.printing import SafeConsole, say
from paicli.cli.wrapping import can_break_before, divide_line, hang, hanging_indent, pack, wrap

MIXED = "".join(
    f" {n} 这是第 {n} 行的内容，mixed English words here 和中文混排的句子继续写下去直到很长很长"
    for n in range(20, 26)
)


def words_of(text: str) -> set[str]:
    """The Latin words, paths and options of `text` (runs without spaces or CJK)."""
    found: set[str] = set()
    current = ""
    for char in text + " ":
        if char.isspace() or cell_len(char) == 2:
            if current:
                found.add(current)
            current = ""
        else:
            current += char
    return found


def assert_no_word_split(rows: list[str], text: str) -> None:
    whole = words_of(text)
    for row in rows:
        row_words = words_of(row)
        assert row_words <= whole, f"a word was cut: {sorted(row_words - whole)} in {row!r}"


def test_mixed_lines_fill_each_row_and_break_between_cjk_characters() -> None:
    rows = wrap(MIXED, 60)
    assert all(cell_len(row) <= 60 for row in rows)
    assert "".join(rows).replace(" ", "") == MIXED.replace(" ", "")  # nothing lost
    assert_no_word_split(rows, MIXED)
    # rich alone leaves " 25 这是第 25" on a row of its own; here every row but the last is nearly full
    assert all(cell_len(row) >= 50 for row in rows[:-1]), rows


def test_a_path_an_option_and_a_latin_word_are_never_cut() -> None:
    text = "请运行 src/paicli/cli/wrapping.py 加上 --dry-run 选项，然后检查 configuration 是否正确。" * 3
    for width in (30, 41, 57, 80):  # all wider than the longest word (a narrower row must fold it)
        rows = wrap(text, width)
        assert all(cell_len(row) <= width for row in rows), (width, rows)
        assert_no_word_split(rows, text)


def test_a_word_longer_than_the_row_is_folded_rather_than_overflowing() -> None:
    rows = wrap("看 " + "x" * 25 + " 完", 10)
    assert (
        all(cell_len(row) <= 10 for row in rows) and "".join(rows).replace(" ", "") == "看" + "x" * 25 + "完"
    )


def test_punctuation_stays_with_what_it_closes_or_opens() -> None:
    text = "甲乙丙丁，戊己（庚辛）。"
    assert not can_break_before(text, text.index("，"))  # no row starts with a comma
    assert not can_break_before(text, text.index("（") + 1)  # no row ends with an opening bracket
    assert can_break_before(text, text.index("乙"))
    for width in range(6, 16):  # the widest piece that cannot break, `辛）。`, is 6 cells
        for row in wrap(text, width):
            assert row[:1] not in "，。）" and row[-1:] != "（", (width, row)


def test_breaks_follow_the_rich_contract() -> None:
    assert divide_line("abc def", 100) == []
    assert divide_line("abc def", 5) == [4]
    assert divide_line("中文中文", 4) == [2]


def test_option_labels_are_packed_whole() -> None:
    labels = [
        "[y] 允许",
        "[a] 本会话始终允许 write_file 写项目内的文件",
        "[n] 拒绝",
        "[t] 拒绝并告诉它怎么做",
    ]
    for width in (44, 60, 72):  # each label fits a row
        rows = pack(labels, width)
        assert all(cell_len(row) <= width for row in rows)
        for label in labels:
            assert sum(row.count(label) for row in rows) == 1, (width, rows)
    narrow = pack(labels, 30)  # one label wider than the row: cut only where the policy allows
    assert all(cell_len(row) <= 30 for row in narrow) and "[y] 允许" in narrow
    assert_no_word_split(narrow, " ".join(labels))


def test_rich_text_and_markdown_on_a_paicli_console_wrap_by_the_policy() -> None:
    out = io.StringIO()
    console = SafeConsole(file=out, width=60, force_terminal=True, color_system=None)
    console.print(Text(MIXED))
    console.print(Markdown(MIXED))
    say(console, MIXED)
    rows = [row.strip() for row in out.getvalue().splitlines() if row.strip()]
    plain = [row.strip() for row in wrap(MIXED, 60)]
    paragraph = wrap(MIXED.strip(), 60)  # Markdown drops the leading space
    hung = [row.strip() for row in hang(MIXED, 60)]  # `say` keeps the line's one-space indent
    assert (
        rows == plain + paragraph + hung
    )  # Text, a Markdown paragraph and `say` break where the policy does


def test_a_pipe_gets_say_text_unwrapped() -> None:
    out = io.StringIO()
    say(SafeConsole(file=out, width=40, force_terminal=False), MIXED)
    assert out.getvalue() == MIXED + "\n"


def test_a_line_with_a_word_wider_than_the_terminal_is_left_to_the_terminal() -> None:
    out = io.StringIO()
    token = "touch ../P7;:#" + "\\x1b[D" * 30 + "ls"
    say(
        SafeConsole(file=out, width=60, force_terminal=True, color_system=None),
        f"⚠️ 需要确认: 执行命令: {token}",
    )
    assert token in out.getvalue()  # one piece, for copying: the terminal folds it


def test_the_wrap_hook_is_only_relied_on_for_checked_rich_versions() -> None:
    """rich has no public setting for its word wrap: `wrapping.install` rebinds the `divide_line(text, width,
    fold)` that `rich.text` imports from `rich._wrap` and looks up on every wrap. Checked against rich 13.7,
    14.x and 15.0; a new major fails here until someone checks the hook (the test above renders through it)."""
    import importlib.metadata
    import inspect

    import rich._wrap
    import rich.text

    version = importlib.metadata.version("rich")
    assert version.split(".")[0] in CHECKED_RICH_MAJORS, f"check wrapping.install against rich {version}"
    assert list(inspect.signature(rich._wrap.divide_line).parameters) == ["text", "width", "fold"]
    assert "divide_line(" in inspect.getsource(rich.text.Text.wrap)  # still looked up as a module global
    SafeConsole(file=io.StringIO())  # installs it
    assert rich.text.divide_line is divide_line  # type: ignore[attr-defined]


CHECKED_RICH_MAJORS = ("13", "14", "15")


def test_a_wrapped_line_continues_under_its_own_text() -> None:
    """Issue 44 item 9: continuation rows keep the indent and marker column of their line."""
    assert [
        hanging_indent(line) for line in ("› 问题", "    ⎿ 结果", "  - 子项", "  12. 项", "  正文", "正文")
    ] == [
        2,
        6,
        4,
        6,
        2,
        0,
    ]
    assert hanging_indent("  ab 正文") == 2  # a word is not a marker
    line = "    ⎿ " + "这是一个很长的结果说明，" * 8
    rows = hang(line, 40)
    assert len(rows) > 2 and rows[0].startswith("    ⎿ 这是")
    assert all(row.startswith(" " * 6) and row[6] != " " and cell_len(row) <= 40 for row in rows[1:])
    assert "".join(row.strip() for row in rows) == line.strip()  # nothing lost, nothing added
    assert hang("    ⎿ " + "path/" * 12, 40) == wrap("    ⎿ " + "path/" * 12, 40)  # no room: as wrap cuts it
