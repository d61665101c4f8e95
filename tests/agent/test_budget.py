"""Port of the reference's AgentBudgetTest (spec 8.2, 12)."""

from __future__ import annotations

import pytest

from paicli.agent.budget import AgentBudget, BudgetStatus
from paicli.agent.runaway import DEFAULT_THRESHOLD
from paicli.config import knobs
from paicli.config.env import ConfigError, EnvLookup
from paicli.llm.messages import ToolCall


def _calls(*pairs: tuple[str, str]) -> list[ToolCall]:
    return [ToolCall(f"c{i}", name, args) for i, (name, args) in enumerate(pairs)]


def test_initially_within_budget() -> None:
    assert AgentBudget(1000, 3, 10).check() is BudgetStatus.WITHIN_BUDGET


def test_token_budget_exceeded_after_accumulation() -> None:
    budget = AgentBudget(token_budget=1000)
    budget.record_usage(400, 100)
    assert budget.check() is BudgetStatus.WITHIN_BUDGET
    budget.record_usage(400, 99)
    assert budget.check() is BudgetStatus.WITHIN_BUDGET
    budget.record_usage(0, 1)
    assert budget.used_tokens == 1000
    assert budget.check() is BudgetStatus.TOKEN_BUDGET


def test_stagnation_detected_after_repeated_tool_calls() -> None:
    budget = AgentBudget(stagnation_window=3)
    same = _calls(("read_file", '{"path":"a"}'))
    budget.record_tool_calls(same)
    budget.record_tool_calls(same)
    assert budget.check() is BudgetStatus.WITHIN_BUDGET
    budget.record_tool_calls(same)
    assert budget.check() is BudgetStatus.STAGNATION
    budget.record_tool_calls(_calls(("list_dir", "{}")))
    assert budget.check() is BudgetStatus.STAGNATION  # sticky once detected


def test_stagnation_resets_when_tool_calls_differ() -> None:
    budget = AgentBudget(stagnation_window=3)
    a = _calls(("read_file", '{"path":"a"}'))
    b = _calls(("read_file", '{"path":"b"}'))
    for calls in (a, a, b, a, a):
        budget.record_tool_calls(calls)
    assert budget.check() is BudgetStatus.WITHIN_BUDGET
    budget.record_tool_calls([])  # a step without tools clears the window
    budget.record_tool_calls(a)
    budget.record_tool_calls(a)
    assert budget.check() is BudgetStatus.WITHIN_BUDGET
    budget.record_tool_calls(a)
    assert budget.check() is BudgetStatus.STAGNATION


def test_whole_batch_forms_the_signature() -> None:
    budget = AgentBudget(stagnation_window=2)
    budget.record_tool_calls(_calls(("a", "1"), ("b", "2")))
    budget.record_tool_calls(_calls(("a", "1"), ("b", "3")))
    assert budget.check() is BudgetStatus.WITHIN_BUDGET


def test_hard_iteration_limit_triggers_after_enough_iterations() -> None:
    budget = AgentBudget(hard_max_iterations=3)
    for _ in range(2):
        budget.begin_iteration()
        assert budget.check() is BudgetStatus.WITHIN_BUDGET
    budget.begin_iteration()
    assert budget.check() is BudgetStatus.HARD_ITERATIONS


def test_stagnation_takes_precedence_over_token_budget() -> None:
    budget = AgentBudget(token_budget=10, stagnation_window=2, hard_max_iterations=1)
    budget.begin_iteration()
    budget.record_usage(100, 100)
    assert budget.check() is BudgetStatus.TOKEN_BUDGET
    same = _calls(("x", "{}"))
    budget.record_tool_calls(same)
    budget.record_tool_calls(same)
    assert budget.check() is BudgetStatus.STAGNATION


def test_token_budget_takes_precedence_over_hard_iterations() -> None:
    budget = AgentBudget(token_budget=10, hard_max_iterations=1)
    budget.begin_iteration()
    assert budget.check() is BudgetStatus.HARD_ITERATIONS
    budget.record_usage(10, 0)
    assert budget.check() is BudgetStatus.TOKEN_BUDGET


@pytest.mark.parametrize(
    "kwargs",
    [
        {"token_budget": 0},
        {"token_budget": -5},
        {"stagnation_window": 1},
        {"stagnation_window": 0},
        {"hard_max_iterations": 0},
        {"hard_max_iterations": -1},
    ],
)
def test_invalid_constructor_arguments_rejected(kwargs: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        AgentBudget(**kwargs)


def test_describe_exit_contains_relevant_numbers() -> None:
    budget = AgentBudget(token_budget=1234, stagnation_window=4, hard_max_iterations=7)
    budget.record_usage(1000, 500)
    token_text = budget.describe_exit(BudgetStatus.TOKEN_BUDGET)
    assert "1500" in token_text and "1234" in token_text
    assert "4" in budget.describe_exit(BudgetStatus.STAGNATION)
    assert "7" in budget.describe_exit(BudgetStatus.HARD_ITERATIONS)
    assert budget.describe_exit(BudgetStatus.WITHIN_BUDGET) != token_text


def test_finalization_instruction_forbids_tools_and_full_completion_claims() -> None:
    budget = AgentBudget(hard_max_iterations=2)
    text = budget.finalization_instruction(BudgetStatus.HARD_ITERATIONS)
    assert budget.describe_exit(BudgetStatus.HARD_ITERATIONS) in text
    for phrase in (
        "不要再调用任何工具",
        "1.",
        "2.",
        "3.",
        "4.",
        "已经完成",
        "验证",
        "阻塞",
        "下一步",
        "不要声称",
    ):
        assert phrase in text


def test_default_token_budget_is_unlimited() -> None:
    budget = AgentBudget()
    budget.record_usage(10**12, 10**12)
    assert budget.token_budget is None
    assert budget.check() is BudgetStatus.WITHIN_BUDGET


def test_default_stagnation_window_leaves_room_for_runaway_reminder() -> None:
    assert AgentBudget().stagnation_window == 5
    assert AgentBudget().stagnation_window > DEFAULT_THRESHOLD


def test_default_iteration_limit_is_unlimited() -> None:
    budget = AgentBudget()
    for _ in range(10_000):
        budget.begin_iteration()
    assert budget.check() is BudgetStatus.WITHIN_BUDGET


def configured(**values: str) -> AgentBudget:
    env = EnvLookup(environ=values)
    return AgentBudget.configured(
        knobs.REACT_TOKEN_BUDGET.read(env),
        knobs.REACT_STAGNATION_WINDOW.read(env),
        knobs.REACT_HARD_MAX_ITERATIONS.read(env),
        default_token_budget=5000,
    )


def test_configuration_can_enable_hard_iteration_limit() -> None:
    budget = configured(PAICLI_REACT_HARD_MAX_ITERATIONS="2")
    assert budget.hard_max_iterations == 2
    budget.begin_iteration()
    budget.begin_iteration()
    assert budget.check() is BudgetStatus.HARD_ITERATIONS


def test_configuration_can_still_override_dynamic_token_budget() -> None:
    assert configured().token_budget == 5000
    assert configured(PAICLI_REACT_TOKEN_BUDGET="777").token_budget == 777
    assert configured().stagnation_window == 5


@pytest.mark.parametrize("raw", ["0", "-3", "abc", "1.5"])
def test_invalid_configured_values_are_one_line_errors(raw: str) -> None:
    for key in ("PAICLI_REACT_TOKEN_BUDGET", "PAICLI_REACT_HARD_MAX_ITERATIONS"):
        with pytest.raises(ConfigError, match=key):
            configured(**{key: raw})
    with pytest.raises(ConfigError, match="PAICLI_REACT_STAGNATION_WINDOW"):
        configured(PAICLI_REACT_STAGNATION_WINDOW="1")


def test_max_turns_flag_wins_over_configuration() -> None:
    assert AgentBudget.configured(hard_max_iterations=3).hard_max_iterations == 3


CYCLES = [
    [["read_file"], ["list_dir"]],
    [["read_file"], ["list_dir"], ["grep_code"]],
    [["read_file", "list_dir"], ["list_dir", "read_file"]],
    [["a"], ["b"], ["c"], ["d"], ["e"], ["f"]],
]


@pytest.mark.parametrize("cycle", CYCLES)
def test_real_runs_get_a_generous_default_cap(cycle: list[list[str]]) -> None:
    """Issue 17: tool calls that alternate never look stagnant; the configured default (200) still ends them."""
    budget = configured()
    assert budget.hard_max_iterations == 200
    for _ in range(199):
        budget.begin_iteration()
        names = cycle[budget.iteration % len(cycle)]
        budget.record_tool_calls([ToolCall(f"c{i}", name, "{}") for i, name in enumerate(names)])
        assert budget.check() is BudgetStatus.WITHIN_BUDGET
    budget.begin_iteration()
    assert budget.check() is BudgetStatus.HARD_ITERATIONS
