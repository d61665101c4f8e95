"""The endpoint: its options and the lazily built SDK client that every model view of it shares.

The `openai` package is imported on the first call only, so building a client at start-up stays cheap.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

NO_KEY_PLACEHOLDER = "sk-no-key-required"  # the SDK insists on a key; local servers ignore this one


@dataclass(frozen=True)
class ClientOptions:
    base_url: str
    api_key: str | None = None
    connect_timeout: float = 60.0
    read_timeout: float = 300.0
    write_timeout: float = 60.0
    call_timeout: float = 600.0  # a whole attempt, however slowly it trickles
    max_response_bytes: int = 64 * 1024 * 1024  # a whole reply, however fast it streams
    max_retries: int = 3
    backoff_base: float = 0.5
    backoff_cap: float = 20.0
    retry_after_cap: float = 30.0
    include_reasoning_in_wire: bool = False
    max_output_tokens: int | None = None  # sent as max_tokens when a call names no cap of its own
    request_fields_json: str = ""  # extra request fields (the reasoning effort's), as a JSON object
    extra_headers: tuple[tuple[str, str], ...] = ()
    key_origin: str = ""  # where the key was configured, for the message of a refused key (HTTP 401)

    def __repr__(self) -> str:
        masked = "None" if not self.api_key else "'***'"
        return f"ClientOptions(base_url={self.base_url!r}, api_key={masked}, max_retries={self.max_retries})"


class Connection:
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

                from paicli.llm.transport import http_client

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
                    http_client=http_client(openai, opts.base_url),
                )
            return self._sdk
