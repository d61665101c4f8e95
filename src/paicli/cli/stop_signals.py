"""SIGINT and SIGTERM from the first instruction on (design/contract.md: 130 when cancelled).

A process started as a background job (`cmd &` in a script, some CI runners) inherits SIGINT as ignored, and
Python then never raises KeyboardInterrupt; paicli promises that Ctrl+C cancels, so it asks for SIGINT
explicitly. SIGTERM (`timeout`, a CI runner stopping a job) takes the same path, so a stop during start-up or
while a piped REPL waits for input ends with 130 and no traceback; `-p` replaces both while its run is going
(oneshot._SigintCanceller). The interactive REPL keeps the default SIGTERM (prompt_toolkit owns the terminal).
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

_terminated = threading.Event()


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    _terminated.set()
    raise KeyboardInterrupt


def install() -> None:
    """Ctrl+C and SIGTERM raise KeyboardInterrupt in the main thread, whatever the parent left behind."""
    if threading.current_thread() is not threading.main_thread():
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _on_sigterm)


def terminated() -> bool:
    """Whether a SIGTERM arrived: a piped REPL stops after the task it cancelled instead of reading on."""
    return _terminated.is_set()


def default_sigterm() -> None:
    """For the interactive REPL: SIGTERM ends the process as it always did."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def ignore_during_shutdown() -> None:
    """Once the exit code is decided, a late signal must not turn it into a death by signal or a traceback."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
