"""After argv is parsed: settings, the session backend, then the one-shot runner or the REPL."""

from __future__ import annotations

import argparse
import atexit
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from paicli.cli.launch_input import fail, oneshot_task, stdin_is_tty, tolerate_bad_stdin_bytes
from paicli.config.env import COMMAND_MARKER_ENV, ConfigError, EnvLookup
from paicli.config.parsed import ParsedConfig
from paicli.fsperm import create_private_file, secure_tree
from paicli.redact import RedactingFilter
from paicli.termsafe import show_controls

if TYPE_CHECKING:
    from paicli.cli.app_backend import AppBackend
    from paicli.cli.notices import NoticeBoard
    from paicli.config.modes import RunMode
    from paicli.config.settings import Settings
    from paicli.config.trust import ProjectTrust


def _resume_path(args: argparse.Namespace, home: Path, root: Path, notices: NoticeBoard) -> Path | str | None:
    """The ledger to continue, None for a new session, or an error message (str)."""
    if not (args.continue_session or args.resume):
        return None
    from paicli.session.catalog import find_session, newest_session

    if args.continue_session:
        newest = newest_session(home, root)
        if newest is None:
            notices.post("ℹ️ 本项目还没有可以继续的会话，已开始新会话。")
            return None
        return Path(newest.path)
    if args.resume:
        found = find_session(home, args.resume)
        if found is None:
            return f"未找到会话 {args.resume}（可以在 REPL 里用 /resume 查看本项目的会话）"
        return Path(found.path)
    return None


def configure_logging(home: Path, config: ParsedConfig) -> None:
    """Diagnostics go to <paicli home>/logs/paicli.log, never to the terminal the user is reading."""
    import logging

    root = logging.getLogger()
    if root.handlers:
        return
    level = config.values.log_level.upper()
    try:
        folder = home / "logs"
        create_private_file(folder / "paicli.log")
        handler: logging.Handler = logging.FileHandler(folder / "paicli.log", encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handler.addFilter(RedactingFilter(config.keys()))
    except OSError:
        handler = logging.NullHandler()
    root.addHandler(handler)
    root.setLevel(level if level in ("DEBUG", "INFO", "WARNING", "ERROR") else "INFO")


def _settings_or_setup(
    args: argparse.Namespace, env: EnvLookup, interactive: bool
) -> tuple[EnvLookup, Settings] | str:
    """The run's settings; with no usable provider (or `--setup`) at a terminal, the first-run setup decides
    them. A str is the exit-2 message (never a prompt without a terminal)."""
    from paicli.config.settings import NoProviderError, load_settings

    missing = False
    try:
        settings = load_settings(env, cli_model=args.model)
        if not args.setup:
            return env, settings
    except NoProviderError:
        missing = True
    except ConfigError:
        if not args.setup:
            raise
    from paicli.cli import first_run  # only now: the usual start-up never imports the setup

    if not interactive:
        return first_run.SETUP_NEEDS_TERMINAL if args.setup else first_run.no_provider_message()
    # Loopback servers are probed only when nothing is configured at all (a configured endpoint or key wins).
    discover = (lambda: first_run.discover_for(env)) if missing else None
    result = first_run.run_first_setup(env, first_run.PromptSetupIO(), discover=discover)
    if result is None:
        return first_run.SETUP_ABANDONED if missing else first_run.SETUP_KEPT
    return result.env, result.settings


def launch(args: argparse.Namespace) -> int:
    oneshot = args.prompt is not None
    if oneshot and args.setup:
        return fail("--setup 不能和 -p 一起使用：先运行 paicli --setup 完成设置，再用 -p 执行任务")
    interactive = not oneshot and stdin_is_tty() and sys.stdout.isatty()
    if interactive:
        from paicli.cli.stop_signals import default_sigterm

        default_sigterm()
    prepared = _prepare(args, interactive)
    if isinstance(prepared, int):
        return prepared
    env, config, settings = prepared
    if oneshot and args.resume == "":
        return fail("-p 不能和不带会话 ID 的 --resume 一起使用；请给出 ID，或用 -c 继续最新的会话")
    if not oneshot and (args.plan or args.team):
        return fail("--plan / --team 只能和 -p 一起使用；在 REPL 里请用 /plan 或 /team")
    task = oneshot_task(args) if oneshot else ("", False)
    if isinstance(task, int):
        return task
    piped, continue_only = task
    from paicli.cli.notices import NoticeBoard

    notices = NoticeBoard()  # handed to every collaborator of the session at construction
    resume = _resume_for(args, settings, interactive, notices, continue_only)
    if isinstance(resume, int):
        return resume
    model_note = ""
    if resume is not None and args.model is None:  # an explicit --model wins over the recorded one
        from paicli.cli.session_restore import resumed_settings
        from paicli.session.model_record import read_recorded_model

        settings, model_note = resumed_settings(settings, read_recorded_model(resume))
    _warn_untrusted_settings(env, settings)
    from paicli.cli.trust_prompt import project_trust

    trusted = project_trust(
        settings.project_root,
        settings.paicli_home,
        flag=args.trust_project,
        interactive=interactive,
        notify=notices.post,  # configuration appearing mid-session is said like other notices
    )
    try:
        backend = _build_backend(settings, config, args, interactive, resume, notices, trusted)
    except ConfigError as exc:
        return fail(str(exc))
    intro = ""
    if resume is not None:
        restored = backend.restore_opened_session().text + (f"\n{model_note}" if model_note else "")
        if oneshot:
            notices.post(restored)
        else:
            intro = restored  # the REPL shows it below its banner
    if oneshot:
        return _run_oneshot(backend, args, piped)
    return _start_repl(backend, args, settings, interactive, intro)


def _prepare(args: argparse.Namespace, interactive: bool) -> tuple[EnvLookup, ParsedConfig, Settings] | int:
    """Settings checked (or set up), the home secured, logging on, the dictionary loading: or the exit code."""
    from paicli.config.validate import unknown_name_warnings, validate_knobs

    env = EnvLookup()
    try:
        validate_knobs(env)
        for line in unknown_name_warnings(
            env, (COMMAND_MARKER_ENV,)
        ):  # a command paicli runs may start paicli
            sys.stderr.write(line + "\n")
        resolved = _settings_or_setup(args, env, interactive)
    except ConfigError as exc:
        return fail(str(exc))
    if isinstance(resolved, str):
        return fail(resolved)
    env, settings = resolved
    from paicli.cli.server_window import with_server_window  # a local server's own window, asked once a day

    settings = with_server_window(settings)
    secure_tree(settings.paicli_home)  # files an older version or another writer left readable
    atexit.register(secure_tree, settings.paicli_home)
    config = ParsedConfig.read(env)  # every setting, parsed once; components get values, never the lookup
    configure_logging(settings.paicli_home, config)
    from paicli.cli.warmup import start_dictionary_early

    start_dictionary_early(config.values.memory.folder(settings.paicli_home), args.prompt)
    tolerate_bad_stdin_bytes()
    return env, config, settings


def _resume_for(
    args: argparse.Namespace, settings: Settings, interactive: bool, notices: NoticeBoard, continue_only: bool
) -> Path | int | None:
    """The session file -c / --resume continue (claimed, or a fork of a busy one); or the exit code."""
    resume = _resume_path(args, settings.paicli_home, settings.project_root, notices)
    if isinstance(resume, str):
        return fail(resume)
    if continue_only:
        missing = _nothing_to_continue(resume, "team" if args.team else "plan")
        if missing is not None:
            return fail(missing)
    if resume is None:
        return None
    from paicli.cli.busy_session import claim_session  # a session another process has open is never shared

    return claim_session(resume, ask=interactive)


def _start_repl(
    backend: AppBackend,
    args: argparse.Namespace,
    settings: Settings,
    interactive: bool,
    intro: str,
) -> int:
    for line in backend.drain_notices():
        sys.stderr.write(show_controls(line) + "\n")
    if args.resume == "":
        intro = _pick_session_at_start(backend)
    from paicli.cli.approval import TerminalApprover
    from paicli.cli.command_files import session_table
    from paicli.cli.command_table import BUILTIN
    from paicli.cli.repl import run_repl
    from paicli.cli.task_commands import start_tasks

    start_tasks(backend)  # queued background tasks go on; ones a killed paicli left running are said

    table, skipped = session_table(backend, BUILTIN)  # command files join the built-in commands
    for line in skipped:
        sys.stderr.write(line + "\n")
    approver = backend.parts.tools.approver
    return run_repl(
        backend,
        interactive=interactive,
        history_file=settings.paicli_home / "history" / "input.history",
        status_bar=backend.parts.values.status_bar,
        approver=approver if isinstance(approver, TerminalApprover) else None,
        intro=intro,
        history_keys=backend.parts.keys,  # pasted keys never reach the input history in clear
        table=table,
    )


def _warn_untrusted_settings(env: EnvLookup, settings: Settings) -> None:
    """One stderr line for the protected settings a project ./.env tried to set, one per refused base URL."""
    refused = env.refused_protected()
    if refused:
        sys.stderr.write(
            f"paicli: 已忽略 {env.project_dotenv} 中的受保护设置 {'、'.join(refused)}"
            "（状态目录、防护开关和审批模式只能在环境变量或 paicli 主目录的 .env 中设置）\n"
        )
    for line in settings.notices:
        sys.stderr.write(f"paicli: {line}\n")


def _nothing_to_continue(resume: Path | None, mode: str) -> str | None:
    """Why `-p "" --plan|--team -c|--resume ID` has nothing to run (None: there is an interrupted run)."""
    from paicli.agent.plan.checkpoint import fold_interrupted
    from paicli.config.modes import orchestrated
    from paicli.session.resume import parse_entries

    run = orchestrated(mode)
    flag, what = run.flag, f"没有执行完的{run.what}"
    if resume is None:
        return f"{flag} 没有可以继续的内容：本项目还没有会话；请在 -p 后写出任务"
    try:
        entries = parse_entries(resume.read_bytes().splitlines())[0]
    except OSError:
        entries = []
    if fold_interrupted(entries, (mode,)) is None:
        return f"{flag} 没有可以继续的内容：会话 {resume.stem} 里{what}；请在 -p 后写出任务"
    return None


def _pick_session_at_start(backend: AppBackend) -> str:
    """`paicli --resume` without an id: the same picker as /resume (numbers, ids, words, `all`), on stderr and
    one stdin line per answer, so piped lines after the choice still reach the REPL. Returns the restore text
    for the REPL to show; "" when a new session starts instead."""
    from paicli.cli.printing import SafeConsole
    from paicli.cli.session_picker import choose_session

    def ask(question: str) -> str | None:
        sys.stderr.write(question)
        sys.stderr.flush()
        line = sys.stdin.readline()
        return line.strip() if line else None

    console = SafeConsole(file=sys.stderr, highlight=False, soft_wrap=True)
    session_id = choose_session(lambda hidden: backend.core.restore.sessions(hidden), console, ask, "")
    if session_id is None:
        sys.stderr.write("已开始新会话。\n")
        return ""
    return backend.resume(session_id).text


def _build_backend(
    settings: Settings,
    config: ParsedConfig,
    args: argparse.Namespace,
    interactive: bool,
    resume: Path | None,
    notices: NoticeBoard,
    project_trusted: bool | ProjectTrust = True,
) -> AppBackend:
    from paicli.cli.app_backend import AppBackend
    from paicli.cli.compose import build_components
    from paicli.config.settings import Settings
    from paicli.tools.approval import AutoApprover, DenyingApprover
    from paicli.tools.base import Approver

    assert isinstance(settings, Settings)
    approver: Approver
    if interactive:  # with --yes too: the approval state approves everything a person need not see
        from paicli.cli.approval import TerminalApprover

        approver = TerminalApprover()
    elif args.yes:
        approver = AutoApprover()
    else:
        approver = DenyingApprover()
    parts = build_components(
        settings,
        config,
        approver,
        yes=args.yes,
        resume_path=resume,
        notices=notices,
        project_trusted=project_trusted,
        prewarm=True,
    )
    oneshot = args.prompt is not None
    backend = AppBackend(
        parts, max_turns=args.max_turns, count_context=not oneshot, prime_snapshots=not oneshot
    )
    if parts.mcp is not None and not interactive:  # starts them; a first run may wait for uncached servers
        parts.mcp.wait_cold(parts.values.mcp_startup_wait)
    from paicli.cli.warmup import startup_warmup

    hint = args.prompt if oneshot else None  # -p: jieba only when the task needs it (issue 33)
    backend.state.warmup = startup_warmup(
        parts.memory, parts.counter, count_context=not oneshot, query_hint=hint
    ).start()
    return backend


def _run_oneshot(backend: AppBackend, args: argparse.Namespace, piped: str) -> int:
    from paicli.cli.oneshot import run_oneshot

    if piped.strip():
        backend.state.stdin_context = piped
    backend.state.report_changes = args.output_format != "text"  # `files_changed` in the JSON result
    backend.state.continue_plan_first = bool(
        (args.plan or args.team) and (args.continue_session or args.resume)
    )
    mode: RunMode = "plan" if args.plan else "team" if args.team else backend.default_mode()
    if args.input_format == "stream-json" or args.json_schema is not None:
        from paicli.cli.headless_flags import run_headless

        return run_headless(backend, args, mode)
    return run_oneshot(backend, args.prompt, mode, args.output_format)
