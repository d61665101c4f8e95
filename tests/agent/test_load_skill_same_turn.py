"""Port of LoadSkillSameTurnTest (spec 12) for ReAct, plus the skill behaviour a whole session relies on:
the index in a byte-identical system prompt across turns, the ledger source, compaction dropping the
bodies with the removed-skills note. (Plan tasks run the same loop: tests/agent/test_plan_agent.py.)"""

from __future__ import annotations

from pathlib import Path

from paicli.agent.ports import NullContext
from paicli.agent.react import ReactAgent
from paicli.cancel import CancelToken
from paicli.config.values import PromptValues
from paicli.context.summary import ConversationHistoryCompactor
from paicli.context.tokens import TokenCounter
from paicli.context.types import NO_COMPACTION, CompactionResult, CompactionStep
from paicli.llm.messages import Message
from paicli.llm.protocol import LLMClient
from paicli.prompt.assembler import AgentPromptBuilder, PromptAssembler, PromptMode
from paicli.prompt.repository import PromptRepository
from paicli.testing.protocol import assert_protocol_valid
from paicli.testing.scripted_llm import ScriptedLLM, tool_call_reply
from paicli.tools.skill_load import LoadSkillTool
from paicli.tools.skills import INDEX_HEADING, SkillCatalog
from tests.agent.test_react import ListLedger
from tests.context.helpers import STRUCTURED
from tests.tools.helpers import env, make_runner
from tests.tools.skill_helpers import catalog, dirs, write_skill

WEB_ACCESS_BODY = "# Web Access\n先用 web_fetch 读取页面；需要登录时请用户提供已登录的浏览器。"


class SummaryContext(NullContext):
    """The agent's compaction port doing only a forced full summary (what /compact does), with this compactor."""

    def __init__(self, compactor: ConversationHistoryCompactor) -> None:
        self.compactor = compactor

    def compact_now(
        self,
        history: list[Message],
        focus: str | None = None,
        cancel: CancelToken | None = None,
        *,
        llm: LLMClient | None,
    ) -> CompactionResult:
        before = len(history)
        if not self.compactor.compact_now(history, focus, llm=llm):
            return NO_COMPACTION
        step = CompactionStep("full_summary", before, len(history), 0, 0)
        return CompactionResult(True, "full_summary", 0, (step,))


def session(
    tmp_path: Path,
    llm: ScriptedLLM,
    made: SkillCatalog,
    ledger: ListLedger | None = None,
    context: SummaryContext | None = None,
) -> ReactAgent:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    runner = make_runner(root)
    runner.register(LoadSkillTool.tool(made))
    lookup = env({"PAICLI_PROMPT_RUNTIME_DATE": "2026-09-23", "PAICLI_PROMPT_RUNTIME_ZONE": "UTC"})
    assembler = PromptAssembler(PromptRepository(root, tmp_path / "home"), PromptValues.parse(lookup))
    prompt = AgentPromptBuilder(assembler, PromptMode.AGENT, skill_index_loader=made.index_text)
    return ReactAgent(llm, runner, prompt, ledger=ledger, context=context)


def web_access_catalog(tmp_path: Path) -> SkillCatalog:
    write_skill(dirs(tmp_path).builtin, "web-access", "访问网页的决策手册", body=WEB_ACCESS_BODY)
    return catalog(tmp_path)


def test_react_sees_the_skill_in_the_very_next_request(tmp_path: Path) -> None:
    llm = ScriptedLLM([tool_call_reply(("load_skill", '{"name":"web-access"}')), "按 Skill 完成了"])
    ledger = ListLedger()
    agent = session(tmp_path, llm, web_access_catalog(tmp_path), ledger)
    finished = agent.run("帮我看看这个网页", lambda _e: None, CancelToken())
    assert finished.status == "done"
    assert llm.calls == 2
    second = llm.requests[1].messages
    assert second[-2].role == "tool" and "已加载 Skill web-access" in (second[-2].content or "")
    last = second[-1]
    assert last.role == "user" and "## 已加载 Skill：web-access（来源：builtin）" in (last.content or "")
    assert WEB_ACCESS_BODY in (last.content or "")
    assert_protocol_valid(second)
    assert_protocol_valid(agent.history)
    sources = [source for kind, source, _, _ in ledger.entries if kind == "message"]
    assert sources.count("skill_injection") == 1
    assert sources.index("skill_injection") == sources.index("tool_execution") + 1


def test_system_prompt_and_tools_are_byte_identical_across_turns(tmp_path: Path) -> None:
    llm = ScriptedLLM(
        [tool_call_reply(("load_skill", '{"name":"web-access"}')), "第一轮", "第二轮", "第三轮"]
    )
    made = web_access_catalog(tmp_path)
    agent = session(tmp_path, llm, made)
    for text in ("第一个问题", "第二个问题", "第三个问题"):
        agent.run(text, lambda _e: None, CancelToken())
    prompts = {r.messages[0].content for r in llm.requests}
    assert len(prompts) == 1
    [prompt] = prompts
    assert f"## Skills\n\n{INDEX_HEADING}" in (prompt or "") and "`web-access`" in (prompt or "")
    assert len({repr(r.tools) for r in llm.requests}) == 1
    assert all("load_skill" in repr(r.tools) for r in llm.requests)


def test_index_changes_only_after_on_off_or_reload(tmp_path: Path) -> None:
    llm = ScriptedLLM(["一", "二", "三"])
    ledger = ListLedger()
    made = web_access_catalog(tmp_path)
    agent = session(tmp_path, llm, made, ledger)
    agent.run("问题一", lambda _e: None, CancelToken())
    write_skill(dirs(tmp_path).user, "late", "会话中途新增的 Skill")
    agent.run("问题二", lambda _e: None, CancelToken())  # a new file alone changes nothing
    made.set_enabled("web-access", False)
    agent.invalidate_system_prompt()  # what the backend does after /skill off
    agent.run("问题三", lambda _e: None, CancelToken())
    prompts = [r.messages[0].content or "" for r in llm.requests]
    assert prompts[0] == prompts[1] and "`web-access`" in prompts[0]
    assert INDEX_HEADING not in prompts[2]
    refreshes = [e for e in ledger.entries if e[1] == "memory_context_refresh"]
    assert len(refreshes) == 1


def test_skill_injection_is_internal_and_summary_appends_the_removed_skills_note(tmp_path: Path) -> None:
    llm = ScriptedLLM(
        [
            tool_call_reply(("load_skill", '{"name":"web-access"}')),
            "完成",
            "好的",
            "再好的",
            "最后",
            STRUCTURED,
        ]
    )  # the last reply is the summary: /compact asks the agent's own model
    compactor = ConversationHistoryCompactor(TokenCounter("heuristic"), 1)
    agent = session(tmp_path, llm, web_access_catalog(tmp_path), context=SummaryContext(compactor))
    for text in ("用 Skill 做事", "第二轮", "第三轮", "第四轮"):
        agent.run(text, lambda _e: None, CancelToken())
    assert agent.compact_now().compacted
    summary = agent.history[1].content or ""
    assert summary.endswith(
        "[Skill 正文已随压缩移出上下文：web-access。还需要按这些 Skill 操作时，重新调用 load_skill 加载。]"
    )
    assert WEB_ACCESS_BODY not in (llm.requests[-1].messages[-1].content or "")
    assert not any("[PAICLI_SKILL_INJECTION]" in (m.content or "") for m in agent.history)
    assert_protocol_valid(agent.history)


def test_skill_can_be_loaded_again_after_compaction_removed_it(tmp_path: Path) -> None:
    llm = ScriptedLLM(
        [
            tool_call_reply(("load_skill", '{"name":"web-access"}')),
            "完成",
            "好的",
            STRUCTURED,  # the summary: /compact asks the agent's own model
            tool_call_reply(("load_skill", '{"name":"web-access"}'), prefix="again"),
            "又完成",
        ]
    )
    compactor = ConversationHistoryCompactor(TokenCounter("heuristic"), 1)
    agent = session(tmp_path, llm, web_access_catalog(tmp_path), context=SummaryContext(compactor))
    agent.run("用 Skill", lambda _e: None, CancelToken())
    agent.run("第二轮", lambda _e: None, CancelToken())
    assert agent.compact_now().compacted
    agent.run("再用一次", lambda _e: None, CancelToken())
    last = llm.requests[-1].messages[-1]
    assert last.role == "user" and WEB_ACCESS_BODY in (last.content or "")


def test_real_user_turns_exclude_injections(tmp_path: Path) -> None:
    from paicli.context.internal import is_real_user_turn

    llm = ScriptedLLM([tool_call_reply(("load_skill", '{"name":"web-access"}')), "完成"])
    agent = session(tmp_path, llm, web_access_catalog(tmp_path))
    agent.run("只有这一轮", lambda _e: None, CancelToken())
    users = [m for m in agent.history if m.role == "user"]
    assert len(users) == 2
    assert [is_real_user_turn(m) for m in users] == [True, False]
    assert isinstance(agent.history[-1], Message)
