"""The language servers of one session. A write marks its file; before the next model call `collect` sends the
marked files to their servers (starting a server the first time its language is written), waits for their
diagnostics and says what changed. A language with no server costs one dictionary look-up per write."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from paicli.config.code_values import LspValues
from paicli.config.keys import Keys
from paicli.config.knobs_code import LSP_ENABLED
from paicli.lsp.client import LanguageServer, ServerFailed
from paicli.lsp.diagnostics import Diagnostic, Report, from_lsp, report
from paicli.lsp.servers import KINDS, ServerKind, ServerPlan, kind_for, plan, server_env

log = logging.getLogger(__name__)

MAX_FILE_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True)
class Injection:
    text: str  # the user message for the model
    summary: str  # the line for the person


class LspSession:
    def __init__(
        self,
        root: Path,
        values: LspValues,
        env: Mapping[str, str],
        on_failure: Callable[[str], None] | None = None,
    ) -> None:
        self.root = root.resolve()
        self.values = values
        self.env = dict(env)
        self.on_failure = on_failure
        self._lock = threading.Lock()
        self._plans: dict[str, ServerPlan] = {}
        self._servers: dict[str, LanguageServer] = {}
        self._failed: dict[str, str] = {}
        self._pending: dict[Path, ServerKind] = {}
        self._told: dict[str, frozenset[tuple[int, int, str]]] = {}
        self._closed = False

    def _plan(self, kind: ServerKind) -> ServerPlan:
        found = self._plans.get(kind.language)
        if found is None:
            found = plan(kind, self.values, self.env.get("PATH"))
            self._plans[kind.language] = found
        return found

    def written(self, path: Path) -> None:
        """A tool wrote `path` (absolute, inside the project)."""
        if not self.values.enabled or self._closed:
            return
        kind = kind_for(path)
        if kind is None:
            return
        with self._lock:
            if self._plan(kind).command is None or kind.language in self._failed:
                return
            self._pending[path] = kind

    def collect(self, timeout: float | None = None) -> Injection | None:
        """Diagnostics of the files written since the last call that the model has not been told yet."""
        with self._lock:
            pending, self._pending = self._pending, {}
        if not pending or self._closed:
            return None
        deadline = time.monotonic() + (self.values.wait_seconds if timeout is None else timeout)
        waits = []
        for path, kind in pending.items():
            sent = self._send(path, kind)
            if sent is not None:
                waits.append((path, *sent))
        fresh: dict[str, list[Diagnostic]] = {}
        for path, server, uri, version, seen in waits:
            left = max(0.0, deadline - time.monotonic())
            raw = server.wait_for(uri, version, seen, left)
            if raw is not None:
                fresh[self._relative(path)] = [from_lsp(item) for item in raw]
        result: Report = report(fresh, self._told, self.values.max_diagnostics)
        self._told = result.told
        return Injection(result.text, result.summary) if result.text else None

    def note(self) -> tuple[str, str] | None:
        """`collect` as the loop takes it (LoopOptions.diagnostics): text for the model, line for the person."""
        found = self.collect()
        return None if found is None else (found.text, found.summary)

    def _send(self, path: Path, kind: ServerKind) -> tuple[LanguageServer, str, int, int] | None:
        server = self._server(kind)
        if server is None:
            return None
        try:
            data = path.read_bytes()[: MAX_FILE_BYTES + 1]
        except OSError:
            return None
        if len(data) > MAX_FILE_BYTES or b"\0" in data[:8192]:
            return None
        language_id = kind.language_ids.get(path.suffix.lower(), kind.language)
        try:
            return (server, *server.change(path, data.decode("utf-8", "replace"), language_id))
        except ServerFailed as error:
            self._fail(kind, str(error))
            return None

    def _server(self, kind: ServerKind) -> LanguageServer | None:
        server = self._servers.get(kind.language)
        if server is not None and server.alive:
            return server
        if kind.language in self._failed:
            return None
        command = self._plan(kind).command
        if command is None:
            return None
        server = LanguageServer(command, self.root, self.env, kind.settings)
        self._servers[kind.language] = server
        try:
            server.start()
        except ServerFailed as error:
            self._fail(kind, str(error))
            return None
        return server

    def _fail(self, kind: ServerKind, reason: str) -> None:
        self._failed[kind.language] = reason
        server = self._servers.pop(kind.language, None)
        if server is not None:
            server.stop()
        log.warning("language server for %s failed: %s", kind.language, reason)
        if self.on_failure is not None:
            self.on_failure(f"⚠️ {kind.language} 语言服务器不可用，本会话不再提供它的诊断：{reason}")

    def _relative(self, path: Path) -> str:
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def status_lines(self) -> list[str]:
        """For /config: each language's server and whether it runs."""
        if not self.values.enabled:
            return [f"语言服务器: 已关闭（{LSP_ENABLED.key}=false）"]
        lines = []
        for kind in KINDS:
            found = self._plan(kind)
            server = self._servers.get(kind.language)
            if found.command is None:
                state = "未安装（写入这类文件时不做诊断）"
            elif kind.language in self._failed:
                state = f"{found.command[0]} 启动失败：{self._failed[kind.language]}"
            elif server is not None and server.alive:
                state = f"{Path(found.command[0]).name} 运行中（pid {server.pid}）"
            else:
                state = f"{Path(found.command[0]).name} 可用，首次写入该语言文件时启动"
            lines.append(f"语言服务器 {kind.language}: {state}")
        return lines

    def pids(self) -> list[int]:
        return [pid for server in self._servers.values() if (pid := server.pid) is not None]

    def close(self) -> None:
        self._closed = True
        servers, self._servers = dict(self._servers), {}
        for server in servers.values():
            server.stop()


def open_lsp(root: Path, values: LspValues, keys: Keys, on_failure: Callable[[str], None]) -> LspSession:
    """The session's language servers as the composition root loads them at the first write; no server starts
    before a diagnostic is wanted, and none gets a configured key (the environment a command nobody approved
    gets)."""
    return LspSession(root, values, server_env(keys), on_failure)
