"""The terminal side of the REPL as the dispatcher sees it (`ReplIO`: the interactive prompt or piped lines),
and how both run a task: on a worker thread while the main thread watches the user, so Esc or Ctrl+C only
cancel it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol, TypeVar

from rich.console import Console

from paicli.agent.events import RunFinished
from paicli.cancel import CancelToken
from paicli.cli.render import EventRenderer

T = TypeVar("T")

CANCEL_REQUESTED = "⏹️ 正在停止当前任务…"


class ReplIO(Protocol):
    """What the dispatcher needs from the terminal side (interactive prompt or piped lines)."""

    console: Console  # answers and command replies
    progress: Console  # tool lines, notices, spinner
    markdown: bool
    interactive: bool  # a person at a terminal: follow-up questions, plan review keys, Ctrl+O folds
    pick_inline: bool  # a picker may ask for its choice (piped input: the next line is the next input)

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
        typed: Callable[[str], None] | None = None,
    ) -> T:
        """Run `work` on a worker thread; Esc / Ctrl+C on the main thread cancel its token.

        `quiet` is called before the IO writes something of its own (an approval question), `resume` after
        it (the approved command runs: its spinner comes back); `typed` gets the line being typed meanwhile.
        """
        ...

    def clear_input_history(self) -> None: ...

    def read_key(self, prompt: str) -> str:
        """One key for a single-key choice (plan review); only asked when `interactive`."""
        ...


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
    try:
        while True:
            try:
                if thread.ident is None:  # started in here: a Ctrl+C as it starts is a cancel request too
                    thread.start()
                wait(done, cancel)
                break
            except KeyboardInterrupt:
                (interrupted or _cancel_token)(cancel)
    except BaseException:
        cancel.cancel()
        raise
    finally:
        if thread.ident is not None:  # a thread that never started has nothing to wait for
            _await_quietly(done, cancel)
    thread.join()
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]


def run_guarded(io: ReplIO, renderer: EventRenderer, work: Callable[[CancelToken], T]) -> T | RunFinished:
    """`work` on the worker thread while `renderer` draws its events; a crash comes back as an error outcome."""
    try:
        return io.run_cancellable(
            work, quiet=renderer.pause, resume=renderer.resume, typed=renderer.show_typed
        )
    except Exception as exc:
        return RunFinished("error", "", str(exc) or type(exc).__name__)
    finally:
        renderer.stop_spinner()


def run_rendered(io: ReplIO, renderer: EventRenderer, work: Callable[[CancelToken], RunFinished]) -> None:
    """One whole task: run it guarded, then print its outcome."""
    renderer.finish(run_guarded(io, renderer, work))


def _cancel_token(cancel: CancelToken) -> None:
    cancel.cancel()


def _await_quietly(done: threading.Event, cancel: CancelToken) -> None:
    while True:
        try:
            if done.wait(0.2):
                return
        except KeyboardInterrupt:
            cancel.cancel()
