"""One streamed attempt of a chat call.

The attempt streams on a daemon worker thread while the caller's thread assembles chunks and runs the
`on_delta` callback; a cancel wakes the caller at once and closes the live response behind it.
"""

from __future__ import annotations

import contextlib
import json
import queue
import socket
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from paicli.cancel import Cancelled, CancelToken
from paicli.llm.connection import Connection
from paicli.llm.messages import ChatResponse
from paicli.llm.protocol import DeltaCallback
from paicli.llm.stream import StreamAssembler
from paicli.llm.wire import ChatRequest, ResponseTooLarge, open_stream

if TYPE_CHECKING:
    from paicli.llm.failures import Failure  # loaded with the first failure: a call that succeeds needs none

_CANCEL = ("cancel", None)
_Event = tuple[str, Any]


def stream_attempt(
    connection: Connection,
    request: ChatRequest,
    model: str,
    on_delta: DeltaCallback | None,
    cancel: CancelToken | None,
) -> ChatResponse | tuple[Failure, bool]:
    """One streamed call: the reply, or the failure and whether any output had already streamed."""
    events: queue.SimpleQueue[_Event] = queue.SimpleQueue()
    handle = _StreamHandle()
    unregister: Callable[[], None] = lambda: None  # noqa: E731
    if cancel is not None:

        def on_cancel() -> None:
            events.put(_CANCEL)
            handle.abandon()

        unregister = cancel.on_cancel(on_cancel)
    worker = threading.Thread(
        target=_pump, args=(connection, request, events, handle), name="paicli-llm-stream", daemon=True
    )
    worker.start()
    assembler = StreamAssembler()
    deadline = time.monotonic() + connection.options.call_timeout
    try:
        while True:
            try:
                kind, payload = events.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                from paicli.llm.failures import Failure

                limit = f"{connection.options.call_timeout:g}"
                stalled = Failure(f"调用 {connection.options.base_url} 超过 {limit} 秒仍未完成", None, True)
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
                from paicli.llm.failures import Failure, classify

                if isinstance(payload, ResponseTooLarge):  # retrying would stream it all again
                    return Failure(str(payload), None, False), assembler.has_output
                return classify(
                    payload, model, connection.options.base_url, connection.options.key_origin
                ), assembler.has_output
            else:
                raise Cancelled()
    finally:
        unregister()
        handle.abandon()


def _pump(
    connection: Connection, request: ChatRequest, events: queue.SimpleQueue[_Event], handle: _StreamHandle
) -> None:
    try:
        stream = open_stream(connection.sdk(), request, connection.options.max_response_bytes)
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


def _unfinished(has_output: bool) -> Failure:
    from paicli.llm.failures import Failure

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
