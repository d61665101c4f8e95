"""AutoCompactionManager told that the server refused a request as too long (issue 40): the server's count
calibrates ours, its smaller window becomes the window, and the next compaction makes the request fit."""

from __future__ import annotations

from paicli.config.compaction_values import CompactionValues
from paicli.config.env import EnvLookup
from paicli.context.manager import AutoCompactionManager
from paicli.context.profile import ContextProfile
from paicli.context.summary import ConversationHistoryCompactor
from paicli.context.tokens import TokenCounter
from paicli.llm.messages import Message
from paicli.llm.protocol import ContextLimit
from paicli.testing.scripted_llm import ScriptedLLM
from tests.context.helpers import STRUCTURED

LLM = ScriptedLLM(default_reply=STRUCTURED)  # the model every call names
MODEL = LLM.model

ENV = EnvLookup(environ={"PAICLI_SESSION_MEMORY_COMPACTION_ENABLED": "false"})


def conversation(rounds: int) -> list[Message]:
    history = [Message.system("你是 paicli。")]
    for n in range(rounds):
        history += [
            Message.user(f"第 {n} 个问题：" + "请解释这段代码的作用。" * 40),
            Message.assistant("解释如下。" * 60),
        ]
    return history


def manager(window: int, learned: list[int]) -> AutoCompactionManager:
    return AutoCompactionManager(
        TokenCounter("exact"),
        ContextProfile.from_window(window),
        CompactionValues.parse(ENV),
        on_server_window=learned.append,  # given at construction, never assigned later
    )


def test_a_smaller_server_window_becomes_the_window_and_compaction_then_fits_it() -> None:
    learned: list[int] = []
    compaction = manager(128_000, learned)
    history = conversation(12)
    assert not compaction.before_call(history, None, llm=LLM).steps  # far below a 128K window
    told = compaction.server_limit(history, None, ContextLimit(window=8192), model=MODEL)
    assert told and learned == [8192] and compaction.profile.window == 8192
    assert isinstance(compaction.full, ConversationHistoryCompactor)
    assert compaction.full.max_output_tokens == 2048  # a summary sized for the room an 8K window keeps
    result = compaction.before_call(history, None, llm=LLM)
    assert result.steps and compaction.measure(history, MODEL) < 8192 - compaction.profile.buffer_reserve


def test_the_servers_count_calibrates_ours_even_when_the_window_was_right() -> None:
    learned: list[int] = []
    compaction = manager(9000, learned)
    history = conversation(6)
    local = compaction.measure(history, MODEL)
    assert local < 9000 - compaction.profile.buffer_reserve  # by our count the request fitted
    assert compaction.server_limit(
        history, None, ContextLimit(window=9000, prompt_tokens=2 * local), model=MODEL
    )
    assert (
        learned == [] and compaction.measure(history, MODEL) > local
    )  # the server counts more: so do we now
    assert compaction.before_call(history, None, llm=LLM).steps


def test_figures_that_change_nothing_say_so() -> None:
    compaction = manager(128_000, [])
    history = conversation(2)
    assert not compaction.server_limit(history, None, ContextLimit(), model=MODEL)
    assert not compaction.server_limit(history, None, ContextLimit(window=200_000), model=MODEL)
    assert compaction.profile.window == 128_000
