"""Limits of a real local server, for the loopback fake (`FakeOpenAIServer(limits=ServerLimits(...))`).

What llama.cpp's `llama-server` showed with a small model (issue 40): a context size it reports in
`GET /v1/models` (`meta.n_ctx`) and enforces with a machine-readable 400; a chat template that drops `tools`
(the prompt count then leaves them out); and replies cut at the request's `max_tokens` with
`finish_reason: "length"`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

Count = Callable[[str], list[int]]
Decode = Callable[[list[int]], str]


@dataclass(frozen=True)
class ServerLimits:
    n_ctx: int | None = None  # reported as meta.n_ctx in /v1/models; a longer prompt is refused with a 400
    refusal: Literal["llamacpp", "openai"] = "llamacpp"  # the wording of that 400
    drop_tools: bool = False  # the prompt count leaves out `tools`, as a template that never renders them
    honour_max_tokens: bool = False  # a reply longer than the request's max_tokens is cut there ("length")
    reported: bool = (
        True  # False: n_ctx is enforced but not listed (a server that only says it when refusing)
    )

    def model_meta(self) -> dict[str, Any]:
        """Extra fields of each /v1/models entry."""
        if not self.n_ctx or not self.reported:
            return {}
        return {"meta": {"n_ctx": self.n_ctx, "n_ctx_train": self.n_ctx * 4}}

    def counted(self, body: dict[str, Any]) -> dict[str, Any]:
        """The part of a request the server counts as its prompt."""
        return {k: v for k, v in body.items() if k != "tools"} if self.drop_tools else body

    def refused(self, prompt_tokens: int) -> dict[str, Any] | None:
        """The error body for a prompt the context cannot hold (None: it fits)."""
        if self.n_ctx is None or prompt_tokens <= self.n_ctx:
            return None
        if self.refusal == "openai":
            message = (
                f"This model's maximum context length is {self.n_ctx} tokens. However, your messages "
                f"resulted in {prompt_tokens} tokens. Please reduce the length of the messages."
            )
            return {
                "error": {
                    "message": message,
                    "type": "invalid_request_error",
                    "code": "context_length_exceeded",
                }
            }
        message = (
            f"request ({prompt_tokens} tokens) exceeds the available context size ({self.n_ctx} tokens), "
            "try increasing it"
        )
        return {
            "error": {
                "code": 400,
                "message": message,
                "type": "exceed_context_size_error",
                "n_prompt_tokens": prompt_tokens,
                "n_ctx": self.n_ctx,
            }
        }

    def cut(self, texts: list[str], max_tokens: Any, encode: Count, decode: Decode) -> list[str] | None:
        """`texts` (the content, then each call's arguments) cut where `max_tokens` tokens run out; None when the
        reply fits (or max_tokens is not honoured). A cut drops what follows the cut text."""
        if not self.honour_max_tokens or not isinstance(max_tokens, int):
            return None
        room = max_tokens
        kept: list[str] = []
        for text in texts:
            tokens = encode(text)
            if len(tokens) > room:
                return [*kept, decode(tokens[:room])]
            room -= len(tokens)
            kept.append(text)
        return None
