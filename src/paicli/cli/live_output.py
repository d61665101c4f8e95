"""A running command's live output for the person watching: the last few lines, one screen row each.

The REPL shows them under the spinner (redrawn at the spinner's rate); `-p` text mode writes them to stderr,
at most a few batches per second. Neither changes what the model gets (the tool result is the full capture).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

from paicli.termsafe import strip_terminal

TAIL_LINES = 4
FLUSH_INTERVAL_SECONDS = 0.3
PREFIX = "  │ "


def display_line(line: str, width: int) -> str:
    """What a terminal would end up showing for `line` (a `\\r` progress bar keeps its last state), with no
    control characters, clipped to `width` cells."""
    from paicli.cli.cells import clip  # the cell widths (rich) load with a command's first output line

    shown = line.rstrip("\r").rsplit("\r", 1)[-1].expandtabs(4)
    return clip(strip_terminal(shown).replace("\n", " "), max(8, width))


class OutputTail:
    """The last `size` lines of one call's output."""

    def __init__(self, size: int = TAIL_LINES) -> None:
        self.call_id = ""
        self._lines: deque[str] = deque(maxlen=size)

    def add(self, call_id: str, line: str) -> None:
        if call_id != self.call_id:  # another command: start over
            self.call_id = call_id
            self._lines.clear()
        self._lines.append(line)

    def clear(self) -> None:
        self.call_id = ""
        self._lines.clear()

    def lines(self) -> tuple[str, ...]:
        return tuple(self._lines)


Write = Callable[[str], None]
Clock = Callable[[], float]


class ThrottledLines:
    """Writes output lines as `PREFIX + line`, at most one batch every `interval` seconds. Lines arriving in
    between wait for the next batch (a timer sends it if nothing else comes); a batch shows only its last
    `keep` lines, after a `…` line when it held more. `lock` is the writer's lock, so nothing interleaves."""

    def __init__(
        self,
        write: Write,
        width: Callable[[], int],
        lock: threading.Lock,
        *,
        interval: float = FLUSH_INTERVAL_SECONDS,
        keep: int = TAIL_LINES,
        clock: Clock = time.monotonic,
    ) -> None:
        self._write = write
        self._width = width
        self._lock = lock
        self._interval = interval
        self._keep = keep
        self._clock = clock
        self._pending: list[str] = []
        self._last = float("-inf")
        self._timer: threading.Timer | None = None

    def add(self, line: str) -> None:
        """Called with `lock` held."""
        self._pending.append(line)
        wait = self._last + self._interval - self._clock()
        if wait <= 0:
            self.flush()
        elif self._timer is None:
            self._timer = threading.Timer(wait, self._on_timer)
            self._timer.daemon = True
            self._timer.start()

    def flush(self) -> None:
        """Called with `lock` held: write what is pending now (before a tool's end line, say)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        self._last = self._clock()
        width = self._width() - len(PREFIX)
        if len(pending) > self._keep:  # not a count: a flood reaches us already thinned out
            self._write(f"{PREFIX}…\n")
        self._write("".join(f"{PREFIX}{display_line(line, width)}\n" for line in pending[-self._keep :]))

    def _on_timer(self) -> None:
        with self._lock:
            self._timer = None
            self.flush()
