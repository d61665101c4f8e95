"""What a run reads before it starts: argv and stdin text made encodable, and a one-shot run's task and piped
context (refused with exit 2 when missing or too large)."""

from __future__ import annotations

import argparse
import contextlib
import io
import sys

EXIT_USAGE = 2


def fail(message: str) -> int:
    sys.stderr.write(f"paicli: {message}\n")
    return EXIT_USAGE


def scrub_text(text: str) -> str:
    """Undecodable argv/stdin bytes arrive as lone surrogates, which no request or ledger line can encode;
    they become U+FFFD so one bad byte cannot poison the whole session."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def tolerate_bad_stdin_bytes() -> None:
    stream = sys.stdin
    if isinstance(stream, io.TextIOWrapper):  # a harness may have replaced stdin with a plain text stream
        with contextlib.suppress(ValueError, OSError):  # a detached or closed stream is never read
            stream.reconfigure(errors="replace")


def _read_piped_stdin() -> str | int:
    """The piped text, or its size in bytes when it is over the cap (it is then refused, unsent)."""
    if stdin_is_tty() or sys.stdin is None:
        return ""
    from paicli.cli.input_size import read_capped

    try:
        if not isinstance(sys.stdin, io.TextIOWrapper):
            return scrub_text(sys.stdin.read())
        data, size = read_capped(sys.stdin.buffer)
    except (OSError, ValueError):
        return ""
    if data is None:
        return size
    return scrub_text(data.decode("utf-8", errors="replace"))


def stdin_is_tty() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def oneshot_task(args: argparse.Namespace) -> tuple[str, bool] | int:
    """`-p`: the task (args.prompt, from stdin when empty), the piped context, and whether continuing the
    interrupted run is the whole task (`-p "" --plan -c`); or the exit code."""
    args.prompt = scrub_text(args.prompt)
    if args.json_schema is not None or args.input_format == "stream-json":
        from paicli.cli.headless_flags import prepare

        problem = prepare(args)
        if problem:
            return fail(problem)
        if args.input_format == "stream-json":  # stdin holds the messages, read as they come
            return "", False
    read = _read_piped_stdin()
    if isinstance(read, int):
        from paicli.cli.input_size import stdin_too_large_text

        return fail(stdin_too_large_text(read))
    piped, continue_only = read, False
    if not args.prompt.strip() and (args.plan or args.team) and (args.continue_session or args.resume):
        args.prompt, piped = piped.strip(), ""  # a piped goal is used when there is no run to continue
        continue_only = not args.prompt
    elif not args.prompt.strip():
        if not piped.strip():
            return fail('-p 需要一个任务描述，例如 paicli -p "解释 main.py 做了什么"（也可以从标准输入传入）')
        args.prompt, piped = piped.strip(), ""
    return piped, continue_only
