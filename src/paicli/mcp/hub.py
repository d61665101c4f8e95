"""The MCP servers of a session, run on one background asyncio thread.

Nothing here blocks the caller longer than it asks: servers connect in the background, every call has a time
limit and honours the cancel token, and a server that fails, crashes or hangs only fails its own calls. The
SDK (about 0.9 s of imports) is imported on that thread, never on the path to the prompt.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from paicli.cancel import CancelToken
from paicli.mcp.cache import Listing, ListingCache
from paicli.mcp.config import ServerConfig
from paicli.mcp.errlog import RedactedLog
from paicli.mcp.naming import server_file_name
from paicli.redact import Redactor

log = logging.getLogger(__name__)
Status = Literal["starting", "connected", "failed", "disabled"]
CONNECT_TIMEOUT = 30.0
LOG_TAIL_CHARS = 4000


class McpCallError(Exception):
    """A call that could not be made or did not finish; the message is meant for the model and the user."""


@dataclass
class ServerState:
    config: ServerConfig
    status: Status = "starting"
    error: str = ""
    live: Listing | None = None
    client: Any = None
    stop: asyncio.Event | None = None
    settled: threading.Event = field(default_factory=threading.Event)
    generation: int = 0


Notify = Callable[[str], None]


class McpHub:
    def __init__(
        self,
        servers: Mapping[str, ServerConfig],
        home: Path,
        *,
        timeout: float = 60.0,
        disabled: set[str] | frozenset[str] = frozenset(),
        notify: Notify | None = None,
        on_listing: Callable[[str], None] | None = None,
        connect_timeout: float = CONNECT_TIMEOUT,
        secrets: Iterable[str] = (),
    ) -> None:
        """`secrets`: the configured keys, masked in the servers' logs (with each server's own env and
        header values)."""
        self.home = home
        self.secrets = tuple(secrets)
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.cache = ListingCache(home)
        self.log_dir = home / "mcp" / "logs"
        self._notify = notify or (lambda _text: None)
        self._on_listing = on_listing or (lambda _name: None)
        self.states: dict[str, ServerState] = {}
        for name in sorted(servers):
            state = ServerState(servers[name])
            if name in disabled:
                state.status = "disabled"
                state.settled.set()
            self.states[name] = state
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._start_lock = threading.Lock()
        self._closed = False

    # ---- lifecycle ----------------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the loop thread and every enabled server; idempotent, safe from any thread."""
        with self._start_lock:
            if self._thread is not None or not self.states or self._closed:
                return
            self._thread = threading.Thread(target=self._run_loop, name="paicli-mcp", daemon=True)
            self._thread.start()
            self._ready.wait(timeout=10)
            for state in self.states.values():
                if state.status != "disabled":
                    self._launch(state)

    def _run_loop(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    def _launch(self, state: ServerState) -> None:
        if self._loop is None:
            return
        state.generation += 1
        state.status, state.error = "starting", ""
        state.settled.clear()
        asyncio.run_coroutine_threadsafe(self._serve(state, state.generation), self._loop)

    def wait_settled(self, names: list[str], timeout: float) -> None:
        """Wait (bounded) until each named server is connected or has failed."""
        deadline = time.monotonic() + timeout
        for name in names:
            state = self.states.get(name)
            if state is not None:
                state.settled.wait(max(0.0, deadline - time.monotonic()))

    def close(self, timeout: float = 5.0) -> None:
        """End every server (stdio processes are terminated by the SDK's transport) and the loop thread."""
        if self._closed:
            return
        self._closed = True
        loop = self._loop
        if loop is None:
            return
        for state in self.states.values():
            if state.stop is not None:
                loop.call_soon_threadsafe(state.stop.set)
        deadline = time.monotonic() + timeout
        for state in self.states.values():
            while state.client is not None and time.monotonic() < deadline:
                time.sleep(0.02)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=max(0.1, deadline - time.monotonic()))

    # ---- one server ---------------------------------------------------------------------------------------

    def _errlog(self, config: ServerConfig) -> RedactedLog:
        own = [value for _, value in (*config.env, *config.headers)]
        path = self.log_dir / f"{server_file_name(config.name)}.log"
        return RedactedLog(path, Redactor([*self.secrets, *own]))

    def log_tail(self, name: str) -> str:
        try:
            text = (self.log_dir / f"{server_file_name(name)}.log").read_text(
                encoding="utf-8", errors="replace"
            )
        except OSError:
            return ""
        return text[-LOG_TAIL_CHARS:]

    async def _serve(self, state: ServerState, generation: int) -> None:
        state.stop = asyncio.Event()
        errlog = self._errlog(state.config)
        # The connect deadline cancels this task from outside: a timeout scope around entering the transport
        # (asyncio.wait_for runs it in another task, anyio.fail_after would be left before the transport's own
        # scopes) breaks anyio's rule that scopes are left in the task and order they were entered.
        task = asyncio.current_task()
        deadline_hit = False

        def deadline() -> None:
            nonlocal deadline_hit
            if state.client is None and task is not None:
                deadline_hit = True
                task.cancel()

        watchdog = asyncio.get_running_loop().call_later(self.connect_timeout, deadline)
        try:
            async with contextlib.AsyncExitStack() as stack:
                client = await self._connect(state.config, errlog.writer, stack)
                listing = await _list_everything(client)
                watchdog.cancel()
                if generation != state.generation:
                    return
                state.client, state.live, state.status = client, listing, "connected"
                state.settled.set()
                with contextlib.suppress(Exception):
                    self.cache.store(state.config, listing)
                self._on_listing(state.config.name)
                await state.stop.wait()
        except asyncio.CancelledError:
            if not deadline_hit:
                raise
            self._failed(state, generation, TimeoutError())
        except BaseException as error:
            self._failed(state, generation, error)
        finally:
            watchdog.cancel()
            if generation == state.generation:
                state.client = None
                state.settled.set()
            errlog.close()

    def _failed(self, state: ServerState, generation: int, error: BaseException) -> None:
        if generation == state.generation and not self._closed:
            name = state.config.name
            state.status, state.error = "failed", _reason(error)
            self._notify(f"⚠️ MCP 服务器 {name} 不可用: {state.error}（/mcp logs {name} 查看输出）")

    async def _connect(self, config: ServerConfig, errlog: IO[str], stack: contextlib.AsyncExitStack) -> Any:
        from mcp import Client, StdioServerParameters

        if config.url:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            http = await stack.enter_async_context(create_mcp_http_client(headers=dict(config.headers)))
            target: Any = streamable_http_client(config.url, http_client=http)
        else:
            target = StdioServerParameters(
                command=config.command or "",
                args=list(config.args),
                env=dict(config.env) or None,
                cwd=config.cwd,
            )
            from mcp.client.stdio import stdio_client

            target = stdio_client(target, errlog=errlog)  # type: ignore[arg-type]
        return await stack.enter_async_context(Client(target))

    # ---- calls from the session's threads ------------------------------------------------------------------

    def _submit(self, coro: Any, cancel: CancelToken | None, timeout: float, what: str) -> Any:
        if self._loop is None or self._closed:
            coro.close()
            raise McpCallError("MCP 未启动")
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        deadline = time.monotonic() + timeout
        while True:
            try:
                return future.result(timeout=0.05)
            except FutureTimeout:
                pass
            if cancel is not None and cancel.cancelled:
                future.cancel()
                raise McpCallError("已取消")
            if time.monotonic() >= deadline:
                future.cancel()
                raise McpCallError(f"{what} 超时（{timeout:g} 秒内没有回应）")

    def _connected(self, server: str) -> ServerState:
        self.start()  # a call before the front end started the servers starts them
        state = self.states.get(server)
        if state is None:
            raise McpCallError(f"没有名为 {server} 的 MCP 服务器")
        if state.status == "disabled":
            raise McpCallError(f"MCP 服务器 {server} 已停用（/mcp enable {server} 重新启用）")
        if state.status == "starting":
            state.settled.wait(min(self.timeout, CONNECT_TIMEOUT))
        if state.client is None:
            reason = state.error or "尚未连接"
            raise McpCallError(f"MCP 服务器 {server} 不可用: {reason}")
        return state

    def call_tool(
        self, server: str, tool: str, arguments: dict[str, Any], cancel: CancelToken | None = None
    ) -> tuple[list[dict[str, Any]], Any, bool]:
        """(content blocks as dicts, structured content, is_error); McpCallError when no answer came."""
        state = self._connected(server)

        async def call() -> Any:
            return await state.client.call_tool(tool, arguments)

        try:
            result = self._submit(call(), cancel, self.timeout, f"调用 {server}/{tool}")
        except McpCallError:
            raise
        except Exception as error:
            self._mark_broken(state, error)
            raise McpCallError(f"MCP 服务器 {server} 调用失败: {_reason(error)}") from None
        blocks = [block.model_dump(by_alias=True, exclude_none=True) for block in result.content]
        return blocks, result.structured_content, bool(result.is_error)

    def read_resource(self, server: str, uri: str, cancel: CancelToken | None = None) -> list[dict[str, Any]]:
        state = self._connected(server)

        async def read() -> Any:
            return await state.client.read_resource(uri)

        try:
            result = self._submit(read(), cancel, self.timeout, f"读取 {server} 的资源")
        except McpCallError:
            raise
        except Exception as error:
            raise McpCallError(f"读取资源失败: {_reason(error)}") from None
        return [item.model_dump(by_alias=True, exclude_none=True) for item in result.contents]

    def _mark_broken(self, state: ServerState, error: BaseException) -> None:
        """A transport that died (the server crashed) fails every later call until /mcp restart."""
        words = f"{type(error).__name__} {error}".lower()
        if "closed" in words or "endofstream" in words or "broken" in words:
            state.status, state.error, state.client = "failed", f"连接已断开（{_reason(error)}）", None
            self._notify(f"⚠️ MCP 服务器 {state.config.name} 已断开；/mcp restart {state.config.name} 重启")

    # ---- management (/mcp) ------------------------------------------------------------------------------------

    def listing(self, server: str) -> Listing | None:
        """The live listing when connected, else the cached one (what the session started with)."""
        state = self.states.get(server)
        if state is None:
            return None
        return state.live if state.live is not None else self.cache.load(state.config)

    def restart(self, server: str) -> None:
        state = self.states[server]
        self._stop(state)
        if self._thread is None:
            self.start()
        self._launch(state)

    def disable(self, server: str) -> None:
        state = self.states[server]
        self._stop(state)
        state.generation += 1
        state.status, state.error, state.client = "disabled", "", None
        state.settled.set()

    def _stop(self, state: ServerState) -> None:
        if self._loop is not None and state.stop is not None:
            self._loop.call_soon_threadsafe(state.stop.set)


def _hints(annotations: Any) -> dict[str, Any]:
    """The tool's annotations under their MCP names (None when not given), as the listing cache keeps them."""
    fields = {
        "readOnlyHint": "read_only_hint",
        "destructiveHint": "destructive_hint",
        "idempotentHint": "idempotent_hint",
        "openWorldHint": "open_world_hint",
    }
    return {key: getattr(annotations, attr, None) if annotations else None for key, attr in fields.items()}


async def _list_everything(client: Any) -> Listing:
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(50):  # a server paging forever must not hold the start
        page = await client.list_tools(cursor=cursor)
        for tool in page.tools:
            annotations = tool.annotations
            tools.append(
                {
                    "name": tool.name,
                    "description": tool.description or "",
                    "inputSchema": tool.input_schema,
                    **_hints(annotations),
                }
            )
        cursor = page.next_cursor
        if not cursor:
            break
    capabilities = client.server_capabilities
    resources: list[dict[str, Any]] = []
    prompts: list[dict[str, Any]] = []
    if getattr(capabilities, "resources", None) is not None:
        with contextlib.suppress(Exception):
            listed = await client.list_resources()
            resources = [
                {
                    "uri": str(item.uri),
                    "name": item.name,
                    "description": item.description or "",
                    "mimeType": item.mime_type or "",
                }
                for item in listed.resources
            ]
    if getattr(capabilities, "prompts", None) is not None:
        with contextlib.suppress(Exception):
            listed_prompts = await client.list_prompts()
            prompts = [
                {"name": item.name, "description": item.description or ""} for item in listed_prompts.prompts
            ]
    return Listing(tuple(tools), tuple(resources), tuple(prompts))


def _reason(error: BaseException) -> str:
    inner = getattr(error, "exceptions", None)  # an anyio task group's ExceptionGroup
    if isinstance(inner, (list, tuple)) and inner and isinstance(inner[0], BaseException):
        return _reason(inner[0])
    if isinstance(error, (asyncio.TimeoutError, TimeoutError)):
        return "连接超时"
    text = str(error).strip().splitlines()[0][:200] if str(error).strip() else ""
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
