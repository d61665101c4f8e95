"""Untrusted text made harmless for a terminal: the one sanitiser every display path goes through.

A model, a repository (file names, skill files, plan text) or a command can put escape sequences in what we
show: OSC 52 writes the clipboard, OSC 0 the window title, cursor moves and erase-line hide part of a command
the person is asked to approve. Two forms:

- `strip_terminal`: whole escape sequences (CSI, OSC, DCS, APC, PM, SOS, their 8-bit forms, `ESC c`,
  `ESC ( 0` ...) and every other C0/C1 control but newline and tab are removed (model text, command output).
- `show_controls`: every control character is kept but shown as a visible escape (`\\x1b`, `\\r`), so nothing
  can hide part of a command (tool lines, approval prompts, file names, error messages).

Both are linear: each pattern is a character class run with no nested repetition.
"""

from __future__ import annotations

import re

# C0 except tab and newline, DEL, C1, and the bidi overrides/isolates that reorder what is shown.
_CONTROL_CLASS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(f"[{_CONTROL_CLASS}]")
_STRING_OPEN = "(?:\x1b[\\]P_^X]|[\x90\x98\x9d\x9e\x9f])"  # OSC, DCS, APC, PM, SOS in 7- and 8-bit form
_BODY = "[^\x00-\x1f\x7f-\x9f]"  # printable: any control ends (or aborts) a control string
_SEQUENCE = re.compile(
    # a control string up to its terminator (BEL, ESC \, 8-bit ST); unterminated, up to the next control
    f"{_STRING_OPEN}{_BODY}*(?:\x07|\x1b\\\\|\x9c)?"
    # CSI (7- and 8-bit): parameters, intermediates, an optional final byte
    "|(?:\x1b\\[|\x9b)[0-?]*[ -/]*[@-~]?"
    # any other ESC sequence: RIS `ESC c`, charset `ESC ( 0`, `ESC 7`, `ESC =`, a lone ESC
    "|\x1b[ -/]*[0-~]?"
)
# The start of a sequence not finished yet at the end of a streamed chunk.
_OPEN_TAIL = re.compile(f"(?:{_STRING_OPEN}{_BODY}*\x1b?|(?:\x1b\\[|\x9b)[0-?]*[ -/]*|\x1b[ -/]*)\\Z")
_INTRODUCERS = ("\x1b", "\x9b", "\x90", "\x98", "\x9d", "\x9e", "\x9f")
MAX_PENDING = 16_384  # an unfinished control string longer than this is dropped, not held forever

_NAMED = {"\r": "\\r"}


def has_controls(text: str) -> bool:
    return _CONTROL.search(text) is not None


def strip_terminal(text: str) -> str:
    """`text` with every escape sequence and control character (but `\\n` and `\\t`) removed."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub("", _SEQUENCE.sub("", text))


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def show_controls(text: str) -> str:
    """`text` with every control character (but `\\n` and `\\t`) written out visibly: `\\x1b[D`, `\\r`."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(_visible, text)


def show_one_line(text: str) -> str:
    """`show_controls`, with newlines and tabs shown too (a tool line, a file name)."""
    return show_controls(text).replace("\n", "\\n").replace("\t", "\\t")


class TerminalStream:
    """`strip_terminal` for text arriving in pieces: a sequence split across two deltas is removed whole.

    The unfinished tail of a chunk (from its last sequence introducer) is held until the next chunk; only
    that tail is looked at again, so the work stays linear in the streamed text.
    """

    def __init__(self) -> None:
        self._pending = ""

    def feed(self, chunk: str) -> str:
        text = self._pending + chunk
        self._pending = ""
        start = max(text.rfind(mark) for mark in _INTRODUCERS)
        if start >= 0 and _OPEN_TAIL.match(text, start) and len(text) - start <= MAX_PENDING:
            text, self._pending = text[:start], text[start:]
        return strip_terminal(text)

    def flush(self) -> str:
        rest, self._pending = self._pending, ""
        return strip_terminal(rest)
