"""While a task runs in the interactive REPL: the key watcher (Esc / Ctrl+C cancel, type-ahead kept) and the
approval questions asked at the prompt on behalf of the worker thread."""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from typing import TypeVar

from prompt_toolkit import PromptSession
from prompt_toolkit.input import Input
from prompt_toolkit.input.typeahead import get_typeahead, store_typeahead
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.key_binding.key_processor import KeyPress
from prompt_toolkit.keys import Keys
from prompt_toolkit.output import Output
from rich.console import Console
from rich.text import Text

from paicli.cancel import CancelToken
from paicli.cli.approval import ESC_NOTE, Answer, question_options, shown, spaced
from paicli.cli.render import diff_text, fold_lines, say
from paicli.cli.repl_terminal import CANCEL_REQUESTED, run_in_worker
from paicli.cli.wrapping import pack
from paicli.tools.base import ApprovalDecision, ApprovalReply, ApprovalRequest

T = TypeVar("T")

EOF_WHILE_RUNNING = "⏏ 收到 Ctrl+D：这个任务结束后退出 paicli（要马上停下任务请按 Esc）"
DROPPED_BEFORE_QUESTION = "（问题出现前按下的键已丢弃，不会当作回答）"
# The rest of the word a one-key answer starts ("yes", "no", "all") and its Enter: typed out of habit, they are
# swallowed instead of answering the next question or reaching the model as a new turn.
ANSWER_TAILS = {"y": "es", "n": "o", "a": "ll"}
ENTER_KEYS = (Keys.ControlM, Keys.ControlJ)
QUEUED_LINE = "⌨️ 已记下，任务结束后发送: {line}"
_ERASE_KEYS = (Keys.ControlH, Keys.Backspace)


def typed_lines(keys: list[KeyPress]) -> list[str]:
    """The text typed ahead, line by line as Enter splits it (the last one still being typed)."""
    lines = [""]
    for key_press in keys:
        if key_press.key in ENTER_KEYS:
            lines.append("")
        elif key_press.key in _ERASE_KEYS:
            lines[-1] = lines[-1][:-1]
        elif key_press.key == Keys.ControlU:
            lines[-1] = ""
        elif len(key_press.data) == 1 and key_press.data.isprintable():
            lines[-1] += key_press.data
    return lines


class _PendingApproval:
    def __init__(self, request: ApprovalRequest) -> None:
        self.request = request
        self.decision: Answer = "deny"
        self.answered = threading.Event()

    def resolve(self, decision: Answer) -> None:
        self.decision = decision
        self.answered.set()


class InteractiveIO:
    """Terminal IO for the dispatcher: follow-up prompts, a key watcher while a task runs, approvals."""

    markdown = True
    interactive = True  # follow-up questions (pickers) are asked at the terminal, not read from a script
    pick_inline = True

    def __init__(self, inp: Input, out: Output, console: Console, clear_history: Callable[[], None]) -> None:
        self._input = inp
        self._output = out
        self.console = console
        self.progress = console
        self._clear_history = clear_history
        self._cancellable = True
        self._quiet: Callable[[], None] | None = None
        self._resume: Callable[[], None] | None = None
        self._typed: Callable[[str], None] | None = None
        self._eof_hinted = False
        self._watching = threading.Event()
        self._approvals: queue.Queue[_PendingApproval] = queue.Queue()
        self._tail: str | None = None  # after a one-key answer: what is still swallowed (see ANSWER_TAILS)

    def ask(self, question: str) -> str | None:
        bindings = KeyBindings()

        @bindings.add("escape")
        def _give_up(event: KeyPressEvent) -> None:  # Esc backs out of a question, as it denies an approval
            event.app.exit(exception=KeyboardInterrupt())

        session: PromptSession[str] = PromptSession(
            input=self._input, output=self._output, key_bindings=bindings
        )
        try:
            return session.prompt(question)
        except (EOFError, KeyboardInterrupt):
            return None

    def clear_input_history(self) -> None:
        self._clear_history()

    def read_key(self, prompt: str) -> str:
        """One key for a single-key choice (plan review): "enter", "c-o", "escape", the character typed, or ""
        for Ctrl+C / Ctrl+D / end of input."""
        bindings = KeyBindings()
        later: list[KeyPress] = []  # keys that arrived with the answer belong to the next prompt

        def answer(event: KeyPressEvent, result: str) -> None:
            if event.app.is_done or (event.app.future is not None and event.app.future.done()):
                later.extend(event.key_sequence)
            else:
                event.app.exit(result=result)

        for name in ("enter", "c-o", "escape"):  # eager: Esc must not wait to become Alt+<next key>
            bindings.add(name, eager=True)(lambda event, name=name: answer(event, name))
        for name in ("c-c", "c-d"):
            bindings.add(name)(lambda event: answer(event, ""))

        @bindings.add("<any>")
        def _other(event: KeyPressEvent) -> None:
            answer(event, event.data)

        session: PromptSession[str] = PromptSession(
            input=self._input, output=self._output, key_bindings=bindings
        )
        session.app.ttimeoutlen = 0.1  # a lone Esc answers at once instead of waiting for a sequence
        try:
            return session.prompt(prompt)
        except (EOFError, KeyboardInterrupt):
            return ""
        finally:
            if later:
                store_typeahead(self._input, later)

    def run_cancellable(
        self,
        work: Callable[[CancelToken], T],
        *,
        cancellable: bool = True,
        quiet: Callable[[], None] | None = None,
        resume: Callable[[], None] | None = None,
        typed: Callable[[str], None] | None = None,
    ) -> T:
        """The watcher also keeps the terminal in raw mode, so keys typed meanwhile arrive intact."""
        self._cancellable = cancellable
        self._quiet = quiet
        self._resume = resume
        self._typed = typed
        self._eof_hinted = False
        self._tail = None  # an answer's tail belongs to its own task, never to the next one
        self._watching.set()  # before the worker starts: it may ask at once
        try:
            return run_in_worker(work, self._watch)
        finally:
            self._watching.clear()
            self._deny_waiting()

    def approval_handler(self, request: ApprovalRequest) -> Answer:
        """Called on the worker thread by the tool runner; the main thread asks, the worker waits."""
        if not self._watching.is_set():
            return "deny"
        pending = _PendingApproval(request)
        self._approvals.put(pending)
        while not pending.answered.wait(0.2):
            if not self._watching.is_set():
                return "deny"
        return pending.decision

    def _request_cancel(self, cancel: CancelToken) -> None:
        if self._cancellable and not cancel.cancelled:
            say(self.progress, CANCEL_REQUESTED, "yellow")
            cancel.cancel()

    def _watch(self, done: threading.Event, cancel: CancelToken) -> None:
        try:
            asyncio.run(self._watch_keys(done, cancel))
        except KeyboardInterrupt:
            self._request_cancel(cancel)
            self._wait_plain(done, cancel)
        except Exception:  # no raw mode / unreadable input: keep going, Ctrl+C (SIGINT) still cancels
            self._wait_plain(done, cancel)

    def _wait_plain(self, done: threading.Event, cancel: CancelToken) -> None:
        while not done.is_set():
            try:
                done.wait(0.1)
                self._deny_waiting()
            except KeyboardInterrupt:
                self._request_cancel(cancel)

    def _deny_waiting(self) -> None:
        while not self._approvals.empty():
            self._approvals.get_nowait().resolve("deny")

    def _take(
        self, keys: list[KeyPress], kept: list[KeyPress], cancel: CancelToken, live: bool = True
    ) -> None:
        """`live`: pressed while the task runs (not queued before it started, like a pasted script)."""
        for key_press in keys:
            if self._swallowed(key_press):
                continue
            if key_press.key in (Keys.Escape, Keys.ControlC):
                self._request_cancel(cancel)
            else:
                if key_press.key == Keys.ControlD and live and not self._eof_hinted:
                    # As type-ahead it ends the session once the task is over: say so now, not then.
                    self._eof_hinted = True
                    say(self.progress, EOF_WHILE_RUNNING, "dim")
                kept.append(key_press)
                if live:
                    self._echo_typed(kept, key_press)

    def _echo_typed(self, kept: list[KeyPress], key_press: KeyPress) -> None:
        """Type-ahead is visible while the task runs: the line being typed under the spinner, and each line
        finished with Enter once, as it will be sent when the task is over."""
        lines = typed_lines(kept)
        if key_press.key in ENTER_KEYS and len(lines) > 1 and lines[-2].strip():
            say(self.progress, QUEUED_LINE.format(line=lines[-2]), "dim")
        if self._typed is not None:
            self._typed(lines[-1])

    def _swallowed(self, key_press: KeyPress) -> bool:
        tail = self._tail
        if tail is None:
            return False
        if key_press.key in ENTER_KEYS:
            self._tail = None
            return True
        if tail and key_press.data.lower() == tail[0]:
            self._tail = tail[1:]
            return True
        self._tail = None
        return False

    def _drop_pending(self, kept: list[KeyPress], cancel: CancelToken) -> None:
        """Keys typed before a question was shown (kept or still waiting) are dropped: none of them answers it,
        nor lands in the next prompt as a stray answer (Esc / Ctrl+C among them still cancel the task)."""
        self._tail = None
        pending = [*kept, *get_typeahead(self._input), *self._input.read_keys(), *self._input.flush_keys()]
        kept.clear()
        if any(key_press.key in (Keys.Escape, Keys.ControlC) for key_press in pending):
            self._request_cancel(cancel)
        if pending:
            say(self.console, DROPPED_BEFORE_QUESTION, "dim")

    async def _watch_keys(self, done: threading.Event, cancel: CancelToken) -> None:
        """Esc / Ctrl+C cancel; other keys are kept as type-ahead for the next prompt; approvals are asked."""
        kept: list[KeyPress] = []
        self._take(get_typeahead(self._input), kept, cancel, live=False)
        try:
            with self._input.raw_mode():
                while not done.is_set():
                    await self._read_keys(done, cancel, kept)
                    if not self._approvals.empty():
                        pending = self._approvals.get_nowait()
                        self._drop_pending(kept, cancel)
                        decision, interrupted = await self._ask_approval(pending.request)
                        self._take(get_typeahead(self._input), kept, cancel)  # keys typed after the answer
                        if interrupted:  # Ctrl+C at the question: refuse and stop the task, as elsewhere
                            self._request_cancel(cancel)
                        pending.resolve(decision)
                        if self._resume is not None and not interrupted:
                            self._resume()
        finally:
            store_typeahead(self._input, kept)

    async def _read_keys(self, done: threading.Event, cancel: CancelToken, kept: list[KeyPress]) -> None:
        inp = self._input
        loop = asyncio.get_running_loop()
        last_read = loop.time()

        def on_ready() -> None:
            nonlocal last_read
            self._take(inp.read_keys(), kept, cancel)
            last_read = loop.time()

        with inp.attach(on_ready):
            while not done.is_set() and self._approvals.empty():
                await asyncio.sleep(0.05)
                if loop.time() - last_read >= 0.1:
                    self._take(inp.flush_keys(), kept, cancel)  # a lone Esc shows only once nothing follows

    async def _ask_approval(self, request: ApprovalRequest) -> tuple[Answer, bool]:
        """The answer, and whether the person pressed Ctrl+C (or closed the input) instead of answering."""
        if self._quiet is not None:
            self._quiet()
        request = shown(request)
        say(self.console, f"⚠️ 需要确认: {request.summary}", "bold yellow")
        if request.reason:
            say(self.console, f"   原因: {request.reason}", "yellow")
        if request.preview and not _preview_repeats_summary(request):
            self.console.print(preview_text(request.preview), end="", soft_wrap=True)
        try:
            key = await self._one_key(self._question(request), "yant" if request.always else "ynt")
        except (EOFError, KeyboardInterrupt):
            say(self.console, DECISION_TEXT["deny"], "dim")
            return "deny", True
        answer: Answer
        if key == "escape":
            answer = ApprovalReply("deny", ESC_NOTE)
        elif key == "t":
            note = await self._instruction()
            answer = ApprovalReply("deny", note) if note else "deny"
        else:
            answer = {"y": "approve", "a": "approve_all"}.get(key, "deny")  # type: ignore[assignment]
            self._tail = ANSWER_TAILS.get(key)
        decision = answer.decision if isinstance(answer, ApprovalReply) else answer
        text = DECISION_TEXT[decision].format(always=spaced(request.always or ""))
        if decision == "approve_all" and request.rule:
            text += f"\n   以后的会话也要允许的话: /permissions allow {request.rule}"
        if isinstance(answer, ApprovalReply) and answer.note and key == "t":
            text += "，已把你的说明交给它"
        say(self.console, text, "dim")
        return answer, False

    def _question(self, request: ApprovalRequest) -> str:
        """The options in rows of whole labels that fit this terminal (the last column stays free for the
        cursor), so none is split between two rows."""
        width = max(20, self._output.get_size().columns - 1)
        return "\n".join(pack(question_options(request), width))

    async def _one_key(self, question: str, keys: str) -> str:
        """One key press answers: no Enter; other keys are ignored; Esc is its own answer."""
        bindings = KeyBindings()
        for key in keys:
            bindings.add(key)(_exit_with(key))
            bindings.add(key.upper())(_exit_with(key))
        bindings.add("escape")(_exit_with("escape"))

        @bindings.add("<any>")
        @bindings.add("enter")  # there is no default answer, so Enter must not submit an empty one
        @bindings.add("c-j")
        def _ignore(event: KeyPressEvent) -> None:
            return None

        session: PromptSession[str] = PromptSession(
            input=self._input, output=self._output, key_bindings=bindings
        )
        session.app.ttimeoutlen = 0.1
        return await session.prompt_async(question)

    async def _instruction(self) -> str:
        bindings = KeyBindings()
        bindings.add("escape")(_exit_with(""))
        session: PromptSession[str] = PromptSession(
            input=self._input, output=self._output, key_bindings=bindings
        )
        say(self.console, "   告诉它应该怎么做（回车发送，Esc 只拒绝）：", "yellow")
        try:
            return (await session.prompt_async("   › ")).strip()
        except (EOFError, KeyboardInterrupt):
            return ""


def _exit_with(result: str) -> Callable[[KeyPressEvent], None]:
    def handler(event: KeyPressEvent) -> None:
        event.app.exit(result=result)

    return handler


def _preview_repeats_summary(request: ApprovalRequest) -> bool:
    """A one-line command is already in the summary line: show it once."""
    preview = (request.preview or "").strip()
    return "\n" not in preview and request.summary.endswith(preview)


DECISION_TEXT: dict[ApprovalDecision, str] = {
    "approve": "✅ 已允许这一次",
    "approve_all": "✅ 已允许；本会话里{always}不再逐次询问（/policy 查看，/policy reset 撤销）",
    "deny": "🚫 已拒绝",
}


def preview_text(preview: str) -> Text:
    """A diff preview is coloured; a command or other text is shown dim, folded after 20 lines."""
    if any(line.startswith(("@@", "+++", "---")) for line in preview.splitlines()[:4]):
        return diff_text(preview, keep=40)
    lines, folded = fold_lines(preview, 20)
    text = Text("\n".join("    " + line for line in lines) + "\n", style="dim")
    if folded:
        text.append(f"    … 还有 {folded} 行\n", style="dim")
    return text
