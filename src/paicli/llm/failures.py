"""Failed LLM calls, classified: retryable or not, and a one-line Chinese message for the user."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

from paicli.deferred import Deferred
from paicli.llm.protocol import ContextLimit

RETRYABLE_STATUS = frozenset({408, 409, 429})


@dataclass(frozen=True)
class Failure:
    """One failed attempt, classified."""

    message: str
    status: int | None
    retryable: bool
    retry_after: float | None = None
    context_limit: ContextLimit | None = None


def classify(exc: BaseException, model: str, base_url: str, key_origin: str = "") -> Failure:
    """`key_origin`: where the key was read (`DEEPSEEK_API_KEY（环境变量）`), named when the endpoint refuses it."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        status = int(exc.status_code)
        detail = _provider_detail(exc)
        retryable = status in RETRYABLE_STATUS or status >= 500
        limit = context_limit_of(status, exc.body, detail)
        message = _status_message(status, detail, model, base_url)
        if status == 401:
            message += auth_hint(key_origin)
        return Failure(message, status, retryable and limit is None, _retry_after(exc), limit)
    if isinstance(exc, openai.APITimeoutError):
        return Failure(f"等待 {base_url} 响应超时", None, True)
    if isinstance(exc, openai.APIConnectionError):
        reason = _one_line(str(exc.__cause__ or exc), 160)
        return Failure(f"无法连接到 {base_url}：{reason}", None, True)
    return Failure(f"模型响应无法处理：{type(exc).__name__}: {_one_line(str(exc), 200)}", None, False)


def auth_hint(key_origin: str) -> str:
    if not key_origin:
        return "。请运行 paicli --setup 重新设置 API Key"
    return f"。请检查 {key_origin}，或运行 paicli --setup 重新设置"


def final_message(failure: Failure, attempts: int, streamed: bool) -> str:
    if streamed:
        return f"响应流中途中断：{failure.message}"
    if failure.retryable and attempts > 1:
        return f"{failure.message}（已尝试 {attempts} 次）"
    return failure.message


# How servers say a request is longer than their context: llama.cpp's error type and OpenAI's code, then the
# wording of OpenAI, vLLM, DeepSeek and other OpenAI-compatible servers, LM Studio, and Anthropic-style gateways.
_OVERFLOW_KINDS = frozenset(
    {"exceed_context_size_error", "context_length_exceeded", "string_above_max_length"}
)
_Patterns = tuple[re.Pattern[str], ...]


def _overflow_patterns() -> tuple[re.Pattern[str], _Patterns, _Patterns]:
    """The overflow wording, then the figures naming the window and the prompt: compiled at the first refusal
    that could be one, never by a run whose calls succeed (issue 49)."""
    words = re.compile(
        r"maximum context length|context (?:size|length|window)|exceeds? the (?:available )?context"
        r"|prompt is too long|too many (?:input )?tokens|input is too long|context the overflows",
        re.IGNORECASE,
    )
    window = (
        re.compile(r"maximum context length is (\d+)", re.IGNORECASE),
        re.compile(r"context (?:size|length|window) \((\d+) tokens?\)", re.IGNORECASE),
        re.compile(r"context length of only (\d+)", re.IGNORECASE),
        re.compile(r"tokens? > (\d+) maximum", re.IGNORECASE),
    )
    prompt = (
        re.compile(r"\((\d+) in the messages", re.IGNORECASE),
        re.compile(r"request \((\d+) tokens?\)", re.IGNORECASE),
        re.compile(
            r"(?:resulted in|you requested|your request has|prompt is too long:) (\d+)", re.IGNORECASE
        ),
        re.compile(r"keep the first (\d+) tokens", re.IGNORECASE),
    )
    return words, window, prompt


_OVERFLOW: Deferred[tuple[re.Pattern[str], _Patterns, _Patterns]] = Deferred(_overflow_patterns)


def context_limit_of(status: int | None, body: Any, detail: str = "") -> ContextLimit | None:
    """A refusal because the request does not fit the server's context, with the figures it names."""
    if status not in (400, 413, 422, 500):
        return None
    error = body.get("error", body) if isinstance(body, Mapping) else None
    kinds = {str(error.get(key)) for key in ("type", "code")} if isinstance(error, Mapping) else set()
    raw = error.get("message") if isinstance(error, Mapping) else error if error is not None else body
    text = f"{raw if isinstance(raw, str) else ''} {detail}"
    words, window_figures, prompt_figures = _OVERFLOW.get()
    if not kinds & _OVERFLOW_KINDS and not words.search(text):
        return None
    window = _int_field(error, "n_ctx") or _first_figure(window_figures, text)
    prompt = _int_field(error, "n_prompt_tokens") or _first_figure(prompt_figures, text)
    return ContextLimit(window, prompt)


def _int_field(error: Any, key: str) -> int | None:
    value = error.get(key) if isinstance(error, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _first_figure(patterns: _Patterns, text: str) -> int | None:
    for pattern in patterns:
        found = pattern.search(text)
        if found:
            return int(found.group(1))
    return None


def rejects_usage_option(failure: Failure, params: Mapping[str, Any]) -> bool:
    return failure.status in (400, 422) and "stream_options" in params and "stream_options" in failure.message


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _provider_detail(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, Mapping):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, Mapping) else error
        if isinstance(message, str) and message.strip():
            return _one_line(message, 200)
    return _one_line(str(getattr(exc, "message", "") or exc), 200)


def _status_message(status: int, detail: str, model: str, base_url: str) -> str:
    suffix = f"：{detail}" if detail else ""
    if status == 401:
        return f"API Key 无效或未授权（HTTP 401）{suffix}"
    if status == 403:
        return f"没有权限访问模型 {model}（HTTP 403）{suffix}"
    if status == 404:
        return f"模型 {model} 或接口 {base_url} 不存在（HTTP 404）{suffix}"
    if status == 408:
        return f"请求超时（HTTP 408）{suffix}"
    if status == 429:
        return f"请求过于频繁，已被限流（HTTP 429）{suffix}"
    if status >= 500:
        return f"模型服务出错（HTTP {status}）{suffix}"
    return f"模型服务拒绝了请求（HTTP {status}）{suffix}"


def _retry_after(exc: Any) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    raw = headers.get("retry-after") if headers is not None else None
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, float(when.timestamp()) - time.time())
