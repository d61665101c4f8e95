"""One plan task on the shared loop core: a fresh Conversation `[system(PLAN), user(task input)]`, own compaction."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from paicli.agent.budget import AgentBudget
from paicli.agent.conversation import Conversation, Identity
from paicli.agent.events import (
    EventSink,
    RunFinished,
)
from paicli.agent.loop import LoopOptions, LoopStats, ToolLoop
from paicli.agent.plan.checkpoint import MODE, task_actor
from paicli.agent.plan.model import NodeState, Plan, PlanTask
from paicli.agent.plan.prompts import PlanPrompts
from paicli.agent.plan.requests import task_input
from paicli.agent.plan.writes import WriteLog
from paicli.agent.ports import ContextPort, LedgerPort, MemoryPort, ToolSource
from paicli.cancel import CancelToken
from paicli.llm.messages import Message
from paicli.llm.protocol import LLMClient


@dataclass(frozen=True)
class TaskEnv:
    """What every task of one plan run shares."""

    llm: LLMClient
    tools: ToolSource
    prompts: PlanPrompts
    ledger: LedgerPort
    memory: MemoryPort
    memory_tokens: int
    context_factory: Callable[[], ContextPort]
    budget_factory: Callable[[], AgentBudget]
    stats: LoopStats
    policy_text: str  # what the user typed: the turn's tool policy is built from it


@dataclass(frozen=True)
class TaskOutcome:
    finished: RunFinished
    urls: tuple[str, ...] = ()
    files: tuple[str, ...] = ()  # what the task wrote (write_file / edit_file)


def inherited_urls(task: PlanTask, states: Mapping[str, NodeState]) -> list[str]:
    urls = (url for dep in task.dependencies for url in states.get(dep, NodeState()).urls)
    return list(dict.fromkeys(urls))


def run_task(
    env: TaskEnv,
    plan: Plan,
    task: PlanTask,
    states: Mapping[str, NodeState],
    emit: EventSink,
    cancel: CancelToken,
) -> TaskOutcome:
    conversation = Conversation(
        env.prompts.task_system(task),
        ledger=env.ledger,
        context=env.context_factory(),
        identity=Identity(MODE, task_actor(task.id), "subagent"),
        attach_source="system_prompt",
    )
    text = task_input(env.prompts, plan, task, states)
    memory = env.memory.context_for_query(task.description, env.memory_tokens)
    if memory.strip():
        text = f"{text}\n\n{memory.strip()}"
    conversation.append(Message.user(text), "task_input")
    options = LoopOptions(
        env.budget_factory,
        blank_answer_fallback=True,
        budget_notice=f"⚠️ 任务 [{task.id}] 执行预算已触发，正在整理部分结果",
    )
    turn = WriteLog(env.tools.for_turn(env.policy_text, inherited_urls(task, states)))
    finished = ToolLoop(conversation, env.llm, turn, emit, cancel, options, env.stats).run()
    return TaskOutcome(finished, tuple(turn.verified_urls()), turn.files())
