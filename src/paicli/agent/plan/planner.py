"""The planner (spec 8.4): a fresh conversation per planning call, strict parsing, one repair request."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from paicli.agent.conversation import Conversation, Identity
from paicli.agent.events import AgentEvent, EventSink, ReasoningDelta, RunFinished, TextDelta
from paicli.agent.loop import LoopOptions, LoopStats, ToolLoop
from paicli.agent.plan.checkpoint import MODE
from paicli.agent.plan.model import Plan
from paicli.agent.plan.parse import PlanParseError, parse_plan
from paicli.agent.plan.prompts import PlanPrompts
from paicli.agent.ports import ContextPort, LedgerPort, NoTools
from paicli.cancel import CancelToken
from paicli.llm.messages import Message
from paicli.llm.protocol import LLMClient

PLANNER_ACTOR = "planner"


@dataclass(frozen=True)
class PlanningFailed:
    finished: (
        RunFinished  # cancelled, or an error the user can read (with the raw reply when it did not parse)
    )


class Planner:
    def __init__(self, llm: LLMClient, prompts: PlanPrompts, ledger: LedgerPort, stats: LoopStats) -> None:
        self.llm = llm
        self.prompts = prompts
        self.ledger = ledger
        self.stats = stats

    def plan(
        self,
        goal: str,
        request: str,
        emit: EventSink,
        cancel: CancelToken,
        context: ContextPort,
        existing_ids: Collection[str] = (),
    ) -> Plan | PlanningFailed:
        """`request`: the first user message (the goal, or a replan request); `goal` is what the plan is for."""
        conversation = Conversation(
            self.prompts.planner_system(),
            ledger=self.ledger,
            context=context,
            identity=Identity(MODE, PLANNER_ACTOR, "subagent"),
            attach_source="system_prompt",
        )
        conversation.append(Message.user(request), "planning_request")
        reason = raw = ""

        def quiet(
            event: AgentEvent,
        ) -> None:  # the raw plan JSON is not for the user; the plan is shown parsed
            if not isinstance(event, (TextDelta, ReasoningDelta)):
                emit(event)

        for attempt in range(2):
            if attempt:
                repair = self.prompts.template("planner-repair", {"reason": reason})
                conversation.append(Message.user(repair), "planning_repair")
            finished = ToolLoop(
                conversation, self.llm, NoTools(), quiet, cancel, LoopOptions(), self.stats
            ).run()
            if finished.status != "done":
                error = finished.error or finished.answer
                return PlanningFailed(
                    RunFinished(
                        finished.status,
                        finished.answer,
                        f"规划失败：{error}" if finished.status == "error" else None,
                    )
                )
            try:
                return parse_plan(finished.answer, goal, existing_ids)
            except PlanParseError as error:
                reason = str(error)
                raw = finished.answer
        return PlanningFailed(
            RunFinished("error", "", f"规划失败：无法解析执行计划（{reason}）\n原始输出:\n{raw}")
        )
