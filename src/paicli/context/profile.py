"""ContextProfile (spec 1.4): one context window -> every threshold. Pure."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_WINDOW = 128_000
MIN_WINDOW = 8_000
MCP_INDEX_MIN_WINDOW = 32_000
MIN_TRIGGER_TOKENS = 1_000


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


@dataclass(frozen=True)
class ContextProfile:
    window: int
    cache_mode: str = "none"
    # the COMPACTION_TRIGGER setting: a share of the window (< 1) or a token count; None: the reference's derivation
    trigger: float | None = None

    @staticmethod
    def from_window(
        window: int | None, cache_mode: str = "none", trigger: float | None = None
    ) -> ContextProfile:
        """`window=None` stands for the reference's "no client": the 128K default."""
        base = DEFAULT_WINDOW if window is None else window
        return ContextProfile(max(MIN_WINDOW, base), cache_mode or "none", trigger)

    @property
    def summary_reserve(self) -> int:
        return min(20_000, max(1_000, self.window // 4))

    @property
    def buffer_reserve(self) -> int:
        return min(13_000, max(1_000, self.window // 8))

    @property
    def compression_trigger_tokens(self) -> int:
        if self.trigger is not None:  # the user's choice, kept inside what a request may take
            wanted = int(self.window * self.trigger) if self.trigger < 1 else int(self.trigger)
            return _clamp(wanted, MIN_TRIGGER_TOKENS, self.window - self.buffer_reserve)
        return _clamp(self.window - self.summary_reserve - self.buffer_reserve, 1_000, self.window - 1)

    @property
    def compression_trigger_ratio(self) -> float:
        if self.trigger is not None:
            return self.compression_trigger_tokens / self.window
        return max(0.5, min(0.99, self.compression_trigger_tokens / self.window))

    @property
    def memory_context_tokens(self) -> int:
        return max(500, min(5_000, self.window // 200))

    @property
    def mcp_resource_index_enabled(self) -> bool:
        return self.window >= MCP_INDEX_MIN_WINDOW

    def summary(self, *, mcp_configured: bool = True, cache: str | None = None) -> str:
        """The reference's one-line summary. A session passes what it knows: whether MCP servers are
        configured (no MCP part otherwise) and the cache state it observed (instead of the provider's mode)."""
        ratio = f"{self.compression_trigger_ratio * 100:.1f}%"
        mcp = "on" if self.mcp_resource_index_enabled else "off"
        parts = [f"window: {self.window}", f"压缩阈值: {ratio} ({self.compression_trigger_tokens} tokens)"]
        if mcp_configured:
            parts.append(f"MCP resource 索引: {mcp}")
        parts.append(f"prompt cache: {self.cache_mode if cache is None else cache}")
        return " | ".join(parts)
