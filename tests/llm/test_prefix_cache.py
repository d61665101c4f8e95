"""PrefixValues: per-message values of the last history, recomputed only for what changed."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from paicli.llm.messages import Message, ToolCall
from paicli.llm.prefix_cache import History, PrefixValues, prefix_sum


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


_EDITS: list[Callable[[History], object]] = [
    lambda h: h.__setitem__(3, h[3].with_content("清理后的占位")),
    lambda h: h.__setitem__(slice(1, None), [Message.user("摘要")]),
    lambda h: h.__delitem__(slice(5, None)),
    lambda h: h.__delitem__(2),
    lambda h: h.insert(1, Message.user("插入")),
    lambda h: h.pop(),
    lambda h: h.remove(h[2]),
    lambda h: h.reverse(),
    lambda h: h.sort(key=lambda m: m.role),
    lambda h: h.__imul__(2),
    lambda h: h.clear(),
]


@pytest.mark.parametrize("edit", _EDITS)
def test_every_change_of_a_history_but_an_append_is_counted(edit: Callable[[History], object]) -> None:
    history = History(_history(4))
    history.append(Message.user("追加"))
    history.extend([Message.user("再追加")])
    history += [Message.assistant("答")]
    assert history.edits == 0
    edit(history)
    assert history.edits == 1


@pytest.mark.parametrize("edit", _EDITS)
def test_a_followed_history_changed_in_place_gets_fresh_values(edit: Callable[[History], object]) -> None:
    value = _Counted()
    total = prefix_sum(value, min_length=1)
    cache = PrefixValues(value, min_length=1)
    history = History(_history(6))
    total(history), cache.values(history)
    edit(history)
    history.append(Message.user("然后追加"))
    expected = [len(m.text) + 10 * len(m.tool_calls) for m in history]
    assert cache.values(history) == expected
    assert total(history) == sum(expected)


def test_a_followed_history_that_only_grew_is_not_compared_again() -> None:
    class Watched(History):
        """Counts the reads of a leading slice: the prefix that a comparison copies."""

        __slots__ = ("prefix_reads",)

        def __init__(self, messages: list[Message]) -> None:
            super().__init__(messages)
            self.prefix_reads = 0

        def __getitem__(self, index: Any) -> Any:
            if isinstance(index, slice) and index.start is None:
                self.prefix_reads += 1
            return super().__getitem__(index)

    value = _Counted()
    total = prefix_sum(value, min_length=1)
    first = Watched(_history(20))
    total(first)
    history = Watched(list(first))  # another list with the same messages: compared once, then followed
    assert total(history) == sum(len(m.text) + 10 * len(m.tool_calls) for m in history)
    assert history.prefix_reads == 1
    history.prefix_reads = 0
    value.seen.clear()
    for i in range(20):
        history.append(Message.user(f"新 {i}"))
        assert total(history) == sum(len(m.text) + 10 * len(m.tool_calls) for m in history)
    assert history.prefix_reads == 0  # followed, and only grown: never compared
    assert value.seen == history[61:]
    history[3] = history[3].with_content("清理后的占位")  # an edit: compared again, values fresh
    assert total(history) == sum(len(m.text) + 10 * len(m.tool_calls) for m in history)
    assert history.prefix_reads == 1
