"""An MCP server's stderr on its way to `<paicli home>/mcp/logs/<server>.log`: through a pipe and the redactor.

A server prints what it likes (its own configuration, a token it was given, a request with its headers), and
the log is read back by `/mcp logs`; so the child never writes the file itself. It writes into a pipe; a
reader thread masks the configured keys, the server's own `env` and `headers` values and every secret shape,
a chunk of whole lines at a time (a key block printed in one write is seen whole), and appends the result.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from typing import IO

from paicli import fsperm
from paicli.redact import Redactor

_CHUNK = 64 * 1024
_MAX_PENDING = 256 * 1024  # a "line" longer than this is written out in pieces


class RedactedLog:
    """`writer` is what the server's stderr is; `close` once the server is gone (the reader then finishes)."""

    def __init__(self, path: Path, redactor: Redactor) -> None:
        fsperm.ensure_private_dir(path.parent)
        self._file = fsperm.open_private_append(path)
        self._redactor = redactor
        read_fd, write_fd = os.pipe()
        self.writer: IO[str] = os.fdopen(write_fd, "w", encoding="utf-8", errors="replace")
        self._thread = threading.Thread(
            target=self._pump, args=(read_fd,), daemon=True, name="paicli-mcp-log"
        )
        self._thread.start()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.writer.close()

    def join(self, timeout: float) -> None:
        """Wait (bounded) until everything written so far is in the file; for tests and shutdown."""
        self._thread.join(timeout)

    def _pump(self, fd: int) -> None:
        pending = b""
        try:
            while chunk := os.read(fd, _CHUNK):
                pending += chunk
                cut = pending.rfind(b"\n") + 1 if len(pending) <= _MAX_PENDING else len(pending)
                if cut:
                    self._write(pending[:cut])
                    pending = pending[cut:]
            if pending:
                self._write(pending)
        except OSError:
            pass
        finally:
            os.close(fd)
            with contextlib.suppress(OSError):
                self._file.close()

    def _write(self, data: bytes) -> None:
        self._file.write(self._redactor.text(data.decode("utf-8", errors="replace")))
        self._file.flush()
