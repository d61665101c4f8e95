"""The transient wait spinner: a label, elapsed seconds and, under it, a running command's latest lines."""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.live import Live
from rich.spinner import Spinner as RichSpinner
from rich.text import Text

from paicli.cli.live_output import PREFIX, display_line
from paicli.termsafe import strip_terminal

Clock = Callable[[], float]
Label = str | Callable[[], str]


TYPED_LABEL = "⌨️ 已输入: "


def typed_tail(text: str, width: int) -> str:
    """The end of a line being typed (where the cursor is), cut from the left to `width` cells."""
    shown = strip_terminal(text)
    if cell_len(shown) <= width:
        return shown
    while shown and cell_len(shown) > max(1, width - 1):
        shown = shown[1:]
    return "…" + shown


class WaitSpinner:
    """A transient spinner with elapsed seconds; silent when the console is not a terminal."""

    def __init__(self, console: Console, clock: Clock = time.monotonic) -> None:
        self._console = console
        self._clock = clock
        self._live: Live | None = None
        self._spinner: RichSpinner | None = None
        self._label: Label = ""
        self._started = 0.0
        self._delay = 0.0
        self._tail: tuple[str, ...] = ()
        self._typed = ""  # type-ahead: kept across stops, as the keys are (the task's end clears it)

    @property
    def active(self) -> bool:
        return self._live is not None

    def start(self, label: Label, delay: float = 0.0) -> None:
        """`label` may be a function, asked on every redraw (e.g. per-task elapsed times). `delay`: nothing is
        drawn until the wait has lasted that long (a check that is usually instant does not flash a line)."""
        self._label = label
        if self._live is not None or not self._console.is_terminal:
            return
        self._started = self._clock()
        self._delay = delay
        self._spinner = RichSpinner("dots", style="cyan")
        self._live = Live(self, console=self._console, refresh_per_second=8, transient=True)
        try:
            self._live.start()
        except Exception:  # a spinner is decoration: never let it break a run
            self._live = None

    def relabel(self, label: Label) -> None:
        self._label = label

    def restart(self, label: Label, delay: float = 0.0) -> None:
        """A new wait: its own label, and the elapsed time counted from now."""
        if self._live is None:
            self.start(label, delay)
            return
        self._label = label
        self._started = self._clock()
        self._delay = delay

    def show_tail(self, lines: tuple[str, ...]) -> None:
        """Lines shown under the spinner (a running command's latest output) until the next stop."""
        self._tail = lines

    def show_typed(self, line: str) -> None:
        self._typed = line

    def stop(self) -> None:
        live, self._live = self._live, None
        if live is not None:
            live.stop()
        self._tail = ()

    def line(self) -> str:
        """The wait as drawn now ("" when nothing is drawn: stopped, or still within its delay)."""
        return self._text() if self._live is not None else ""

    def _text(self) -> str:
        elapsed = max(0.0, self._clock() - self._started)
        if elapsed < self._delay:
            return ""
        label = self._label() if callable(self._label) else self._label
        return f"{label} · {elapsed:.0f}s · Esc 取消"

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        line = self._text()
        if self._spinner is not None and line:
            self._spinner.update(text=Text(line, style="dim"))
            yield self._spinner
            width = options.max_width - cell_len(PREFIX) - 1
            for line in self._tail:
                yield Text(PREFIX + display_line(line, width), style="dim", no_wrap=True, overflow="crop")
        if self._typed:  # drawn even while a short wait is still hidden: typed keys echo at once
            shown = typed_tail(self._typed, options.max_width - 14)
            yield Text(f"{TYPED_LABEL}{shown}", style="dim", no_wrap=True, overflow="crop")
