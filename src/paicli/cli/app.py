"""Command line: argv parsing, the composition root, exit codes (design/contract.md)."""

from __future__ import annotations

import sys

from paicli import __version__

# typing itself costs more than printing the version: `--version`'s path imports nothing (mypy reads the name)
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import NoReturn

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_CANCELLED = 130
HELP_WIDTH = 78  # what argparse used when stdout is not a terminal


def build_parser() -> argparse.ArgumentParser:
    import argparse

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            sys.stderr.write(f"paicli: {message}（用 paicli --help 查看用法）\n")
            raise SystemExit(EXIT_USAGE)

        def format_help(self) -> str:
            # the variables' list is text for --help alone: a run never builds it
            from paicli.config.providers import variables_help

            self.epilog = variables_help()
            return super().format_help()

    parser = _Parser(
        prog="paicli",
        description=(
            "paicli: 终端编程 Agent（短期记忆、长期记忆与上下文压缩）。不带参数启动交互式 REPL；"
            "paicli serve --http [--port N] 启动 Runtime API（见 paicli serve --help）。"
        ),
        # one width whatever the terminal: the text is then a function of the code alone (cli.help_text)
        formatter_class=lambda prog: argparse.RawDescriptionHelpFormatter(prog, width=HELP_WIDTH),
    )
    parser.add_argument("--version", action="store_true", help="打印版本号后退出")
    parser.add_argument(
        "-p",
        "--print",
        dest="prompt",
        metavar="TASK",
        nargs="?",
        const="",
        help="一次性执行任务（ReAct 模式）后退出；不写 TASK 时从标准输入读取",
    )
    parser.add_argument(
        "--output-format",
        choices=("text", "json", "stream-json"),
        help="-p 的输出格式：text（默认）、json 或 stream-json",
    )
    parser.add_argument(
        "--input-format",
        choices=("text", "stream-json"),
        help='-p 的输入格式：text（默认）或 stream-json（标准输入每行一条 {"type": "user", ...} 消息，逐条执行）',
    )
    parser.add_argument(
        "--json-schema",
        metavar="FILE",
        help="与 -p 一起使用：最终回答必须是符合该 JSON Schema 的 JSON（不符合时请模型修正一次，仍不符合则退出码 1）",
    )
    parser.add_argument("-y", "--yes", action="store_true", help="自动批准所有需要人工确认的工具调用")
    parser.add_argument(
        "--trust-project",
        action="store_true",
        help="信任当前文件夹：启用它的 .paicli/skills、.paicli/prompts 和 .paicli/mcp.json（-p 和管道输入默认忽略）",
    )
    parser.add_argument(
        "--max-turns",
        type=int,
        metavar="N",
        help=(
            "工具循环最多调用模型 N 次（每次都可以调用工具）；第 N 次仍要调用工具时，再用一次不带工具的调用整理部分结果，"
            "所以 num_turns 最多为 N+1。--plan/--team 中每个任务各自计数"
        ),
    )
    parser.add_argument("--model", metavar="NAME", help="本次运行使用的模型（model 或 provider/model）")
    parser.add_argument(
        "-c",
        "--continue",
        dest="continue_session",
        action="store_true",
        help="在本项目最新的会话上继续（REPL 或 -p）",
    )
    parser.add_argument(
        "--resume", nargs="?", const="", metavar="SESSION_ID", help="恢复指定会话；不给 ID 时列出会话供选择"
    )
    parser.add_argument(
        "--setup", action="store_true", help="重新运行首次设置：选择模型服务、填写 API Key 并保存"
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--plan", action="store_true", help="与 -p 一起使用：Plan-and-Execute 模式")
    mode.add_argument("--team", action="store_true", help="与 -p 一起使用：Team 多 Agent 模式")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    if given[:1] == ["serve"]:
        from paicli.cli.serve import serve_main

        return serve_main(given[1:])
    args = build_parser().parse_args(given)
    if args.version:
        print(f"paicli {__version__}")
        return EXIT_OK
    if args.max_turns is not None and args.max_turns <= 0:
        sys.stderr.write("paicli: --max-turns 必须是正整数\n")
        return EXIT_USAGE
    if args.output_format is not None and args.prompt is None:
        sys.stderr.write("paicli: --output-format 只能和 -p 一起使用（REPL 的回答总是文本）\n")
        return EXIT_USAGE
    args.output_format = args.output_format or "text"
    headless = _headless_flags_problem(args)
    if headless:
        sys.stderr.write(f"paicli: {headless}\n")
        return EXIT_USAGE
    from paicli.cli.launch import launch

    try:
        return launch(args)
    except KeyboardInterrupt:  # Ctrl+C outside a run (start-up, shutdown): no traceback, the contract's code
        sys.stderr.write("\n⏹️ 已中断。\n")
        return EXIT_CANCELLED
    except BrokenPipeError:  # whoever read stdout went away (`paicli -p ... | head -1`): stop quietly
        _silence_stdout()
        return EXIT_FAILED


def _headless_flags_problem(args: argparse.Namespace) -> str:
    if args.prompt is None and (args.input_format is not None or args.json_schema is not None):
        return "--input-format 和 --json-schema 只能和 -p 一起使用"
    if args.input_format == "stream-json" and args.json_schema is not None:
        return "--json-schema 不能和 --input-format stream-json 一起使用（每条消息的回答格式请写在消息里）"
    args.input_format = args.input_format or "text"
    return ""


def kept_help_name() -> str:
    return "help-{}.{}.txt".format(*sys.version_info[:2])  # argparse's wording differs between versions


def kept_help() -> str | None:
    """`--help` as build_parser() rendered it under this Python, kept beside this module so that printing it
    imports nothing (written by `python -m paicli.cli.help_text`; tests/cli/test_help_text.py checks it)."""
    import os  # loaded by the interpreter's start-up already

    try:
        with open(os.path.join(os.path.dirname(__file__), kept_help_name()), encoding="utf-8") as kept:
            return kept.read()
    except OSError:
        return None


def run() -> None:
    """Process entry point (console script and `python -m paicli`)."""
    if sys.argv[1:] == ["--version"]:  # what main() would print, before anything else is imported
        sys.stdout.write(f"paicli {__version__}\n")
        return
    if sys.argv[1:] in (["--help"], ["-h"]):
        kept = kept_help()
        if kept is not None:
            sys.stdout.write(kept)
            return
    from paicli.cli import stop_signals

    stop_signals.install()
    try:
        code = main()
    except KeyboardInterrupt:  # a second Ctrl+C while the first one's handler was still unwinding
        code = EXIT_CANCELLED
    # Shutdown (joining threads, flushing) can take a moment on a loaded machine; a Ctrl+C landing then would
    # turn the decided exit code into a death by signal.
    stop_signals.ignore_during_shutdown()
    _exit_now(code)


# The interpreters whose private teardown steps `_exit_now` calls were checked to have them, with the meaning
# it relies on (tests/cli/test_exit_now.py names the same list); any other one gets its own full teardown.
CHECKED_EXIT_STEPS = ((3, 10), (3, 11), (3, 12), (3, 13))


def _exit_now(code: int) -> NoReturn:
    """Leave without the interpreter's teardown of every module (openai's and pydantic's many objects): a
    quarter of a short run's CPU that nobody waits for. What teardown must do is done first: the threading
    hooks and a join of every non-daemon thread (background memory extraction), the atexit hooks (log
    handlers, file permissions, executors), then the standard streams are flushed. Python has no public
    call for either step, so an interpreter not in CHECKED_EXIT_STEPS exits the ordinary way."""
    import atexit
    import contextlib
    import os
    import threading

    if sys.implementation.name != "cpython" or sys.version_info[:2] not in CHECKED_EXIT_STEPS:
        raise SystemExit(code)
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # stdout's reader went away: nothing left to tell it
            stream.flush()
    os._exit(code)


def _silence_stdout() -> None:
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the interpreter's final flush cannot fail again
    except (OSError, ValueError):
        pass
