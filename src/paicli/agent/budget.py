"""AgentBudget (spec 8.2): the per-run safety valve — token budget, stagnation window, hard iteration cap.

Pure: the loop feeds it usage and tool calls; it answers whether to stop calling tools and finalise.
Call order in a loop: `check()` before each model call, `begin_iteration()` when that call is made,
`record_usage()` / `record_tool_calls()` after the response.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from enum import Enum

from paicli.llm.messages import ToolCall

DEFAULT_STAGNATION_WINDOW = 5


class BudgetStatus(Enum):
    WITHIN_BUDGET = "within_budget"
    STAGNATION = "stagnation"
    TOKEN_BUDGET = "token_budget"
    HARD_ITERATIONS = "hard_iterations"


class AgentBudget:
    """One budget per run (ReAct run, Plan task, Team sub-agent activation). `None` limits are unlimited."""

    def __init__(
        self,
        token_budget: int | None = None,
        stagnation_window: int = DEFAULT_STAGNATION_WINDOW,
        hard_max_iterations: int | None = None,
    ) -> None:
        if token_budget is not None and token_budget <= 0:
            raise ValueError(f"token_budget must be positive, got {token_budget}")
        if stagnation_window < 2:
            raise ValueError(f"stagnation_window must be at least 2, got {stagnation_window}")
        if hard_max_iterations is not None and hard_max_iterations <= 0:
            raise ValueError(f"hard_max_iterations must be positive, got {hard_max_iterations}")
        self.token_budget = token_budget
        self.stagnation_window = stagnation_window
        self.hard_max_iterations = hard_max_iterations
        self.iteration = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self._signatures: deque[str] = deque(maxlen=stagnation_window)
        self._stagnant = False

    @classmethod
    def configured(
        cls,
        token_budget: int | None = None,
        stagnation_window: int = DEFAULT_STAGNATION_WINDOW,
        hard_max_iterations: int | None = None,
        default_token_budget: int | None = None,
    ) -> AgentBudget:
        """The budget from configured values (declared in config/knobs); `token_budget` None: the default."""
        return cls(token_budget or default_token_budget, max(2, stagnation_window), hard_max_iterations)

    @property
    def used_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def begin_iteration(self) -> None:
        self.iteration += 1

    def record_usage(self, input_tokens: int, output_tokens: int) -> None:
        self.input_tokens += max(0, input_tokens)
        self.output_tokens += max(0, output_tokens)

    def record_tool_calls(self, calls: Sequence[ToolCall]) -> None:
        if not calls:
            self._signatures.clear()
            return
        self._signatures.append("".join(f"{call.name}|{call.arguments};" for call in calls))
        if len(self._signatures) == self.stagnation_window and len(set(self._signatures)) == 1:
            self._stagnant = True

    def check(self) -> BudgetStatus:
        if self._stagnant:
            return BudgetStatus.STAGNATION
        if self.token_budget is not None and self.used_tokens >= self.token_budget:
            return BudgetStatus.TOKEN_BUDGET
        if self.hard_max_iterations is not None and self.iteration >= self.hard_max_iterations:
            return BudgetStatus.HARD_ITERATIONS
        return BudgetStatus.WITHIN_BUDGET

    def describe_exit(self, status: BudgetStatus) -> str:
        if status is BudgetStatus.TOKEN_BUDGET:
            return f"Token 用量已达到预算上限（{self.used_tokens} / {self.token_budget}），停止调用工具并开始收尾"
        if status is BudgetStatus.STAGNATION:
            return f"连续 {self.stagnation_window} 轮出现完全相同的工具调用，可能陷入了循环，停止调用工具并开始收尾"
        if status is BudgetStatus.HARD_ITERATIONS:
            return f"已达到设定的最大轮数上限（{self.hard_max_iterations}），停止调用工具并开始收尾"
        return "没有触发任何兜底限制"

    def finalization_instruction(self, status: BudgetStatus) -> str:
        return (
            f"执行预算的保护机制已经触发：{self.describe_exit(status)}。\n"
            "不要再调用任何工具。只依据当前对话和已经拿到的工具结果，尽力给出目前能给的部分结果。\n"
            "请分别写清楚：1. 已经完成的部分；2. 已经验证过的部分；3. 尚未完成或被阻塞的部分；4. 建议的下一步。\n"
            "不要声称整个任务已经完成。"
        )
