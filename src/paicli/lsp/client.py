"""One language server process: initialize, open/change documents, collect `publishDiagnostics`, shut down.

A reader thread parses the server's output: responses complete the request that waits for them, diagnostics
are stored per document with a counter that `wait_for` watches (no sleeping: a condition variable), and the
server's own requests get the empty answers a minimal client gives."""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import signal
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paicli.lsp.protocol import ProtocolError, encode, read_message

log = logging.getLogger(__name__)

INITIALIZE_SECONDS = 30.0
SHUTDOWN_SECONDS = 3.0


class ServerFailed(Exception):
    """The server could not be started, did not answer, or exited."""


@dataclass
class _Document:
    version: int = 0
    published: int = 0  # publishDiagnostics received for it
    published_version: int | None = None
    diagnostics: list[dict[str, Any]] = field(default_factory=list)


class LanguageServer:
    def __init__(
        self,
        command: Sequence[str],
        root: Path,
        env: Mapping[str, str],
        settings: dict[str, Any] | None = None,
    ) -> None:
        self.command = list(command)
        self.root = root
        self.env = dict(env)
        self.settings = settings
        self.process: subprocess.Popen[bytes] | None = None
        self._ids = itertools.count(1)
        self._write_lock = threading.Lock()
        self._changed = threading.Condition()
        self._answers: dict[int, dict[str, Any]] = {}
        self._documents: dict[str, _Document] = {}
        self._reader: threading.Thread | None = None
        self._closed = False

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None and not self._closed

    def start(self) -> None:
        try:
            self.process = subprocess.Popen(
                self.command,
                cwd=self.root,
                env=self.env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # Ctrl+C at the terminal is paicli's, not the server's
            )
        except OSError as error:
            raise ServerFailed(f"{self.command[0]}: {error}") from None
        self._reader = threading.Thread(target=self._read, name="paicli-lsp-reader", daemon=True)
        self._reader.start()
        uri = self.root.resolve().as_uri()
        capabilities = {
            "textDocument": {
                "synchronization": {"didSave": True, "dynamicRegistration": False},
                "publishDiagnostics": {"versionSupport": True, "relatedInformation": False},
            },
            "workspace": {"configuration": True, "workspaceFolders": True},
        }
        self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": uri,
                "rootPath": str(self.root),
                "capabilities": capabilities,
                "workspaceFolders": [{"uri": uri, "name": self.root.name or "root"}],
                "clientInfo": {"name": "paicli"},
            },
            INITIALIZE_SECONDS,
        )
        self.notify("initialized", {})
        if self.settings is not None:
            self.notify("workspace/didChangeConfiguration", {"settings": self.settings})

    def _send(self, message: dict[str, Any]) -> None:
        process = self.process
        if process is None or process.stdin is None:
            raise ServerFailed("server not started")
        data = encode({"jsonrpc": "2.0", **message})
        with self._write_lock:
            try:
                process.stdin.write(data)
                process.stdin.flush()
            except (OSError, ValueError) as error:
                raise ServerFailed(f"server closed its input: {error}") from None

    def notify(self, method: str, params: dict[str, Any] | None) -> None:
        self._send({"method": method, "params": params} if params is not None else {"method": method})

    def request(self, method: str, params: dict[str, Any] | None, timeout: float) -> Any:
        number = next(self._ids)
        self._send({"id": number, "method": method, "params": params})
        with self._changed:
            answered = self._changed.wait_for(lambda: number in self._answers or not self._reading(), timeout)
            answer = self._answers.pop(number, None)
        if not answered or answer is None:
            raise ServerFailed(f"no answer to {method} within {timeout:g} s")
        if "error" in answer:
            raise ServerFailed(f"{method}: {answer['error']}")
        return answer.get("result")

    def _reading(self) -> bool:
        reader = self._reader
        return reader is not None and reader.is_alive()

    def _read(self) -> None:
        process = self.process
        assert process is not None and process.stdout is not None
        try:
            while (message := read_message(process.stdout)) is not None:
                self._dispatch(message)
        except (ProtocolError, OSError, ValueError):
            log.warning("language server output unreadable", exc_info=True)
        finally:
            with self._changed:
                self._changed.notify_all()

    def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method is None:  # a response
            number = message.get("id")
            if isinstance(number, int):
                with self._changed:
                    self._answers[number] = message
                    self._changed.notify_all()
            return
        if "id" in message:  # the server asks something: the least a client may answer
            result: Any = None
            if method == "workspace/configuration":
                items = (message.get("params") or {}).get("items") or []
                result = [None] * len(items)
            elif method == "workspace/workspaceFolders":
                result = [{"uri": self.root.resolve().as_uri(), "name": self.root.name}]
            self._send({"id": message["id"], "result": result})
            return
        if method == "textDocument/publishDiagnostics":
            self._published(message.get("params") or {})

    def _published(self, params: dict[str, Any]) -> None:
        uri = params.get("uri")
        diagnostics = params.get("diagnostics")
        if not isinstance(uri, str) or not isinstance(diagnostics, list):
            return
        with self._changed:
            document = self._documents.setdefault(uri, _Document())
            document.published += 1
            version = params.get("version")
            document.published_version = version if isinstance(version, int) else None
            document.diagnostics = [d for d in diagnostics if isinstance(d, dict)]
            self._changed.notify_all()

    def change(self, path: Path, text: str, language_id: str) -> tuple[str, int, int]:
        """Send the file's whole new text (didOpen the first time, then didChange and didSave). Returns what
        `wait_for` needs: the document's uri, its version and the number of publications seen so far."""
        uri = path.resolve().as_uri()
        with self._changed:
            document = self._documents.setdefault(uri, _Document())
            first = document.version == 0
            document.version += 1
            version, seen = document.version, document.published
        if first:
            item = {"uri": uri, "languageId": language_id, "version": version, "text": text}
            self.notify("textDocument/didOpen", {"textDocument": item})
        else:
            self.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
            )
            self.notify("textDocument/didSave", {"textDocument": {"uri": uri}, "text": text})
        return uri, version, seen

    def wait_for(self, uri: str, version: int, seen: int, timeout: float) -> list[dict[str, Any]] | None:
        """The diagnostics published for `version` of the document (or, from a server that does not say the
        version, the first publication after the change); None when none came within `timeout`."""

        def arrived() -> bool:
            document = self._documents.get(uri)
            if document is None or document.published <= seen:
                return False
            return document.published_version is None or document.published_version >= version

        with self._changed:
            if not self._changed.wait_for(lambda: arrived() or not self._reading(), timeout) or not arrived():
                return None
            return list(self._documents[uri].diagnostics)

    def stop(self) -> None:
        """Shut down politely, then end the process (and anything it started) for sure."""
        if self._closed:
            return
        process = self.process
        if process is not None and process.poll() is None:
            try:
                self.request("shutdown", None, SHUTDOWN_SECONDS)
                self.notify("exit", None)
            except ServerFailed:
                pass
            try:
                process.wait(SHUTDOWN_SECONDS)
            except subprocess.TimeoutExpired:
                _kill_group(process)
        self._closed = True
        if process is not None:
            _kill_group(process)  # children a server started live in its session
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
            if self._reader is not None:
                self._reader.join(SHUTDOWN_SECONDS)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    try:
        process.wait(SHUTDOWN_SECONDS)
    except subprocess.TimeoutExpired:
        log.warning("language server %s did not exit", process.pid)
