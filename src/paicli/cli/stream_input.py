"""`paicli -p --input-format stream-json`: user messages as JSON lines on stdin, one turn each, in one session.

A line is `{"type": "user", "message": {"role": "user", "content": "…"}}` (content a string or a list of
`{"type": "text", "text": "…"}` parts), or the short `{"type": "user", "content": "…"}`. Lines are read as they
arrive, so a driver can wait for a turn's result before it writes the next message. A line that is not such a
message is reported (stderr, and an `input_error` object on stdout for the JSON formats) and skipped."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TextIO

from paicli.cli.backend import SessionPort
from paicli.cli.oneshot import finish_turn, run_turn, write_json
from paicli.config.modes import RunMode

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_CANCELLED = 0, 1, 2, 130


@dataclass(frozen=True)
class InputProblem:
    line: int
    message: str


def parse_message(number: int, line: str) -> str | InputProblem:
    """The text of one input line's user message, or what is wrong with the line."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        return InputProblem(number, f"不是有效的 JSON: {exc.msg}")
    if not isinstance(obj, dict) or obj.get("type") != "user":
        return InputProblem(
            number, '只接受 {"type": "user", "message": {"role": "user", "content": …}} 这样的消息'
        )
    message = obj.get("message", obj)
    content = message.get("content") if isinstance(message, dict) else None
    text = _text_of(content)
    if text is None:
        return InputProblem(number, "content 必须是字符串，或由 {type: text, text: …} 组成的列表")
    if not text.strip():
        return InputProblem(number, "消息内容为空")
    return text


def _text_of(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    parts = []
    for part in content:
        if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(part.get("text"), str):
            return None
        parts.append(part["text"])
    return "\n".join(parts)


def run_stream_input(
    backend: SessionPort,
    first: str,
    mode: RunMode,
    output_format: str,
    lines: Iterable[str],
    out: TextIO,
    err: TextIO,
) -> int:
    """Every message a turn (`first`, the `-p` text, before them when given). Exit: 130 when a turn was cancelled
    (nothing more is read), else 1 when a turn failed, else 2 when a line was refused, else 0."""
    failed = refused = False
    tasks = _tasks(first, lines)
    try:
        for task in tasks:
            if isinstance(task, InputProblem):
                refused = True
                _report(task, output_format, out, err)
                continue
            finished = run_turn(backend, task, mode, output_format, out, err)
            code = finish_turn(backend, finished, output_format, out, err, close=False)
            if code == EXIT_CANCELLED:
                return EXIT_CANCELLED
            failed = failed or code != EXIT_OK
    finally:
        backend.close(timeout=10.0)
        for line in backend.drain_notices():
            err.write(line + "\n")
    return EXIT_FAILED if failed else EXIT_USAGE if refused else EXIT_OK


def _tasks(first: str, lines: Iterable[str]) -> Iterable[str | InputProblem]:
    if first.strip():
        yield first
    for number, line in enumerate(lines, 1):
        if line.strip():
            yield parse_message(number, line)


def _report(problem: InputProblem, output_format: str, out: TextIO, err: TextIO) -> None:
    err.write(f"paicli: 输入第 {problem.line} 行已跳过：{problem.message}\n")
    err.flush()
    if output_format != "text":
        write_json(out, {"type": "input_error", "line": problem.line, "message": problem.message})
