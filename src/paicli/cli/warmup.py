"""Start-up warm-up: what the first turn needs and is slow to load (jieba's dictionary, the memory vector
index, the token encoder) loads on a background thread while the user types the first message.

A run that starts before it is done waits for it (the lazy loaders take the same locks anyway) and says
what it waits for, so the spinner shows "等待分词词典" instead of a silent stall.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from paicli.agent.events import EventSink, Waiting
from paicli.cancel import CancelToken

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WarmStep:
    label: str  # user-facing: what a waiting run says it waits for
    run: Callable[[], None]


EXIT_WAIT_SECONDS = 30.0
_running: weakref.WeakSet[WarmUp] = weakref.WeakSet()


def _finish_at_exit() -> None:
    """The index step runs numpy on this daemon thread; caught there by the interpreter's finalization it would
    abort the process (see memory/vector_file.py). At exit the step under way finishes and no other starts."""
    for warmup in list(_running):
        warmup.stop(EXIT_WAIT_SECONDS)


atexit.register(_finish_at_exit)


class WarmUp:
    def __init__(self, steps: Sequence[WarmStep]) -> None:
        self._steps = tuple(steps)
        self._state = threading.Condition()
        self._current: str | None = self._steps[0].label if self._steps else None
        self._done = not self._steps
        self._stopping = False
        self._thread: threading.Thread | None = None

    def start(self) -> WarmUp:
        if not self._done and self._thread is None:
            self._thread = threading.Thread(target=self._run, name="paicli-warmup", daemon=True)
            _running.add(self)
            self._thread.start()
        return self

    def stop(self, timeout: float) -> None:
        """Let the step under way finish, skip the rest, and wait for the thread (at most `timeout` s)."""
        with self._state:
            self._stopping = True
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        for step in self._steps:
            with self._state:
                if self._stopping:
                    break
                self._current = step.label
                self._state.notify_all()
            started = time.monotonic()
            try:
                step.run()
                log.info("warm-up: %s ready in %.0f ms", step.label, (time.monotonic() - started) * 1000)
            except Exception:  # warming is an optimisation: the first turn then loads what it needs itself
                log.warning("warm-up step %r failed", step.label, exc_info=True)
        with self._state:
            self._current = None
            self._done = True
            self._state.notify_all()

    @property
    def done(self) -> bool:
        with self._state:
            return self._done

    def pending(self) -> str | None:
        """The step still loading, or None when everything is ready."""
        with self._state:
            return None if self._done else self._current

    def wait(self, on_wait: Callable[[str], None], cancelled: Callable[[], bool], poll: float = 0.1) -> bool:
        """Block until the warm-up finished, telling `on_wait` each step waited for. False when cancelled."""
        self.start()  # waiting on a warm-up nobody started would never end
        told: str | None = None
        with self._state:
            while not self._done:
                if cancelled():
                    return False
                if self._current is not None and self._current != told:
                    told = self._current
                    label = told
                    self._state.release()  # never call out while holding the lock
                    try:
                        on_wait(label)
                    finally:
                        self._state.acquire()
                    continue
                self._state.wait(poll)  # woken by every step change; the timeout only polls the cancel token
        return True


MEMORY_DICTIONARY = "分词词典"
MEMORY_INDEX = "长期记忆索引"
TOKEN_ENCODER = "token 编码器"


class _Memory(Protocol):
    def has_memories(self) -> bool: ...
    def warm_tokenizer(self) -> None: ...
    def warm_index(self) -> None: ...


class _Counter(Protocol):
    def count_text(self, text: str | None) -> int: ...


def startup_warmup(
    memory: _Memory, counter: _Counter, *, count_context: bool, query_hint: str | None = None
) -> WarmUp:
    """The steps this session needs: with no memory stored, retrieval touches neither jieba nor the index;
    without context counting (-p), the encoder waits for whoever needs it. `query_hint` (-p: the task) that
    needs no dictionary (no Han character) skips jieba altogether: the stored memories' tokens are on disk."""
    steps: list[WarmStep] = []
    if memory.has_memories():
        if _dictionary_needed(query_hint):
            steps.append(WarmStep(MEMORY_DICTIONARY, memory.warm_tokenizer))
        steps.append(WarmStep(MEMORY_INDEX, memory.warm_index))
    if count_context:
        steps.append(WarmStep(TOKEN_ENCODER, lambda: _count(counter)))
    return WarmUp(steps)


def _count(counter: _Counter) -> None:
    counter.count_text("预热")  # the first count loads the encoder


def await_warmup(warmup: WarmUp | None, emit: EventSink, cancel: CancelToken) -> bool:
    """Before a run: wait for the warm-up, showing what is still loading. False when cancelled meanwhile."""
    if warmup is None or warmup.done:
        return True
    return warmup.wait(lambda label: emit(Waiting(label)), lambda: cancel.cancelled)


def _dictionary_needed(query_hint: str | None) -> bool:
    if query_hint is None:
        return True
    from paicli.memory.tokenize import needs_dictionary

    return needs_dictionary(query_hint)


def start_dictionary_early(memory_dir: Path, query_hint: str | None = None) -> None:
    """Before the session is even built: jieba's dictionary is the slowest step and needs nothing but
    the home directory, so it starts loading at once when a memory file with content exists (an empty or
    missing store never needs it). The warm-up's dictionary step then just waits for this load."""
    from paicli.memory.store import FILE_NAME

    try:
        worth_it = (memory_dir / FILE_NAME).stat().st_size > len("[]\n")
    except OSError:
        return
    if worth_it and _dictionary_needed(query_hint):
        threading.Thread(target=_load_dictionary, name="paicli-dictionary", daemon=True).start()


def _load_dictionary() -> None:
    from paicli.memory.tokenize import segment

    try:
        segment("预热")
    except Exception:  # the warm-up step or the first retrieval will report and retry
        log.warning("early dictionary load failed", exc_info=True)
