"""Where a span of the user's text sits: code, quotations, quote lines, pasted material, sentence and clause.

Pure text analysis for the hardened quote validation of the AutoFactExtractor. Computed once per safe input,
so checking many candidate quotes against it stays cheap.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from paicli.context.estimate import utf16_len

Span = tuple[int, int]

SENTENCE_END = re.compile(r"[。；;！!？?\n]|\.(?=\s|$)|…+")
CLAUSE_END = re.compile(r"[。；;！!？?\n，,：:]|\.(?=\s|$)|…+")

_QUOTE_PAIRS: tuple[tuple[str, str], ...] = (
    ("“", "”"),
    ("‘", "’"),
    ("「", "」"),
    ("『", "』"),
    ("〝", "〞"),
    ("﹁", "﹂"),
)
_ASCII_DOUBLE = re.compile(r'"[^"\n]*(?:"|$)', re.MULTILINE)
_ASCII_SINGLE = re.compile(r"(?<![A-Za-z0-9])'[^'\n]*'(?![A-Za-z0-9])")
_INLINE_CODE = re.compile(r"(?<!`)`(?!`)[^`\n]+`")
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_TAG_OPEN = re.compile(r"<([A-Za-z_][\w:-]*)\b[^<>]*>")
_QUOTE_LINE = re.compile(r"^\s*[>＞]")
_TABLE_OR_CONFIG_LINE = re.compile(
    r"^\s*(?:\|.*\|\s*$|[A-Za-z_][\w.-]*\s*=\s|#|//|/\*|\*/|\*\s*@|--\s|;|\"{3}|'{3})|.*\s\|\s"
)
# `key: value` is a config line; `Label: a whole sentence` is prose after a label (`Heads-up: the port is 9090.`)
_KEY_VALUE_LINE = re.compile(r"^\s*[A-Za-z_][\w.-]*\s*:\s(?P<value>.*)$")
_PROSE_WORDS = 4


def _config_line(line: str) -> bool:
    if _TABLE_OR_CONFIG_LINE.match(line):
        return True
    found = _KEY_VALUE_LINE.match(line)
    return found is not None and len(found.group("value").split()) < _PROSE_WORDS


_CSV_HEADER = re.compile(r"^\s*[A-Za-z_][\w ]*(?:,[A-Za-z_][\w ]*)+\s*$")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_TRAILING_INTRODUCER = re.compile(r"(?i)(?:如下|以下|下面|below|as follows)\s*$")
# A heading line without end punctuation that names a source (`会议纪要`, `客户工单内容`) or a chat header (`小王 10:21`).
SOURCE_HEADING = re.compile(
    r"(?i)^[^。.！!？?；;]*(?:纪要|工单|内容|记录|消息|聊天|日志|输出|邮件|引用|原文|需求|反馈|评论|截图|报告|文档|频道|"
    r"第\s*\d+\s*[节章]|issue|ticket|notes|log|output|transcript|channel)[^。.！!？?；;]{0,10}$|^\s*\S{1,12}\s+\d{1,2}:\d{2}(?::\d{2})?\s*$"
)
_LOG_LINE = re.compile(
    r"^\s*(?:\[(?:[A-Z]+|\d[\d:. -]*)\]|\d{4}-\d{2}-\d{2}[ T]\d|\$ |at [\w.$<>]+\(|Caused by:|Traceback \(|"
    r"File \"|Exception in thread|(?:ERROR|WARN|WARNING|INFO|DEBUG|TRACE|FATAL)\b)"
)
# A line that ends with a colon and names a source hands the following paragraph to someone else's words.
INTRODUCER = re.compile(
    r"(?i)(?:引用|资料|原文|摘录|留言|评论|网页|页面|网站|博客|帖子|文档|文章|邮件|日志|输出|报错|错误|异常|堆栈|"
    r"示例|样例|例句|写道|说|聊天记录|截图|回复|内容|readme|according to[^:：]*|says|said|wrote|"
    r"\blog|\berror|\boutput|traceback|example|quote)[^。；;！!？?\n：:]{0,8}[：:]"
)

_TERM_BREAK = re.compile(r"[。；;！!？?，,：:\n]")


@dataclass(frozen=True)
class Region:
    start: int
    end: int
    text: str


def _paragraph_end(text: str, start: int) -> int:
    blank = re.compile(r"\n[ \t]*\n").search(text, start)
    return blank.start() if blank else len(text)


def _line_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    start = 0
    for line in text.split("\n"):
        spans.append((start, start + len(line)))
        start += len(line) + 1
    return spans


def _split_spans(text: str, pattern: re.Pattern[str]) -> list[Span]:
    spans: list[Span] = []
    start = 0
    for match in pattern.finditer(text):
        spans.append((start, match.end()))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def _overlaps(a: Span, start: int, end: int) -> bool:
    return a[0] < end and start < a[1]


class InputAnalysis:
    """Regions of one safe input that a saved fact must not come from."""

    def __init__(self, text: str, label_ok: Callable[[str], bool] | None = None) -> None:
        self.text = text
        self._label_ok = label_ok or (lambda label: INTRODUCER.search(label + "：") is None)
        self.lines = _line_spans(text)
        self.sentences = _split_spans(text, SENTENCE_END)
        self.clauses = _split_spans(text, CLAUSE_END)

    @cached_property
    def code_regions(self) -> list[Region]:
        regions = (
            self._fenced() + self._indented() + self._log_lines() + self._diff_lines() + self._csv_blocks()
        )
        regions += [Region(s, e, self.text[s:e]) for s, e in self.lines if _config_line(self.text[s:e])]
        return regions + [Region(m.start(), m.end(), m.group()) for m in _HTML_COMMENT.finditer(self.text)]

    @cached_property
    def quote_line_regions(self) -> list[Region]:
        return [Region(s, e, self.text[s:e]) for s, e in self.lines if _QUOTE_LINE.match(self.text[s:e])]

    @cached_property
    def quotation_regions(self) -> list[Region]:
        """Quote pairs, ASCII quotes, inline code and XML-like elements; unclosed openers run to the end.

        Inline code sits here rather than in `code_regions` so that a short term in backticks can be exempt.
        """
        text = self.text
        regions: list[Region] = []
        for opener, closer in _QUOTE_PAIRS:
            pos = text.find(opener)
            while pos >= 0:
                close = text.find(closer, pos + 1)
                end = len(text) if close < 0 else close + 1
                regions.append(Region(pos, end, text[pos + 1 : end - (0 if close < 0 else 1)]))
                pos = text.find(opener, end)
        for pattern in (_ASCII_DOUBLE, _ASCII_SINGLE, _INLINE_CODE):
            regions += [Region(m.start(), m.end(), m.group().strip("\"'`")) for m in pattern.finditer(text)]
        regions += self._elements()
        return regions

    @cached_property
    def pasted_regions(self) -> list[Region]:
        """Paragraphs after a line ending in a colon whose label is not the user's own (`网页上说：`, `总结下面的纪要：`)."""
        regions: list[Region] = []
        for start, end in self.lines:
            line = self.text[start:end].rstrip()
            colon_label = line.endswith(("：", ":")) and not self._label_ok(line[:-1])
            if colon_label or _TRAILING_INTRODUCER.search(line) or SOURCE_HEADING.search(line):
                stop = _paragraph_end(self.text, end)
                if stop > end:
                    regions.append(Region(end, stop, self.text[end:stop]))
        return regions

    @cached_property
    def owned_regions(self) -> list[Region]:
        """Paragraphs after a line that ends in the user's own colon label (`我们团队的约定：`)."""
        regions: list[Region] = []
        for start, end in self.lines:
            line = self.text[start:end].rstrip()
            if (
                line.endswith(("：", ":"))
                and self._label_ok(line[:-1])
                and not SOURCE_HEADING.search(line[:-1])
            ):
                stop = _paragraph_end(self.text, end)
                if stop > end:
                    regions.append(Region(end, stop, self.text[end:stop]))
        return regions

    def _fenced(self) -> list[Region]:
        regions: list[Region] = []
        opened: tuple[int, str] | None = None
        for start, end in self.lines:
            match = _FENCE.match(self.text[start:end])
            if match is None:
                continue
            marker = match.group(1)
            if opened is None:
                opened = (start, marker)
            elif marker[0] == opened[1][0] and len(marker) >= len(opened[1]):
                regions.append(Region(opened[0], end, self.text[opened[0] : end]))
                opened = None
        if opened is not None:
            regions.append(Region(opened[0], len(self.text), self.text[opened[0] :]))
        return regions

    def _indented(self) -> list[Region]:
        regions: list[Region] = []
        previous_blank_or_code = True
        for start, end in self.lines:
            line = self.text[start:end]
            is_code = (
                previous_blank_or_code
                and (line.startswith("    ") or line.startswith("\t"))
                and bool(line.strip())
            )
            if is_code:
                regions.append(Region(start, end, line))
            previous_blank_or_code = is_code or not line.strip()
        return regions

    def _csv_blocks(self) -> list[Region]:
        """A paragraph whose first line is a CSV header (`name,value`)."""
        regions: list[Region] = []
        for start, end in self.lines:
            if _CSV_HEADER.match(self.text[start:end]) and (
                start == 0 or self.text[start - 2 : start] == "\n\n"
            ):
                regions.append(Region(start, _paragraph_end(self.text, start), self.text[start:end]))
        return regions

    def _diff_lines(self) -> list[Region]:
        """`+`/`-` lines when the input holds both kinds (a diff), and `@@` hunk headers."""
        marks = [self.text[s:e][:1] for s, e in self.lines]
        is_diff = "+" in marks and "-" in marks
        return [
            Region(s, e, self.text[s:e])
            for s, e in self.lines
            if self.text[s:e].startswith("@@") or (is_diff and self.text[s:e][:1] in "+-" and e > s)
        ]

    def _log_lines(self) -> list[Region]:
        return [Region(s, e, self.text[s:e]) for s, e in self.lines if _LOG_LINE.match(self.text[s:e])]

    def _elements(self) -> list[Region]:
        regions: list[Region] = []
        for match in _TAG_OPEN.finditer(self.text):
            close = self.text.find(f"</{match.group(1)}", match.end())
            end = len(self.text) if close < 0 else close
            regions.append(Region(match.start(), end, self.text[match.end() : end]))
        return regions

    def occurrences(self, quote: str) -> list[int]:
        found: list[int] = []
        pos = self.text.find(quote)
        while pos >= 0:
            found.append(pos)
            pos = self.text.find(quote, pos + 1)
        return found

    def sentence_around(self, start: int, end: int) -> str:
        return self._union(self.sentences, start, end)

    def clauses_around(self, start: int, end: int) -> str:
        return self._union(self.clauses, start, end)

    def text_before_in_sentence(self, start: int) -> str:
        for sentence_start, sentence_end in self.sentences:
            if sentence_start <= start < sentence_end:
                return self.text[sentence_start:start]
        return ""

    def _union(self, spans: list[Span], start: int, end: int) -> str:
        hit = [s for s in spans if _overlaps(s, start, max(end, start + 1))]
        if not hit:
            return ""
        return self.text[hit[0][0] : hit[-1][1]]


def overlapping(regions: list[Region], start: int, end: int) -> list[Region]:
    return [r for r in regions if _overlaps((r.start, r.end), start, end)]


def is_term(region: Region, fact_words: re.Pattern[str]) -> bool:
    """A short quoted name (`“Google Java Style”`, `` `ruff` ``) rather than a quoted statement."""
    inner = region.text
    return 0 < utf16_len(inner) <= 24 and not _TERM_BREAK.search(inner) and not fact_words.search(inner)
