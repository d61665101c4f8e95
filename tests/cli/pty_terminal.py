"""A program on a pseudo-terminal, read and typed at like a person would: the raw mode, Esc and the
interactive questions are the real thing. Shared by the pty tests of the REPL, the trust prompt and a
session held by another process."""

from __future__ import annotations

import os
import re
import select
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

CSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class PtyTerminal:
    def __init__(
        self, argv: Sequence[str], env: Mapping[str, str], cwd: Path, *, columns: int = 100, lines: int = 30
    ) -> None:
        import pty

        full = dict(
            env, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm-256color", COLUMNS=str(columns), LINES=str(lines)
        )
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # child
            os.chdir(cwd)
            os.execvpe(sys.executable, [sys.executable, *argv], full)
        self.seen = b""

    def expect(self, pattern: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while pattern not in self.plain():
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"{pattern!r} not seen in:\n{self.plain()[-2000:]}"
            ready, _, _ = select.select([self.fd], [], [], min(0.2, remaining))
            if ready:
                try:
                    self.seen += os.read(self.fd, 65536)
                except OSError:
                    break
        return self.plain()

    def plain(self) -> str:
        return CSI.sub("", self.seen.decode("utf-8", "replace"))  # whole buffer: a read may split a character

    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def drain(self, wait: float = 30.0) -> None:
        """Read until the program closes the terminal (or shows nothing for `wait` seconds)."""
        while True:
            try:
                ready, _, _ = select.select([self.fd], [], [], wait)
                chunk = os.read(self.fd, 65536) if ready else b""
            except OSError:
                return
            if not chunk:
                return
            self.seen += chunk

    def close(self) -> int:
        """The program's wait status, once it has exited; the terminal is closed."""
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return status
