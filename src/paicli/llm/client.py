"""The OpenAI-compatible Chat Completions client: streaming, tool-call assembly, retries, cancel.

The `openai` package is imported on the first call only, so building a client at start-up stays cheap.
Each attempt streams on a daemon worker thread while the caller's thread assembles chunks and runs the
`on_delta` callback; a cancel wakes the caller at once and closes the live response behind it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import random
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from paicli.cancel import Cancelled, CancelToken
from paicli.llm.failures import Failure, classify, final_message, rejects_usage_option
from paicli.llm.messages import ChatResponse, Message
from paicli.llm.protocol import DeltaCallback, LLMError
from paicli.llm.stream import StreamAssembler
from paicli.redact import mask_secret

log = logging.getLogger(__name__)

NO_KEY_PLACEHOLDER = "sk-no-key-required"  # the SDK insists on a key; local servers ignore this one


@dataclass(frozen=True)
class ClientOptions:
    base_url: str
    api_key: str | None = None
    connect_timeout: float = 60.0
    read_timeout: float = 300.0
    write_timeout: float = 60.0
    call_timeout: float = 600.0  # a whole attempt, however slowly it trickles
    max_retries: int = 3
    backoff_base: float = 0.5
    backoff_cap: float = 20.0
    retry_after_cap: float = 30.0
    include_reasoning_in_wire: bool = False
    extra_headers: tuple[tuple[str, str], ...] = ()

    def __repr__(self) -> str:
        masked = "None" if not self.api_key else "'***'"
        return f"ClientOptions(base_url={self.base_url!r}, api_key={masked}, max_retries={self.max_retries})"


class _Connection:
    """The lazily built SDK client, shared by every model view of one endpoint."""

    def __init__(self, options: ClientOptions) -> None:
        self.options = options
        self._sdk: Any = None
        self._lock = threading.Lock()
        self.usage_option_rejected = False

    def sdk(self) -> Any:
        with self._lock:
            if self._sdk is None:
                import openai

                opts = self.options
                timeout = openai.Timeout(
                    opts.read_timeout,
                    connect=opts.connect_timeout,
                    read=opts.read_timeout,
                    write=opts.write_timeout,
                    pool=opts.connect_timeout,
                )
                self._sdk = openai.OpenAI(
                    api_key=opts.api_key or NO_KEY_PLACEHOLDER,
                    base_url=opts.base_url,
                    timeout=timeout,
                    max_retries=0,
                    default_headers=dict(opts.extra_headers) or None,
                )
            return self._sdk


class _StreamHandle:
    """Lets the caller close the worker's response, whether it already exists or arrives later."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stream: Any = None
        self._abandoned = False

    def attach(self, stream: Any) -> bool:
        with self._lock:
            if not self._abandoned:
                self._stream = stream
                return True
        _close_quietly(stream)
        return False

    def abandon(self) -> None:
        with self._lock:
            self._abandoned = True
            stream, self._stream = self._stream, None
        if stream is not None:
            _close_quietly(stream)

    @property
    def abandoned(self) -> bool:
        return self._abandoned


def _close_quietly(stream: Any) -> None:
    # Closing a response from another thread does not wake a read blocked in recv(); shutting the
    # socket down does, so the worker thread ends too instead of lingering until the read timeout.
    with contextlib.suppress(Exception):
        network = stream.response.extensions.get("network_stream")
        sock = network.get_extra_info("socket") if network is not None else None
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(Exception):
        stream.close()


_CANCEL = ("cancel", None)
_Event = tuple[str, Any]


class OpenAIChatClient:
    """`LLMClient` over any OpenAI-compatible endpoint. Never logs or prints the key."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        model: str,
        *,
        connect_timeout: float = 60.0,
        read_timeout: float = 300.0,
        max_retries: int = 3,
        backoff_base: float = 0.5,
        include_reasoning_in_wire: bool = False,
        options: ClientOptions | None = None,
        connection: _Connection | None = None,
        rng: Callable[[], float] = random.random,
    ) -> None:
        if options is None:
            options = ClientOptions(
                base_url=base_url,
                api_key=api_key,
                connect_timeout=connect_timeout,
                read_timeout=read_timeout,
                max_retries=max(0, max_retries),
                backoff_base=max(0.0, backoff_base),
                include_reasoning_in_wire=include_reasoning_in_wire,
            )
        self._options = options
        self._connection = connection or _Connection(options)
        self._model = model
        self._rng = rng
        # Told before each retry pause: (retry number, retries allowed, seconds until it, cause). The front end
        # shows it, so a retried call is not a silent growing timer.
        self.on_retry: Callable[[int, int, float, str], None] | None = None

    @classmethod
    def from_options(cls, options: ClientOptions, model: str) -> OpenAIChatClient:
        return cls(options.base_url, options.api_key, model, options=options)

    @property
    def model(self) -> str:
        return self._model

    @property
    def options(self) -> ClientOptions:
        return self._options

    def __repr__(self) -> str:
        return f"OpenAIChatClient(model={self._model!r}, base_url={self._options.base_url!r})"

    def with_model(self, model: str) -> OpenAIChatClient:
        return OpenAIChatClient(
            self._options.base_url,
            self._options.api_key,
            model,
            options=self._options,
            connection=self._connection,
            rng=self._rng,
        )

    # ------------------------------------------------------------------ request

    def request_params(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | None = None,
    ) -> dict[str, Any]:
        with_reasoning = self._options.include_reasoning_in_wire
        params: dict[str, Any] = {
            "model": self._model,
            "messages": [
                m.to_wire(include_reasoning=with_reasoning and bool(m.tool_calls)) for m in messages
            ],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools:
            params["tools"] = [dict(tool) for tool in tools]
            if tool_choice:
                params["tool_choice"] = tool_choice
        return params

    def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None = None,
        *,
        on_delta: DeltaCallback | None = None,
        cancel: CancelToken | None = None,
        tool_choice: str | None = None,
    ) -> ChatResponse:
        params = self.request_params(messages, tools, tool_choice)
        if self._connection.usage_option_rejected:
            params.pop("stream_options", None)
        attempts = self._options.max_retries + 1
        attempt = 1
        while True:
            if cancel is not None:
                cancel.raise_if_cancelled()
            outcome = self._attempt(params, on_delta, cancel)
            if isinstance(outcome, ChatResponse):
                return outcome
            failure, streamed = outcome
            if rejects_usage_option(failure, params) and not streamed:
                # An older server that refuses stream_options: stream without usage rather than fail.
                self._connection.usage_option_rejected = True
                params.pop("stream_options", None)
                continue
            if streamed or not failure.retryable or attempt >= attempts:
                message = final_message(failure, attempt, streamed)
                if self._options.api_key:
                    message = mask_secret(message, self._options.api_key, "***")
                raise LLMError(message, failure.status, failure.retryable)
            delay = self._backoff(attempt, failure.retry_after)
            self._tell_retry(attempt, attempts - 1, delay, failure)
            self._pause(delay, cancel)
            attempt += 1

    def _tell_retry(self, number: int, retries: int, delay: float, failure: Failure) -> None:
        listener = self.on_retry
        if listener is None:
            return
        cause = (
            f"HTTP {failure.status}" if failure.status else (failure.message.splitlines() or ["连接失败"])[0]
        )
        try:
            listener(number, retries, delay, cause)
        except Exception:  # a display hook must never break the call
            log.debug("retry listener failed", exc_info=True)

    def prewarm(self) -> None:
        """Import the SDK and build the HTTP client on a daemon thread, so the first chat starts sooner."""
        threading.Thread(target=self._connection.sdk, name="paicli-llm-prewarm", daemon=True).start()

    def _pause(self, seconds: float, cancel: CancelToken | None) -> None:
        if cancel is None:
            time.sleep(seconds)
        elif cancel.wait(seconds):
            raise Cancelled()

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        opts = self._options
        if retry_after is not None:
            return min(max(0.0, retry_after), opts.retry_after_cap)
        exponential = min(opts.backoff_cap, opts.backoff_base * (2.0 ** (attempt - 1)))
        return exponential * (0.5 + 0.5 * self._rng())

    # ------------------------------------------------------------------ one attempt

    def _attempt(
        self, params: dict[str, Any], on_delta: DeltaCallback | None, cancel: CancelToken | None
    ) -> ChatResponse | tuple[Failure, bool]:
        events: queue.SimpleQueue[_Event] = queue.SimpleQueue()
        handle = _StreamHandle()
        unregister: Callable[[], None] = lambda: None  # noqa: E731
        if cancel is not None:

            def on_cancel() -> None:
                events.put(_CANCEL)
                handle.abandon()

            unregister = cancel.on_cancel(on_cancel)
        worker = threading.Thread(
            target=self._pump, args=(params, events, handle), name="paicli-llm-stream", daemon=True
        )
        worker.start()
        assembler = StreamAssembler()
        deadline = time.monotonic() + self._options.call_timeout
        try:
            while True:
                try:
                    kind, payload = events.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    limit = f"{self._options.call_timeout:g}"
                    stalled = Failure(f"调用 {self._options.base_url} 超过 {limit} 秒仍未完成", None, True)
                    return stalled, assembler.has_output
                if kind == "chunk":
                    for delta in assembler.feed(payload):
                        if on_delta is not None:
                            on_delta(delta)
                elif kind == "done":
                    if not assembler.finished:  # cut before finish_reason / [DONE], or an empty 200
                        return _unfinished(assembler.has_output), assembler.has_output
                    return assembler.result()
                elif kind == "error":
                    return classify(payload, self._model, self._options.base_url), assembler.has_output
                else:
                    raise Cancelled()
        finally:
            unregister()
            handle.abandon()

    def _pump(self, params: dict[str, Any], events: queue.SimpleQueue[_Event], handle: _StreamHandle) -> None:
        try:
            stream = self._connection.sdk().chat.completions.create(**params)
            if not handle.attach(stream):
                return
            whole = _whole_json_reply(stream)
            if whole is not None:
                events.put(("chunk", whole))
                events.put(("done", None))
                return
            for chunk in stream:
                if handle.abandoned:
                    return
                events.put(("chunk", _chunk_dict(chunk)))
            events.put(("done", None))
        except BaseException as exc:  # the caller classifies; a daemon thread must not die loudly
            if not handle.abandoned:
                events.put(("error", exc))

    # ------------------------------------------------------------------ errors


class EndpointSettings(Protocol):
    """What a client needs from `paicli.config.settings.Settings` (structural, to keep llm/ free of config/)."""

    @property
    def base_url(self) -> str: ...
    @property
    def api_key(self) -> str | None: ...
    @property
    def model(self) -> str: ...
    @property
    def reasoning_in_wire(self) -> bool: ...
    @property
    def connect_timeout(self) -> float: ...
    @property
    def read_timeout(self) -> float: ...
    @property
    def call_timeout(self) -> float: ...
    @property
    def max_retries(self) -> int: ...
    @property
    def retry_backoff(self) -> float: ...


def client_from_settings(settings: EndpointSettings, model: str | None = None) -> OpenAIChatClient:
    """The session client (or, with `model`, one for another model on the same endpoint)."""
    options = ClientOptions(
        base_url=settings.base_url,
        api_key=settings.api_key,
        connect_timeout=settings.connect_timeout,
        read_timeout=settings.read_timeout,
        call_timeout=settings.call_timeout,
        max_retries=settings.max_retries,
        backoff_base=settings.retry_backoff,
        include_reasoning_in_wire=settings.reasoning_in_wire,
    )
    return OpenAIChatClient.from_options(options, model or settings.model)


def _unfinished(has_output: bool) -> Failure:
    if has_output:
        return Failure("模型的响应流在结束标记（finish_reason）之前就断开了，回答不完整", None, True)
    return Failure("模型服务返回了空响应（HTTP 200 但没有任何内容）", None, True)


def _whole_json_reply(stream: Any) -> dict[str, Any] | None:
    """Some OpenAI-compatible servers ignore `stream: true` and send one JSON completion; without this the
    SSE reader finds no events in it and the answer would silently be empty."""
    response = getattr(stream, "response", None)
    headers = getattr(response, "headers", None)
    content_type = str(headers.get("content-type", "")) if headers is not None else ""
    if response is None or "json" not in content_type.lower():
        return None
    data = json.loads(response.read())
    if not isinstance(data, dict):
        raise ValueError(f"服务端返回了无法识别的 JSON: {str(data)[:200]}")
    if "choices" not in data and data.get("error"):
        error = data["error"]
        message = error.get("message") if isinstance(error, dict) else error
        raise ValueError(f"服务端返回错误: {str(message)[:300]}")
    return data


def _chunk_dict(chunk: Any) -> dict[str, Any]:
    if isinstance(chunk, dict):
        return chunk
    to_dict = getattr(chunk, "to_dict", None)
    if callable(to_dict):
        result: dict[str, Any] = to_dict()
        return result
    dumped: dict[str, Any] = chunk.model_dump()
    return dumped
