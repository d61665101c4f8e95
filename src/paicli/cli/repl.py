"""The read -> dispatch -> render loop. It talks only to a `Backend`; Esc cancels the running task."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Protocol, TypeVar

from rich.console import Console

from paicli.agent.events import RunFinished
from paicli.cancel import CancelToken
from paicli.cli.backend import Backend, CommandReply, RunMode, SessionSummary
from paicli.cli.commands import help_text, is_yes, mask_secrets, parse, split_memory_args, unknown_reply
from paicli.cli.render import EventRenderer, WaitSpinner, say, shorten
from paicli.tools.base import ApprovalDecision, ApprovalReply, ApprovalRequest

if TYPE_CHECKING:
    from prompt_toolkit.input import Input
    from prompt_toolkit.output import Output

    from paicli.config.env import EnvLookup

T = TypeVar("T")

CANCEL_REQUESTED = "⏹️ 正在停止当前任务…"
GOODBYE = "👋 再见，下次见！"
_PENDING_TEXT: dict[RunMode, tuple[str, str, str]] = {
    "plan": (
        "📋 下一条输入将按 Plan-and-Execute 模式执行（先规划再逐步执行），输入前按 Esc 可取消；执行完自动回到 ReAct。",
        "📋 这条任务按 Plan-and-Execute 模式执行",
        "↩️ 不再等待 Plan-and-Execute，下一条输入仍按默认的 ReAct 执行。",
    ),
    "team": (
        "👥 下一条输入将交给多智能体协作（规划者 + 执行者 + 检查者），输入前按 Esc 可取消；执行完自动回到 ReAct。",
        "👥 这条任务交给多智能体协作执行",
        "↩️ 不再等待多智能体协作，下一条输入仍按默认的 ReAct 执行。",
    ),
}


_UNSUPPORTED_TEXT: dict[RunMode, str] = {
    "plan": "📋 Plan-and-Execute 模式在这个版本里还不能用，请直接输入任务，按默认的 ReAct 模式执行。",
    "team": "👥 多智能体协作模式在这个版本里还不能用，请直接输入任务，按默认的 ReAct 模式执行。",
}


class ApprovalHost(Protocol):
    """The session's approver (cli.approval.TerminalApprover): the REPL installs the asking handler."""

    handler: Callable[[ApprovalRequest], ApprovalDecision | ApprovalReply] | None


class ReplIO(Protocol):
    """What the dispatcher needs from the terminal side (interactive prompt or piped lines)."""

    console: Console  # answers and command replies
    progress: Console  # tool lines, notices, spinner
    markdown: bool

    def ask(self, question: str) -> str | None:
        """One follow-up line (confirmation, picker); None when there is none (EOF, Ctrl+C)."""
        ...

    def run_cancellable(
        self,
        work: Callable[[CancelToken], T],
        *,
        cancellable: bool = True,
        quiet: Callable[[], None] | None = None,
        resume: Callable[[], None] | None = None,
    ) -> T:
        """Run `work` on a worker thread; Esc / Ctrl+C on the main thread cancel its token.

        `quiet` is called before the IO writes something of its own (an approval question), `resume` after
        it (the approved command runs: its spinner comes back).
        """
        ...

    def clear_input_history(self) -> None: ...


def run_in_worker(
    work: Callable[[CancelToken], T],
    wait: Callable[[threading.Event, CancelToken], None],
    interrupted: Callable[[CancelToken], None] | None = None,
) -> T:
    """Start `work` on a daemon thread and let `wait` watch the user until it is done.

    A Ctrl+C that lands before `wait` is listening (or escapes it) is still only a cancel request:
    `interrupted` (default: cancel the token) handles it and `wait` resumes.
    """
    cancel = CancelToken()
    done = threading.Event()
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["value"] = work(cancel)
        except BaseException as exc:  # handed to the main thread, re-raised there
            box["error"] = exc
        finally:
            done.set()

    thread = threading.Thread(target=target, name="paicli-task", daemon=True)
    thread.start()
    try:
        while True:
            try:
                wait(done, cancel)
                break
            except KeyboardInterrupt:
                (interrupted or _cancel_token)(cancel)
    except BaseException:
        cancel.cancel()
        raise
    finally:
        _await_quietly(done, cancel)
    thread.join()
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]


def _cancel_token(cancel: CancelToken) -> None:
    cancel.cancel()


def _await_quietly(done: threading.Event, cancel: CancelToken) -> None:
    while True:
        try:
            if done.wait(0.2):
                return
        except KeyboardInterrupt:
            cancel.cancel()


class Dispatcher:
    """Turns one input line into a backend call and prints the outcome."""

    def __init__(self, backend: Backend, io: ReplIO) -> None:
        self.backend = backend
        self.io = io
        self.pending: RunMode | None = None
        self.last_folded: tuple[str, str] | None = None  # (tool, full output) of the last folded tool output

    def handle(self, line: str) -> bool:
        """Returns False when the REPL should stop."""
        parsed = parse(line)
        try:
            if parsed.kind == "none":
                if parsed.args:
                    mode: RunMode = self.pending or self._default_mode()
                    self.pending = None
                    self.run_task(parsed.args, mode)
                return True
            if parsed.kind == "unknown":
                say(self.io.console, unknown_reply(mask_secrets(parsed.args)), "yellow")
                return True
            return self._command(parsed.name, parsed.args)
        except KeyboardInterrupt:
            say(self.io.progress, "已中断。", "yellow")
        except Exception as exc:  # the CLI edge: one failing command must not end the session
            say(self.io.console, f"❌ 命令执行失败: {exc}", "red")
        return True

    def cancel_pending(self) -> bool:
        if self.pending is None:
            return False
        say(self.io.console, _PENDING_TEXT[self.pending][2], "yellow")
        self.pending = None
        return True

    def _command(self, name: str, args: str) -> bool:
        if name == "exit":
            say(self.io.console, "\n" + GOODBYE)
            return False
        handler = getattr(self, f"_cmd_{name}")
        handler(args)
        return True

    def reply(self, reply: CommandReply, prefix: str = "") -> None:
        text = reply.text
        if prefix and not text.startswith(prefix.strip()):
            text = prefix + text
        say(self.io.console, text, None if reply.ok else "red")

    def notices(self) -> None:
        self.show_notices(self.backend.drain_notices())

    def show_notices(self, lines: list[str]) -> None:
        for line in lines:
            say(self.io.progress, line, "dim")

    def _default_mode(self) -> RunMode:
        """`/mode plan` (or Shift+Tab) makes plain input a plan, when the backend says so."""
        default = getattr(self.backend, "default_mode", None)
        return default() if callable(default) else "react"

    def remember_fold(self, tool: str, text: str) -> None:
        self.last_folded = (tool, text)

    def show_last_folded(self, limit: int = 2000) -> None:
        """Ctrl+O: the last folded tool output in full (a very long one up to `limit` lines)."""
        if self.last_folded is None:
            say(self.io.console, "（还没有被折叠的工具输出）", "dim")
            return
        tool, text = self.last_folded
        lines = text.splitlines()
        say(self.io.console, f"── {tool} 的完整输出（{len(lines)} 行）──", "cyan")
        say(self.io.console, "\n".join(lines[:limit]))
        more = f"，另有 {len(lines) - limit} 行未显示" if len(lines) > limit else ""
        say(self.io.console, f"── 输出结束{more} ──", "cyan")

    def run_task(self, text: str, mode: RunMode) -> None:
        if mode == "plan":
            from paicli.cli.repl_plan import plan_flow

            flow = plan_flow(self)
            if flow is not None:
                flow.run(text)
                return
        renderer = EventRenderer(
            self.io.console,
            self.io.progress,
            markdown=self.io.markdown,
            on_fold=self.remember_fold if getattr(self.io, "interactive", False) else None,
        )
        try:
            result = self.io.run_cancellable(
                lambda cancel: self.backend.run(text, mode, renderer, cancel),
                quiet=renderer.pause,
                resume=renderer.resume,
            )
        except Exception as exc:
            result = RunFinished("error", "", str(exc) or type(exc).__name__)
        finally:
            renderer.stop_spinner()
        renderer.finish(result)
        self.notices()

    # -- commands -------------------------------------------------------------------------------------

    def _cmd_help(self, _: str) -> None:
        say(self.io.console, help_text())

    def _cmd_clear(self, _: str) -> None:
        reply = self.backend.clear()
        if getattr(self.io, "interactive", False):
            self.io.console.clear()  # a fresh screen for a fresh conversation
        self.reply(reply)

    def _cmd_cancel(self, _: str) -> None:
        say(self.io.console, "现在没有正在运行的任务（任务运行时按 Esc 取消）。")

    def _cmd_context(self, _: str) -> None:
        self.reply(self.backend.context_report())

    def _cmd_policy(self, args: str) -> None:
        self.reply(self.backend.policy(args.lower()) if args else self.backend.policy())

    def _cmd_skill(self, args: str) -> None:
        self.reply(self.backend.skill(args))

    def _cmd_config(self, _: str) -> None:
        self.reply(self.backend.config_report())

    def _cmd_audit(self, args: str) -> None:
        self.reply(self.backend.audit(args))

    def _cmd_export(self, args: str) -> None:
        self.reply(self.backend.export(args))

    def _cmd_save(self, args: str) -> None:
        self.reply(self.backend.save(args))

    def _cmd_model(self, args: str) -> None:
        choices = getattr(self.backend, "model_choices", None)
        if args or not getattr(self.io, "interactive", False) or not callable(choices):
            self.reply(self.backend.model(args))
            return
        from paicli.cli.models import list_text

        found = choices()
        say(self.io.console, list_text(found, numbered=True))
        answer = (self.io.ask("输入编号切换模型（回车保持当前）：") or "").strip()
        if not answer:
            return
        if answer.isdigit() and 1 <= int(answer) <= len(found):
            answer = found[int(answer) - 1].spec
        self.reply(self.backend.model(answer))

    def _cmd_mode(self, args: str) -> None:
        self.reply(self.backend.set_mode(args), "🧭 ")

    def _cmd_hitl(self, args: str) -> None:
        self.reply(self.backend.hitl(args), "🔒 ")

    def _cmd_compact(self, args: str) -> None:
        renderer = EventRenderer(self.io.console, self.io.progress, markdown=self.io.markdown)
        spinner = WaitSpinner(self.io.progress)
        say(self.io.progress, "⏳ 正在压缩上下文，请稍候…", "dim")
        spinner.start("压缩中")
        try:
            reply = self.io.run_cancellable(
                lambda cancel: self.backend.compact(args or None, renderer, cancel), quiet=spinner.stop
            )
        finally:
            spinner.stop()
        self.reply(reply)

    def _cmd_memory(self, args: str) -> None:
        sub, _ = split_memory_args(args)
        if sub == "clear":
            answer = self.io.ask("⚠️ 确认清空全部长期记忆？此操作无法撤销，输入 y 确认：")
            if answer is None or not is_yes(answer):
                say(self.io.console, "已取消，长期记忆保持不变。", "yellow")
                return
        if sub != "search":
            self.reply(self.backend.memory(args))
            return
        spinner = WaitSpinner(self.io.progress)
        spinner.start("搜索长期记忆")  # the first search loads the segmenter: seconds on a cold start
        try:
            reply = self.backend.memory(args)
        finally:
            spinner.stop()
        self.reply(reply)

    def _cmd_plan(self, args: str) -> None:
        self._mode_command("plan", args)

    def _cmd_team(self, args: str) -> None:
        self._mode_command("team", args)

    def _mode_command(self, mode: RunMode, args: str) -> None:
        announce_next, announce_now, _ = _PENDING_TEXT[mode]
        supports = getattr(self.backend, "supports_mode", None)
        if callable(supports) and not supports(mode):
            self.pending = None
            kept = "（这条任务没有执行）" if args else ""
            say(self.io.console, _UNSUPPORTED_TEXT[mode] + kept, "yellow")
            return
        if not args:
            self.pending = mode
            say(self.io.console, announce_next, "cyan")
            return
        self.pending = None
        say(self.io.progress, announce_now, "cyan")
        self.run_task(args, mode)

    def _cmd_init(self, args: str) -> None:
        renderer = EventRenderer(self.io.console, self.io.progress, markdown=self.io.markdown)
        force = args.lower() == "--force"
        spinner = WaitSpinner(self.io.progress)
        spinner.start("生成 PAI.md")  # one silent model call: show that something is happening

        def quiet() -> None:
            spinner.stop()
            renderer.pause()

        try:
            reply = self.io.run_cancellable(
                lambda cancel: self.backend.init_project(force, renderer, cancel), quiet=quiet
            )
        finally:
            spinner.stop()
            renderer.stop_spinner()
        self.reply(reply)

    def _cmd_history(self, _: str) -> None:
        self.io.clear_input_history()
        say(self.io.console, "🧹 输入历史记录已删除")

    def _cmd_resume(self, args: str) -> None:
        show_all = args.lower() in ("all", "--all")
        sessions = self.backend.list_sessions(include_hidden=show_all)
        if not sessions:
            say(self.io.console, "📭 本项目还没有可以恢复的历史会话。")
            return
        choice = "" if show_all else args
        while True:
            if not choice:
                say(self.io.console, format_sessions(sessions))
                choice = (self.io.ask(PICK_QUESTION) or "").strip()
                if not choice:
                    say(self.io.console, "已取消恢复。", "yellow")
                    return
            if choice.lower() in ("all", "--all") and not show_all:
                sessions, choice, show_all = self.backend.list_sessions(include_hidden=True), "", True
                continue
            session_id = pick_session(sessions, choice)
            if session_id is not None:
                self._resume_and_offer(session_id)
                return
            matches = search(sessions, choice)
            if not matches:
                say(self.io.console, f"❌ 没有找到会话: {choice}（可用 /resume 查看列表）", "red")
                return
            if len(matches) == 1:
                self._resume_and_offer(matches[0].session_id)
                return
            say(self.io.console, f"🔎 有 {len(matches)} 个会话包含“{choice}”：")
            sessions, choice = matches, ""

    def _resume_and_offer(self, session_id: str) -> None:
        reply = self.backend.resume(session_id)
        self.reply(reply)
        if reply.ok:
            from paicli.cli.repl_plan import offer_continuation

            offer_continuation(self)


PICK_QUESTION = "输入编号、会话 id 或搜索词恢复（all 显示全部，直接回车取消）："


def search(sessions: list[SessionSummary], query: str) -> list[SessionSummary]:
    words = query.lower().split()
    return [s for s in sessions if all(w in f"{s.first_input} {s.session_id}".lower() for w in words)]


def format_sessions(sessions: list[SessionSummary], now_ms: int | None = None) -> str:
    from paicli.session.catalog import relative_time

    now = now_ms if now_ms is not None else int(time.time() * 1000)
    hidden = sum(1 for item in sessions if item.hidden)
    lines = ["🗂️ 本项目的历史会话（最近活动在前）："]
    for number, item in enumerate(sessions, start=1):
        when = relative_time(item.updated_at_ms or item.started_at_ms, now)
        first = shorten(item.first_input, 48) or "（无输入）"
        lines.append(f"  {number:>2}. {when:<8} {first}  · {item.turns} 轮 · {item.model}")
        lines.append(f"      {item.session_id}")
    if hidden:
        lines.append(f"   （其中 {hidden} 个是空的或只有一轮且没有得到回答）")
    return "\n".join(lines)


def pick_session(sessions: list[SessionSummary], choice: str) -> str | None:
    """A list number (1 = newest), a full session id, or a unique id prefix."""
    choice = choice.strip()
    if choice.isdigit() and 1 <= int(choice) <= len(sessions):
        return sessions[int(choice) - 1].session_id
    exact = [item.session_id for item in sessions if item.session_id == choice]
    if exact:
        return exact[0]
    prefixed = [
        item.session_id
        for item in sessions
        if choice.startswith("session-") and item.session_id.startswith(choice)
    ]
    return prefixed[0] if len(prefixed) == 1 else None


def run_repl(
    backend: Backend,
    *,
    input: Input | IO[str] | None = None,
    output: Output | IO[str] | None = None,
    interactive: bool,
    history_file: Path,
    console: Console | None = None,
    progress: Console | None = None,
    env: EnvLookup | None = None,
    approver: ApprovalHost | None = None,
    intro: str = "",
) -> int:
    """Run the REPL until /exit, Ctrl+D or end of input; returns the exit code (0).

    Interactive: `input`/`output` are prompt_toolkit objects (tests pass `create_pipe_input()` and
    `DummyOutput()`), `console` receives everything rich prints. Piped: `input` is a text stream
    (default stdin), answers go to `output` (default stdout) and progress to `progress` (default stderr).
    `approver`: in interactive mode its `handler` is set to ask at this REPL's prompt while a task runs
    (and reset on exit); piped sessions leave it alone. `intro` (a resumed conversation) is shown below the
    banner. On the way out it says when a memory save is still finishing and how to continue this session.
    """
    if interactive:
        console = console or Console(force_terminal=True)
        progress = console
    else:
        console = console or Console(file=_text_stream(output, sys.stdout), highlight=False, emoji=False)
        progress = progress or Console(stderr=True, highlight=False, emoji=False)
    try:
        if not interactive:
            from paicli.cli.repl_piped import run_piped

            if intro:
                say(progress, intro)
            return run_piped(backend, _text_stream(input, sys.stdin), console, progress)
        from paicli.cli.repl_prompt import run_interactive

        return run_interactive(
            backend,
            input=input,
            output=output,
            history_file=history_file,
            console=console,
            env=env,
            approver=approver,
            intro=intro,
        )
    finally:
        _finishing_note(backend, progress)
        backend.close()
        _late_notices(backend, progress)
        _continue_hint(backend, progress)


def _finishing_note(backend: Backend, progress: Console) -> None:
    pending = getattr(backend, "pending_background", None)
    try:
        busy = callable(pending) and pending() > 0
    except Exception:
        busy = False
    if busy:
        say(progress, "⏳ 正在完成长期记忆的保存（最多等 10 秒）…", "dim")


def _continue_hint(backend: Backend, progress: Console) -> None:
    """The way back into this session, once it holds a conversation."""
    has_conversation = getattr(backend, "has_conversation", None)
    try:
        if not callable(has_conversation) or not has_conversation():
            return
        info = backend.info()
    except Exception:
        return
    if info.session_id:
        say(progress, f"会话 {info.session_id} 已保存，继续: paicli --resume {info.session_id}", "dim")


def _late_notices(backend: Backend, progress: Console) -> None:
    """Background work that finished while `close` waited for it still gets its line."""
    try:
        for line in backend.drain_notices():
            say(progress, line, "dim")
    except Exception:  # the session is over; a broken console must not turn a clean exit into a crash
        return


def _text_stream(candidate: object, default: IO[str]) -> IO[str]:
    from prompt_toolkit.input import Input
    from prompt_toolkit.output import Output

    if candidate is None or isinstance(candidate, (Input, Output)):
        return default
    return candidate  # type: ignore[return-value]
