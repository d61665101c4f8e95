"""The OpenAI-compatible Chat Completions client: the request, retries and their pauses, cancel.

One attempt (streaming, tool-call assembly, cancel mid-stream) is `attempt.py`; the endpoint's options and
its lazily built SDK client are `connection.py`.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from paicli.cancel import Cancelled, CancelToken, current_token
from paicli.llm.attempt import stream_attempt
from paicli.llm.connection import ClientOptions, Connection
from paicli.llm.messages import ChatResponse, Message
from paicli.llm.notices import RetryListener, current_retry_listener
from paicli.llm.protocol import DeltaCallback, LLMError
from paicli.llm.wire import ChatRequest
from paicli.redact import mask_secret

if TYPE_CHECKING:
    from paicli.llm.failures import Failure

__all__ = ["ClientOptions", "EndpointSettings", "OpenAIChatClient", "client_from_settings"]

log = logging.getLogger(__name__)


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
        connection: Connection | None = None,
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
        self._connection = connection or Connection(options)
        self._model = model
        self._rng = rng

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

    def prewarm(self) -> None:
        """Import the SDK and build the HTTP client on a daemon thread, so the first chat starts sooner."""
        threading.Thread(target=self._connection.sdk, name="paicli-llm-prewarm", daemon=True).start()

    # ------------------------------------------------------------------ request

    def request(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | None = None,
    ) -> ChatRequest:
        head: dict[str, Any] = {
            "model": self._model,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if self._options.request_fields_json:  # the reasoning effort (config/effort.py)
            head.update(json.loads(self._options.request_fields_json))
        if tools:
            head["tools"] = [dict(tool) for tool in tools]
            if tool_choice:
                head["tool_choice"] = tool_choice
        return ChatRequest.build(head, messages, self._options.include_reasoning_in_wire)

    def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None = None,
        *,
        on_delta: DeltaCallback | None = None,
        cancel: CancelToken | None = None,
        tool_choice: str | None = None,
        max_tokens: int | None = None,
    ) -> ChatResponse:
        request = self.request(messages, tools, tool_choice)
        params = request.head
        if cancel is None:  # a side call run in a cancel_scope (background extraction yielding to a turn)
            cancel = current_token()
        caps = [cap for cap in (max_tokens, self._options.max_output_tokens) if cap is not None]
        if caps:  # a side call's own cap, the configured output cap, or the lower of the two
            params["max_tokens"] = min(caps)
        listener = current_retry_listener()  # the calling request's, never another thread's
        if self._connection.usage_option_rejected:
            params.pop("stream_options", None)
        attempts = self._options.max_retries + 1
        attempt = 1
        while True:
            if cancel is not None:
                cancel.raise_if_cancelled()
            outcome = stream_attempt(self._connection, request, self._model, on_delta, cancel)
            if isinstance(outcome, ChatResponse):
                return outcome
            failure, streamed = outcome
            from paicli.llm.failures import final_message, rejects_usage_option  # loaded by the failure

            if rejects_usage_option(failure, params) and not streamed:
                # An older server that refuses stream_options: stream without usage rather than fail.
                self._connection.usage_option_rejected = True
                params.pop("stream_options", None)
                continue
            if streamed or not failure.retryable or attempt >= attempts:
                message = final_message(failure, attempt, streamed)
                if self._options.api_key:
                    message = mask_secret(message, self._options.api_key, "***")
                raise LLMError(message, failure.status, failure.retryable, failure.context_limit)
            delay = self._backoff(attempt, failure.retry_after)
            _tell_retry(listener, attempt, attempts - 1, delay, failure)
            self._pause(delay, cancel)
            attempt += 1

    # ------------------------------------------------------------------ retries

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


def _tell_retry(
    listener: RetryListener | None, number: int, retries: int, delay: float, failure: Failure
) -> None:
    """The front end shows each retry, so a retried call is not a silent growing timer."""
    cause = f"HTTP {failure.status}" if failure.status else (failure.message.splitlines() or ["连接失败"])[0]
    log.info("model call retry %d/%d in %.1f s (status %s)", number, retries, delay, failure.status)
    if listener is None:
        return
    try:
        listener(number, retries, delay, cause)
    except Exception:  # a display hook must never break the call
        log.debug("retry listener failed", exc_info=True)


class EndpointSettings(Protocol):
    """What a client needs from `paicli.config.settings.Settings` (structural, to keep llm/ free of config/)."""

    @property
    def base_url(self) -> str: ...
    @property
    def api_key(self) -> str | None: ...
    @property
    def key_origin(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def reasoning_in_wire(self) -> bool: ...
    @property
    def effort_request_fields(self) -> dict[str, Any] | None: ...
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
    @property
    def max_response_bytes(self) -> int: ...
    @property
    def max_output_tokens(self) -> int | None: ...


def client_from_settings(settings: EndpointSettings, model: str | None = None) -> OpenAIChatClient:
    """The session client (or, with `model`, one for another model on the same endpoint)."""
    fields = settings.effort_request_fields
    options = ClientOptions(
        base_url=settings.base_url,
        api_key=settings.api_key,
        connect_timeout=settings.connect_timeout,
        read_timeout=settings.read_timeout,
        call_timeout=settings.call_timeout,
        max_retries=settings.max_retries,
        backoff_base=settings.retry_backoff,
        max_response_bytes=settings.max_response_bytes,
        include_reasoning_in_wire=settings.reasoning_in_wire,
        max_output_tokens=settings.max_output_tokens,
        key_origin=settings.key_origin,
        # the effort is the session model's: a side client for another model sends none
        request_fields_json=json.dumps(fields) if fields and model in (None, settings.model) else "",
    )
    return OpenAIChatClient.from_options(options, model or settings.model)
