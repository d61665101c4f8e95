"""LSP framing and what the model is told about diagnostics: errors first, bounded, only what changed."""

from __future__ import annotations

import io

import pytest

from paicli.lsp.diagnostics import HEADER, Diagnostic, from_lsp, report
from paicli.lsp.protocol import ProtocolError, encode, read_message


def test_messages_round_trip_with_their_byte_length_also_for_chinese_text() -> None:
    first = {"jsonrpc": "2.0", "method": "window/logMessage", "params": {"message": "未定义的名字 y"}}
    second = {"jsonrpc": "2.0", "id": 3, "result": None}
    stream = io.BytesIO(encode(first) + b"\r\n" + encode(second))
    assert read_message(stream) == first
    assert read_message(stream) == second
    assert read_message(stream) is None


def test_a_header_that_is_not_a_length_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError):
        read_message(io.BytesIO(b"Content-Length: many\r\n\r\n{}"))


def _diag(severity: int, line: int, message: str) -> Diagnostic:
    return Diagnostic(severity, line, 1, message, "pyflakes")


def test_errors_come_first_and_the_list_is_bounded() -> None:
    fresh = {
        "a.py": [_diag(2, 1, "unused import os")] + [_diag(1, n, f"undefined name x{n}") for n in range(3, 8)]
    }
    told = report(fresh, {}, limit=3)
    lines = told.text.splitlines()
    assert lines[0] == HEADER and lines[1] == "a.py"
    assert [line.split()[1] for line in lines[2:5]] == ["错误", "错误", "错误"]
    assert "另有 3 条未列出。" in told.text and "unused import" not in told.text
    head, *shown = told.summary.splitlines()
    assert head == "🩺 语言服务器：5 个错误，1 条其他新诊断"
    assert shown == [
        f"  a.py L{n}:1 错误 undefined name x{n} [pyflakes]" for n in (3, 4, 5)
    ]  # for the person


def test_only_what_changed_is_said_again() -> None:
    first = report({"a.py": [_diag(1, 2, "undefined name y")]}, {}, limit=20)
    same = report({"a.py": [_diag(1, 2, "undefined name y")]}, first.told, limit=20)
    assert same.text == ""  # the model already knows
    fixed = report({"a.py": []}, same.told, limit=20)
    assert "a.py: 之前报告的问题已全部消除。" in fixed.text
    quiet = report({"b.py": []}, fixed.told, limit=20)
    assert quiet.text == ""  # a clean file never reported is nothing to say


def test_lsp_diagnostics_are_read_with_one_based_positions_and_short_messages() -> None:
    raw = {"range": {"start": {"line": 4, "character": 2}}, "message": "x " * 400, "severity": 9}
    parsed = from_lsp(raw)
    assert (parsed.line, parsed.column, parsed.severity) == (
        5,
        3,
        2,
    )  # an unknown severity counts as a warning
    assert len(parsed.message) <= 300
