"""The figures a session reports: the status bar's snapshot, `/context`, the token statistics line and the
`/memory` status. Context figures count what the next request actually carries (messages + tool schema)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paicli.agent.react import ReactAgent
from paicli.cli.compose import Components
from paicli.cli.session_background import SessionBackground
from paicli.config import knobs
from paicli.config.effort import effort_label
from paicli.context.manager import AutoCompactionManager
from paicli.llm.messages import Usage
from paicli.llm.spend import Spend, SpendMeter

if TYPE_CHECKING:
    from paicli.cli.backend import CommandReply, StatusSnapshot
    from paicli.context.status import CacheObservation

TOKEN_RESERVES = 500 + 800 + 2000


def observed_cache(agent: ReactAgent, background: SessionBackground, mode: str) -> CacheObservation:
    """The session's calls (the agent's and side calls) and the cache figures their usage reported."""
    from paicli.context.status import observe_cache  # shown by the REPL's commands, never by `-p`

    usage = agent.usage_total + background.usage
    return observe_cache(mode, agent.llm_calls + background.calls, usage.prompt_tokens, usage.cached_tokens)


class SessionReport:
    def __init__(
        self,
        parts: Components,
        agent: ReactAgent,
        background: SessionBackground,
        compaction: AutoCompactionManager,
        spend: SpendMeter | None = None,
    ) -> None:
        self.parts = parts
        self.agent = agent
        self.background = background
        self.compaction = compaction
        self.spend = spend

    def spent(self) -> Spend:
        """Every call's cost so far (no meter: a session nobody priced, which shows no figure)."""
        return self.spend.total() if self.spend is not None else Spend(unpriced_calls=1)

    def usage(self) -> Usage:
        """The agent's own calls plus side calls (fact extraction)."""
        return self.agent.usage_total + self.background.usage

    def tool_definitions(self) -> list[dict[str, object]]:
        """The tools the next request carries: none when they are off, or once this model refused them."""
        support = self.parts.tool_support
        if not self.parts.tools_enabled or (support is not None and support.rejected(self.parts.llm.model)):
            return []
        return self.agent.last_tool_definitions or self.parts.tools.definitions()

    def schema_tokens(self) -> int:
        """What the tool definitions of the next request cost, as /context counts them."""
        return self.parts.counter.count_tools(self.tool_definitions() or None)

    def status(self, phase: str, count_context: bool, elapsed_seconds: int | None = None) -> StatusSnapshot:
        usage = self.usage()
        history = list(self.agent.history)
        context_tokens, source, due = 0, "local", ""
        if count_context and len(history) > 1:  # one-shot runs skip it: it would load the tokenizer
            tools = self.tool_definitions()
            model = self.agent.llm.model
            figure = self.compaction.figure(history, tools, model=model)
            context_tokens, source = figure.tokens, figure.source
            due = self.compaction.due(history, tools, model=model)
        from paicli.cli.backend import StatusSnapshot  # the REPL's status bar: a `-p` run asks for none

        return StatusSnapshot(
            model=self.parts.settings.model,
            context_tokens=context_tokens,
            context_source=source,
            context_window=self.parts.profile.window,
            input_tokens=usage.prompt_tokens,
            output_tokens=usage.completion_tokens,
            cached_tokens=usage.cached_tokens,
            mode=" · ".join(
                x
                for x in (self.parts.approval.label(), effort_label(self.parts.settings.reasoning_effort))
                if x
            ),
            phase=phase,
            model_calls=self.agent.llm_calls,
            last_provider_prompt_tokens=self.parts.counter.last_provider_prompt_tokens,
            compaction_due=due,
            spend=self.spent(),
            elapsed_seconds=elapsed_seconds,
            mcp=self.parts.mcp.counts() if self.parts.mcp is not None else None,
            skills=self.parts.skills.counts(),
        )

    def cache(self) -> CacheObservation:
        """The prompt cache as observed this session: the one source of every cache figure shown."""
        return observed_cache(self.agent, self.background, self.parts.profile.cache_mode)

    def profile_summary(self) -> str:
        return self.parts.profile.summary(mcp_configured=self.parts.mcp is not None, cache=self.cache().short)

    def context(self) -> CommandReply:
        from paicli.cli.backend import CommandReply
        from paicli.context.status import render_context_report

        cache = self.cache()
        report = self.compaction.context_report(
            self.agent.history,
            self.tool_definitions(),
            model=self.agent.llm.model,
            provider=self.parts.settings.provider,
            cache_hit_ratio=cache.hit_ratio,
        )
        text = render_context_report(
            report, self.context_memory_lines(), mcp_configured=self.parts.mcp is not None, cache=cache
        )
        return CommandReply(text)

    def token_usage_line(self) -> str:
        usage = self.usage()
        calls = self.agent.llm_calls + self.background.calls
        average = usage.prompt_tokens / calls if calls else 0.0
        window = self.parts.profile.window
        return (
            f"Token 统计: 调用 {calls} 次 | 总输入: {usage.prompt_tokens} | 总输出: {usage.completion_tokens} | "
            f"cached: {usage.cached_tokens} | 平均输入: {average:.0f} | 预算: {window} (可用: {window - TOKEN_RESERVES})"
        )

    def context_memory_lines(self) -> str:
        """What `/context` adds under its figures: the long-term memory's size and extraction state, and the
        session's model calls. No window or budget figure (the bar above is the one), no /memory help."""
        memory = self.parts.memory
        usage = self.usage()
        calls = self.agent.llm_calls + self.background.calls
        return "\n".join(
            (
                f"{memory.status_summary()}；自动事实提取: {memory.auto_extract_status()}（/memory 查看和管理）",
                f"本会话模型调用: {calls} 次，输入 {usage.prompt_tokens} / 输出 {usage.completion_tokens} tokens"
                f"（缓存命中 {usage.cached_tokens}）",
                self.cost_line(),
            )
        )

    def cost_line(self) -> str:
        spent = self.spent()
        if spent.known:
            if not spent.priced_calls:
                return "本会话费用: 0（还没有模型调用）"
            return f"本会话费用: {spent.text()}（按价格表估算，缓存命中按缓存价）"
        settings = self.parts.settings
        names = "、".join(spent.unpriced) or f"{settings.provider}/{settings.model}"
        return (
            f"本会话费用: 未计（价格表里没有 {names} 的价格，或服务没有报告用量；"
            f"可在 ${knobs.HOME.key}/prices.json 补充）"
        )

    def memory(self, args: str) -> CommandReply:
        """`/memory ...`: its status view carries the token statistics line."""
        from paicli.cli.backend import CommandReply
        from paicli.memory.commands import parse_memory_args, run_memory_command

        command = parse_memory_args(args)
        reply = run_memory_command(
            self.parts.memory, command, self.profile_summary(), self.token_usage_line()
        )
        return CommandReply(reply.text, ok=reply.ok)
