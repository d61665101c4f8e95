"""A recorded terminal for REPL tests: typing waits for what the prompt draws, never for a guessed delay."""

from __future__ import annotations

import io
import re
import threading
from pathlib import Path

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput
from prompt_toolkit.output.vt100 import Vt100_Output
from rich.console import Console

from paicli.cli.app_backend import AppBackend
from paicli.cli.repl import run_repl
from paicli.testing.fake_backend import FakeBackend, recording_table


def pause(seconds: float) -> None:
    threading.Event().wait(seconds)


def redrawn_after(screen: io.StringIO, inp: PipeInput, keys: str) -> None:
    """Send `keys` and wait until the prompt draws anything: the key (a lone Esc included) was handled."""
    before = len(screen.getvalue())
    inp.send_text(keys)
    for _ in range(600):
        if len(screen.getvalue()) > before:
            return
        pause(0.05)
    raise AssertionError(f"nothing drawn after {keys!r}")


def run_on_screen(
    backend: FakeBackend | AppBackend,
    pipe: PipeInput,
    tmp_path: Path,
    feeder: object,
    console: Console | None = None,
) -> io.StringIO:
    """Run the REPL drawing on a recorded 20x80 terminal while `feeder(inp, screen)` types on another thread;
    what the REPL prints goes to `console` (default: a private buffer)."""
    screen = io.StringIO()
    thread = threading.Thread(target=feeder, args=(pipe, screen), daemon=True)
    thread.start()
    run_repl(
        backend,  # type: ignore[arg-type]
        table=recording_table() if isinstance(backend, FakeBackend) else None,
        input=pipe,
        output=Vt100_Output(screen, lambda: Size(rows=20, columns=80), term="xterm"),
        interactive=True,
        history_file=tmp_path / "h",
        console=console or Console(file=io.StringIO(), force_terminal=False, width=120),
    )
    thread.join(10)
    return screen


def shown_after(screen: io.StringIO, inp: PipeInput, keys: str, expected: str) -> None:
    """Send `keys`, then wait until the screen draws `expected` once more: the event, not a guessed delay."""
    before = plain_screen(screen.getvalue()).count(expected)
    inp.send_text(keys)
    for _ in range(600):
        if plain_screen(screen.getvalue()).count(expected) > before:
            return
        pause(0.05)
    raise AssertionError(f"{expected!r} never drawn after {keys!r}:\n{plain_screen(screen.getvalue())}")


def plain_screen(drawn: str) -> str:
    """The terminal text without escape sequences; a cursor-forward becomes the spaces it skips."""
    drawn = re.sub(r"\x1b\[(\d*)C", lambda m: " " * int(m.group(1) or 1), drawn)
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn)
