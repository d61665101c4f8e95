"""The `/context` report (spec 10.4), rendered from plain values so any front end can call it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from paicli.llm.messages import Message

BAR_CELLS = 30
FigureSource = Literal["local", "calibrated"]


@dataclass(frozen=True)
class ContextFigure:
    """The one context figure every view shows (status bar, /context bar and total line): system prompt,
    tools schema and conversation counted locally, scaled by the provider calibration once there is one."""

    tokens: int
    window: int
    source: FigureSource

    @property
    def note(self) -> str:
        if self.source == "calibrated":
            return "本地计数，已按服务端报告的 prompt_tokens 校准"
        return "本地估算，还没有服务端数据可校准"


class FigureCounter(Protocol):
    def count_messages(self, history: Sequence[Message]) -> int: ...

    def count_tools(self, tools: Sequence[Mapping[str, Any]] | None) -> int: ...

    def calibrated(self, model: str, local_count: int) -> int: ...

    def calibration(self, model: str) -> object | None: ...


def context_figure(
    counter: FigureCounter,
    model: str,
    window: int,
    history: Sequence[Message],
    tools: Sequence[Mapping[str, Any]] | None,
) -> ContextFigure:
    local = counter.count_messages(history) + counter.count_tools(tools)
    if counter.calibration(model) is None:
        return ContextFigure(local, window, "local")
    return ContextFigure(counter.calibrated(model, local), window, "calibrated")


@dataclass(frozen=True)
class ContextReport:
    model: str
    provider: str
    window: int
    system_tokens: int
    system_messages: int
    tools_tokens: int
    tools_count: int
    conversation_tokens: int
    conversation_messages: int
    calibrated_tokens: int  # local total x the model's calibration ratio
    calibration_ratio: float | None  # None until the provider has reported usage once
    provider_prompt_tokens: int | None  # the last prompt_tokens the provider reported
    trigger_tokens: int
    trigger_ratio: float
    compared_tokens: int  # what the thresholds compare: calibrated message tokens (no tools schema)
    clear_trigger_tokens: int  # 0 = clearing disabled
    clear_keep: int
    session_memory_enabled: bool
    mcp_index_enabled: bool
    cache_mode: str
    cache_hit_ratio: float | None = None  # cached / prompt tokens over the session, None before any call
    tokenizer: str = ""

    @property
    def local_tokens(self) -> int:
        return self.system_tokens + self.tools_tokens + self.conversation_tokens

    @property
    def figure(self) -> ContextFigure:
        source: FigureSource = "calibrated" if self.calibration_ratio is not None else "local"
        tokens = self.calibrated_tokens if source == "calibrated" else self.local_tokens
        return ContextFigure(tokens, self.window, source)


def format_tokens(value: int) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    if value >= 1_000:
        return f"{value / 1_000:.1f}k"
    return str(value)


def _percent(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole > 0 else 0.0


def usage_bar(used: int, window: int, cells: int = BAR_CELLS) -> str:
    filled = min(cells, round(cells * used / window)) if window > 0 else 0
    return "█" * filled + "░" * (cells - filled)


def _display_width(text: str) -> int:
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def _row(label: str, tokens: int, window: int, extra: str = "") -> str:
    padding = " " * max(0, 18 - _display_width(label))  # CJK labels take two columns each
    return f"    {label}{padding} {format_tokens(tokens):>8s}  ({_percent(tokens, window):4.1f}%){extra}"


def render_context_report(
    report: ContextReport,
    memory_status: str = "",
    *,
    mcp_configured: bool = False,
    cache: CacheObservation | None = None,
) -> str:
    """`mcp_configured`: the MCP line is shown only where MCP servers are configured; `cache`: what the
    session observed (default: the report's hit ratio alone)."""
    r = report
    figure = r.figure
    shown = figure.tokens
    heading = f"📊 上下文占用   {r.model}" + (f" ({r.provider})" if r.provider else "")
    lines = [
        f"{heading}   窗口: {format_tokens(r.window)}",
        "",
        f"  [{usage_bar(shown, r.window)}]  {_percent(shown, r.window):.1f}%  ({format_tokens(shown)} / {format_tokens(r.window)})",
        "",
        "  当前占用细分:",
        _row("系统提示:", r.system_tokens, r.window, f"  [{r.system_messages} 条]"),
        _row("工具定义:", r.tools_tokens, r.window, f"  [{r.tools_count} 个工具]"),
        _row("对话:", r.conversation_tokens, r.window, f"  [{r.conversation_messages} 条]"),
        "    " + "─" * 33,
        _row("合计:", shown, r.window, f"  （{figure.note}）"),
        "",
        *_count_lines(r),
        "",
        *_threshold_lines(r),
        f"  prompt cache: {cache.text}" if cache is not None else cache_line(r.cache_mode, r.cache_hit_ratio),
    ]
    if mcp_configured:
        lines.append(mcp_line(r.mcp_index_enabled))
    if memory_status.strip():
        lines += ["", *(f"  {line}" for line in memory_status.strip().splitlines())]
    return "\n".join(lines)


def _count_lines(r: ContextReport) -> list[str]:
    tokenizer = f"（{r.tokenizer}）" if r.tokenizer else ""
    ratio = f"，校准系数 ×{r.calibration_ratio:.2f}" if r.calibration_ratio is not None else "，尚未校准"
    provider = str(r.provider_prompt_tokens) if r.provider_prompt_tokens is not None else "暂无"
    return [
        f"  本地计数: {r.local_tokens}{tokenizer}   校准后: {r.calibrated_tokens}{ratio}",
        f"  服务端上次报告 prompt_tokens: {provider}",
    ]


@dataclass(frozen=True)
class CacheObservation:
    """What the provider's prompt cache did this session, from the usage it reported: the one source every
    view (`/context`, `/model info`, `/memory`) words its cache figure from. The provider table's mode is
    only what the provider is known to offer, never shown as if it were what happened."""

    calls: int
    hit_ratio: float | None  # cached / prompt tokens over the session; None while no usage was reported
    declared: bool = False  # the provider table says it caches prefixes

    @property
    def short(self) -> str:
        ratio = self.hit_ratio
        if ratio is not None and ratio > 0:
            return f"生效（命中 {ratio * 100:.1f}%）"
        if ratio is not None:
            return "未命中"
        return "服务端没有报告用量" if self.calls else "暂无数据"

    @property
    def text(self) -> str:
        ratio = self.hit_ratio
        if ratio is not None and ratio > 0:
            return f"生效，本会话 {ratio * 100:.1f}% 的输入 token 命中缓存（服务端报告）"
        if ratio is not None:
            offered = "；这个服务商支持前缀缓存，命中要等请求前缀重复" if self.declared else ""
            return f"本会话还没有命中（服务端报告 0 个缓存 token{offered}）"
        if self.calls:
            return "服务端没有报告 token 用量，无法判断"
        return "还没有调用过模型，暂无数据"


def observe_cache(mode: str, calls: int, prompt_tokens: int, cached_tokens: int) -> CacheObservation:
    ratio = cached_tokens / prompt_tokens if prompt_tokens > 0 else None
    return CacheObservation(calls, ratio, declared=mode not in ("", "none"))


def cache_line(mode: str, hit_ratio: float | None) -> str:
    """The report's cache line, from the hit ratio the provider's usage gave (None: no usage yet)."""
    observed = CacheObservation(0 if hit_ratio is None else 1, hit_ratio, mode not in ("", "none"))
    return f"  prompt cache: {observed.text}"


def mcp_line(enabled: bool) -> str:
    """The spec's line (10.4), byte for byte."""
    return f"  MCP resources 自动索引: {'开启' if enabled else '关闭（window 不足 32k）'}"


def _threshold_lines(r: ContextReport) -> list[str]:
    ratio = int(r.trigger_ratio * 100)
    distance = max(0, r.trigger_tokens - r.compared_tokens)
    lines = [
        f"  压缩阈值: {format_tokens(r.trigger_tokens)} ({ratio}%)   距压缩还有: {format_tokens(distance)}"
        f"   （比较的是校准后的消息 token：{r.compared_tokens}）"
    ]
    if r.clear_trigger_tokens > 0:
        to_clear = max(0, r.clear_trigger_tokens - r.compared_tokens)
        lines.append(
            f"  旧工具结果清理: {format_tokens(r.clear_trigger_tokens)} 触发，保留最近 {r.clear_keep} 条"
            f"   距清理还有: {format_tokens(to_clear)}"
        )
    else:
        lines.append("  旧工具结果清理: 关闭")
    strategy = (
        "Session Memory 优先，完整摘要回退"
        if r.session_memory_enabled
        else "完整摘要（Session Memory 实验开关关闭）"
    )
    lines.append(f"  自动压缩: {strategy}")
    return lines
