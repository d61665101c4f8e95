"""Port of the reference's RunawayGuardTest (spec 8.3, 12)."""

from __future__ import annotations

import pytest

from paicli.agent.runaway import MARKER, RunawayGuard, action_key, error_family
from paicli.llm.messages import ToolCall
from paicli.tools.base import ToolOutcome, ToolResult

TEMPORARY = "不要保存它"


def wrap(name: str, text: str) -> str:
    return f'<tool_result tool="{name}" trust="untrusted-data">\n{text}\n</tool_result>'


def step(
    *items: tuple[str, str, str, bool], blocked: tuple[int, ...] = (), not_run: ToolOutcome = "refused"
) -> tuple[list[ToolResult], list[ToolCall]]:
    """items: (name, arguments, output text, success); the calls at `blocked` never ran (`not_run`)."""
    calls = [ToolCall(f"call-{i}", name, args) for i, (name, args, _, _) in enumerate(items)]
    results = [
        ToolResult(
            f"call-{i}",
            name,
            wrap(name, text),
            success=ok,
            blocked=i in blocked,
            outcome=not_run if i in blocked else ("ok" if ok else "failed"),
        )
        for i, (name, _, text, ok) in enumerate(items)
    ]
    return results, calls


LIST = ("list_dir", '{"path":"."}', "a.txt\nb.txt", True)


def test_reminds_once_when_same_action_repeats_three_steps_in_a_row() -> None:
    guard = RunawayGuard()
    assert guard.observe_step(*step(LIST)) is None
    assert guard.observe_step(*step(LIST)) is None
    reminder = guard.observe_step(*step(LIST))
    assert reminder is not None
    assert reminder.startswith(MARKER)
    assert "工具调用" in reminder and "3" in reminder and TEMPORARY in reminder
    for _ in range(5):
        assert guard.observe_step(*step(LIST)) is None


def test_argument_key_order_does_not_make_a_different_action() -> None:
    guard = RunawayGuard()
    guard.observe_step(*step(("grep", '{"pattern":"x","path":"src"}', "hit", True)))
    guard.observe_step(*step(("grep", '{ "path": "src", "pattern": "x" }', "hit", True)))
    assert guard.observe_step(*step(("grep", '{"path":"src","pattern":"x"}', "hit", True))) is not None
    assert action_key("a", '{"b":{"d":1,"c":2}}') == action_key("a", '{"b":{"c":2,"d":1}}')
    assert action_key("a", "  not json ") == action_key("a", "not json")
    assert action_key("a", "{}") != action_key("b", "{}")


def test_different_arguments_or_a_step_without_the_action_reset_the_streak() -> None:
    guard = RunawayGuard()
    guard.observe_step(*step(LIST))
    guard.observe_step(*step(LIST))
    assert guard.observe_step(*step(("list_dir", '{"path":"src"}', "x", True))) is None
    assert guard.observe_step(*step(LIST)) is None
    assert guard.observe_step(*step(LIST)) is None
    assert guard.observe_step(*step(("read_file", '{"path":"a"}', "x", True))) is None
    assert guard.observe_step(*step(LIST)) is None
    assert guard.observe_step(*step(LIST)) is None
    assert guard.observe_step(*step(LIST)) is not None


def test_identical_calls_in_one_batch_add_up() -> None:
    guard = RunawayGuard()
    assert guard.observe_step(*step(LIST, LIST)) is None
    assert guard.observe_step(*step(LIST)) is not None


def test_three_identical_calls_in_one_batch_cross_at_once() -> None:
    assert RunawayGuard().observe_step(*step(LIST, LIST, LIST)) is not None


def test_other_calls_in_the_same_batch_do_not_break_the_streak() -> None:
    guard = RunawayGuard()
    guard.observe_step(*step(LIST, ("read_file", '{"path":"a"}', "x", True)))
    guard.observe_step(*step(("read_file", '{"path":"b"}', "y", True), LIST))
    assert guard.observe_step(*step(LIST, ("grep", '{"p":"z"}', "z", True))) is not None


def test_same_error_family_takes_priority_over_action_repeat() -> None:
    guard = RunawayGuard()
    failing = ("web_fetch", '{"url":"https://x"}', "Request timed out after 30s", False)
    guard.observe_step(*step(failing))
    guard.observe_step(*step(("web_fetch", '{"url":"https://x"}', "deadline exceeded", False)))
    reminder = guard.observe_step(*step(("web_fetch", '{"url":"https://x"}', "连接超时", False)))
    assert reminder is not None and reminder.startswith(MARKER)
    assert "错误" in reminder and "完全相同的工具调用" not in reminder
    assert TEMPORARY in reminder


def test_blocked_calls_are_not_counted_and_break_the_streak() -> None:
    guard = RunawayGuard()
    guard.observe_step(*step(LIST))
    guard.observe_step(*step(LIST))
    assert guard.observe_step(*step(LIST, blocked=(0,))) is None
    assert guard.observe_step(*step(LIST)) is None
    assert guard.observe_step(*step(LIST)) is None
    outcomes: tuple[ToolOutcome, ...] = ("refused", "denied", "cancelled")
    for outcome in outcomes:  # the outcome says it never ran, whatever its text
        assert (
            guard.observe_step(
                *step(("list_dir", '{"path":"."}', "不论什么文字", False), blocked=(0,), not_run=outcome)
            )
            is None
        )
        assert guard.observe_step(*step(LIST)) is None
        assert guard.observe_step(*step(LIST)) is None
    assert guard.observe_step(*step(LIST)) is not None


@pytest.mark.parametrize(
    ("text", "family"),
    [
        ("Read timed out", "category:timeout"),
        ("HTTP 429 Too Many Requests", "category:rate_limit"),
        ("ECONNREFUSED 127.0.0.1", "category:network"),
        ("401 Unauthorized", "category:auth"),
        ("Permission denied: /etc/shadow", "category:permission"),
        ("路径越界", "category:permission"),
        ("No such file: ENOENT", "category:not_found"),
        ("文件不存在", "category:not_found"),
        ("validation failed: missing path", "category:invalid_argument"),
        ("Command failed with exit code 2", "category:process_exit"),
        ("code 4290 is odd", "text:code 4290 is odd"),
        ("  Something   WEIRD\n happened ", "text:something weird happened"),
        ("   ", None),
    ],
)
def test_error_family_groups_by_category_then_falls_back_to_text(text: str, family: str | None) -> None:
    assert error_family(text) == family


def test_error_family_takes_the_first_matching_category_and_caps_text() -> None:
    assert error_family("timeout while resolving dns") == "category:timeout"
    long = "x " * 5000
    result = error_family(long)
    assert result is not None and len(result) == len("text:") + 1024


def test_error_streak_is_kept_per_action() -> None:
    guard = RunawayGuard()
    guard.observe_step(*step(("run", '{"cmd":"a"}', "exit code 1", False)))
    guard.observe_step(*step(("run", '{"cmd":"b"}', "exit code 1", False)))
    assert guard.observe_step(*step(("run", '{"cmd":"c"}', "exit code 1", False))) is None


def test_threshold_below_three_is_rejected() -> None:
    with pytest.raises(ValueError):
        RunawayGuard(2)
    assert RunawayGuard(4).threshold == 4


def test_higher_threshold_needs_more_repeats() -> None:
    guard = RunawayGuard(4)
    for _ in range(3):
        assert guard.observe_step(*step(LIST)) is None
    reminder = guard.observe_step(*step(LIST))
    assert reminder is not None and "4" in reminder
