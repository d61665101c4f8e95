"""PrefixValues: per-message values of the last history, recomputed only for what changed."""

from __future__ import annotations

import random
from dataclasses import replace

from paicli.llm.messages import Message, ToolCall
from paicli.llm.prefix_cache import PrefixValues, prefix_sum


def _history(n: int) -> list[Message]:
    messages = [Message.system("系统")]
    for i in range(n):
        call = ToolCall(f"c{i}", "read_file", f'{{"path": "f{i}"}}')
        messages += [
            Message.user(f"问 {i}"),
            Message.assistant(None, (call,)),
            Message.tool(call.id, "x" * i),
        ]
    return messages


class _Counted:
    def __init__(self) -> None:
        self.seen: list[Message] = []

    def __call__(self, message: Message) -> int:
        self.seen.append(message)
        return len(message.text) + 10 * len(message.tool_calls)


def test_an_appended_history_costs_only_its_new_messages() -> None:
    value = _Counted()
    cache = PrefixValues(value, min_length=4)
    history = _history(20)
    assert cache.values(history) == [value(m) for m in history]
    value.seen.clear()
    assert cache.values(history) == [len(m.text) + 10 * len(m.tool_calls) for m in history]
    assert value.seen == []  # the same history again: nothing recomputed
    history += [Message.user("新的"), Message.assistant("答")]
    assert cache.values(history)[-2:] == [2, 1]
    assert value.seen == history[-2:]


def test_a_replaced_truncated_or_rebuilt_history_gives_fresh_values() -> None:
    value = _Counted()
    cache = PrefixValues(value, min_length=4)
    history = _history(10)
    cache.values(history)
    history[5] = history[5].with_content("清理后的占位")  # a cleared tool result, in place
    assert cache.values(history) == [len(m.text) + 10 * len(m.tool_calls) for m in history]
    del history[8:]
    assert cache.values(history) == [len(m.text) + 10 * len(m.tool_calls) for m in history]
    rebuilt = [history[0], Message.user("摘要"), *history[-3:]]
    assert cache.values(rebuilt) == [len(m.text) + 10 * len(m.tool_calls) for m in rebuilt]


def test_equal_copies_keep_their_values_and_short_lists_are_not_kept() -> None:
    value = _Counted()
    cache = PrefixValues(value, min_length=4)
    history = _history(6)
    cache.values(history)
    copies = [replace(m) for m in history]  # equal values, other objects (a resumed view)
    value.seen.clear()
    assert cache.values(copies) == cache.values(history)
    assert value.seen == []
    cache.values(history[:2])  # below min_length: computed, and the long history stays cached
    value.seen.clear()
    cache.values(history)
    assert value.seen == []


def test_prefix_sum_matches_a_plain_sum_under_random_edits() -> None:
    rng = random.Random(49)
    value = _Counted()
    total = prefix_sum(value, min_length=3)
    history = _history(5)
    for _ in range(400):
        action = rng.random()
        if action < 0.5:
            history.append(Message.user("u" * rng.randint(0, 9)))
        elif action < 0.7 and len(history) > 1:
            index = rng.randrange(1, len(history))
            history[index] = history[index].with_content("c" * rng.randint(0, 9))
        elif action < 0.8:
            del history[rng.randint(1, len(history)) :]
        elif action < 0.9:
            history = [history[0], Message.user("摘要"), *history[-rng.randint(0, 4) :]]
        assert total(history) == sum(len(m.text) + 10 * len(m.tool_calls) for m in history)
