"""Context benchmark: `python -m evals.bench_context` from the repository root.

(a) cost of the compaction check + token counting per model call on a ~150k-token mixed history
(b) the heuristic estimator's and the calibrated count's error against exact tiktoken counts
(c) tokens before/after each compaction level over a generated 40-turn session
Everything is generated from fixed seeds; no network, no real home (a temp project dir is used).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from paicli.config.compaction_values import CompactionValues, OffloadValues
from paicli.config.env import EnvLookup
from paicli.context.manager import AutoCompactionManager
from paicli.context.offload import ToolResultOffloader
from paicli.context.profile import ContextProfile
from paicli.context.tokens import TokenCounter
from paicli.llm.messages import ChatResponse, Message, ToolCall, Usage

SEED = 20261106
ZH = [
    "请帮我检查一下这个模块的错误处理逻辑",
    "上下文压缩之后需要保留最近三轮用户提问",
    "这个函数在并发调用时可能出现竞态条件",
    "把配置项统一放到环境变量里读取",
    "测试失败的原因是临时目录没有清理干净",
    "长期记忆只保存用户明确确认过的事实",
    "工具结果超过阈值时会被卸载到会话文件",
    "我们先修复解析器，再补充单元测试",
]
EN = [
    "INFO  request completed in {n} ms status=200 path=/api/v1/items/{n}",
    "WARN  retrying connection to upstream host attempt={n}",
    'ERROR Traceback (most recent call last): File "app/{w}.py", line {n}, in handle',
    "The build finished with {n} warnings and no errors.",
    "Resolved dependency {w}=={n}.{n}.0 from the local cache",
]
WORDS = ["parser", "ledger", "tokens", "history", "offload", "summary", "client", "budget", "memory", "guard"]


def code_block(rng: random.Random, lines: int) -> str:
    out = []
    for _ in range(lines):
        a, b = rng.choice(WORDS), rng.choice(WORDS)
        out.append(
            rng.choice(
                [
                    f"def {a}_{b}(self, value: int) -> int:",
                    f"    return self._{a}.get({b!r}, {rng.randint(0, 999)})",
                    f"    if {a} is None:  # {rng.choice(ZH)}",
                    f"{a.upper()}_{b.upper()} = {rng.randint(0, 99999)}",
                    f"        raise ValueError(f'bad {a}: {{{b}}}')",
                ]
            )
        )
    return "\n".join(out)


def log_block(rng: random.Random, lines: int) -> str:
    return "\n".join(rng.choice(EN).format(n=rng.randint(1, 9999), w=rng.choice(WORDS)) for _ in range(lines))


def zh_text(rng: random.Random, sentences: int) -> str:
    return "，".join(rng.choice(ZH) for _ in range(sentences)) + "。"


def turn(rng: random.Random, index: int, size: float = 1.0) -> list[Message]:
    calls = tuple(
        ToolCall(
            f"call-{index}-{k}",
            rng.choice(["read_file", "grep_code", "execute_command"]),
            f'{{"path":"src/{rng.choice(WORDS)}.py"}}',
        )
        for k in range(rng.randint(1, 3))
    )
    messages = [
        Message.user(f"第 {index} 轮：" + zh_text(rng, rng.randint(2, 6))),
        Message.assistant(zh_text(rng, 1), calls),
    ]
    for call in calls:
        body = (
            code_block(rng, int(rng.randint(20, 80) * size))
            if call.name == "read_file"
            else log_block(rng, int(rng.randint(20, 80) * size))
        )
        messages.append(
            Message.tool(
                call.id, f'<tool_result tool="{call.name}" trust="untrusted-data">\n{body}\n</tool_result>'
            )
        )
    messages.append(
        Message.assistant(zh_text(rng, rng.randint(3, 10)) + "\n```python\n" + code_block(rng, 6) + "\n```")
    )
    return messages


def corpus(target_tokens: int, counter: TokenCounter, seed: int = SEED) -> list[Message]:
    rng = random.Random(seed)
    history = [Message.system("你是 paicli，一个终端编程助手。" + zh_text(rng, 20))]
    index = 0
    while counter.count_messages(history) < target_tokens:
        index += 1
        history += turn(rng, index)
    return history


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


class SummaryLLM:
    """Stands in for the summary model: a structured summary a few hundred tokens long."""

    model = "bench-model"

    def __init__(self) -> None:
        self.calls = 0

    def with_model(self, model: str) -> SummaryLLM:
        return self

    def chat(self, messages: object, tools: object = None, **_: object) -> ChatResponse:
        self.calls += 1
        body = "\n".join(
            f"{h}\n- " + "，".join(ZH[(self.calls + i + k) % len(ZH)] for k in range(4))
            for i, h in enumerate(
                [
                    "## 当前目标与成功条件",
                    "## 用户要求与已确认决定",
                    "## 已完成工作及证据",
                    "## 未解决问题与下一步",
                ]
            )
        )
        return ChatResponse(Message.assistant(body), Usage(), "stop", self.model)


def bench_cost(calls: int) -> None:
    env = EnvLookup(environ={"PAICLI_TOOL_RESULT_CLEARING_ENABLED": "false"}, cwd=Path(tempfile.gettempdir()))
    t0 = time.perf_counter()
    counter = TokenCounter("exact")
    counter.count_text("warm up")
    load = time.perf_counter() - t0
    history = corpus(150_000, TokenCounter("exact"))
    manager = AutoCompactionManager(
        counter, ContextProfile.from_window(1_000_000), CompactionValues.parse(env)
    )
    summaries = SummaryLLM()
    tools = [{"type": "function", "function": {"name": w, "parameters": {"type": "object"}}} for w in WORDS]
    rng = random.Random(SEED + 1)

    def one_call() -> float:
        start = time.perf_counter()
        manager.before_call(history, tools, llm=summaries)
        counter.count_request(history, tools)
        return time.perf_counter() - start

    first = one_call()
    steady: list[float] = []
    for i in range(calls):
        history += turn(rng, 10_000 + i, size=0.3)
        steady.append(one_call())
    heuristic = TokenCounter("heuristic")
    h_first = time.perf_counter()
    heuristic.count_messages(history)
    h_first = time.perf_counter() - h_first
    print("(a) compaction check + token counting per model call")
    print(f"    history: {len(history)} messages, {counter.count_messages(history)} exact tokens (cl100k)")
    print(f"    tiktoken load: {load * 1000:.1f} ms (once per process)")
    print(
        f"    first call (cold cache): {first * 1000:.1f} ms   heuristic cold count: {h_first * 1000:.1f} ms"
    )
    print(
        f"    steady state, {calls} calls each adding one turn: median {median_ms(steady):.2f} ms, max {max(steady) * 1000:.2f} ms (target < 5 ms)"
    )


def bench_error() -> None:
    exact = TokenCounter("exact")
    history = corpus(150_000, exact)
    heuristic = TokenCounter("heuristic")
    per_message = [
        abs(heuristic.count_message(m) - exact.count_message(m)) / exact.count_message(m) for m in history
    ]
    total_exact, total_heur = exact.count_messages(history), heuristic.count_messages(history)
    print("(b) estimator error against exact tiktoken (cl100k) counts on the same corpus")
    print(
        f"    heuristic total: {total_heur} vs exact {total_exact}: {100 * (total_heur - total_exact) / total_exact:+.1f}%"
    )
    print(
        f"    heuristic per message: median |error| {100 * statistics.median(per_message):.1f}%, p90 {100 * sorted(per_message)[int(0.9 * len(per_message))]:.1f}%"
    )
    # The "provider" reports exact counts after every call; the heuristic counter calibrates on them.
    calibrated = TokenCounter("heuristic")
    errors: list[float] = []
    boundaries = list(range(40, len(history), 40))
    for n in boundaries:
        prefix = history[:n]
        truth = exact.count_messages(prefix)
        if calibrated.calibration("m") is not None:
            errors.append(abs(calibrated.calibrated("m", calibrated.count_messages(prefix)) - truth) / truth)
        calibrated.observe("m", calibrated.count_messages(prefix), truth)
    print(
        f"    calibrated heuristic over {len(errors)} growing requests: median |error| {100 * statistics.median(errors):.2f}%, max {100 * max(errors):.2f}%"
    )
    print(f"    calibration ratio reached: x{calibrated.ratio('m'):.3f}")


def bench_levels(window: int) -> None:
    rng = random.Random(SEED + 2)
    llm = SummaryLLM()
    with tempfile.TemporaryDirectory() as root:
        env = EnvLookup(environ={}, cwd=Path(root))
        counter = TokenCounter("exact")
        manager = AutoCompactionManager(
            counter, ContextProfile.from_window(window), CompactionValues.parse(env)
        )
        offloader = ToolResultOffloader(root, OffloadValues.parse(env), session_dir_name="session-bench")
        history = [Message.system("你是 paicli。")]
        offloaded = [0, 0, 0]
        levels: dict[str, list[int]] = {}
        peak = 0
        for index in range(1, 41):
            for message in turn(rng, index, size=rng.choice([0.5, 1.0, 2.0])):
                if message.role == "tool" and rng.random() < 0.08:
                    message = message.with_content((message.content or "") + log_block(rng, 900))
                if message.role == "tool":
                    raw = message.content or ""
                    kept = offloader.offload_if_oversized("execute_command", "{}", raw)
                    if kept is not raw:
                        offloaded[0] += 1
                        offloaded[1] += counter.count_text(raw)
                        offloaded[2] += counter.count_text(kept)
                        message = message.with_content(kept)
                history.append(message)
                if message.role == "user" or (message.role == "tool" and history[-2].role == "assistant"):
                    result = manager.before_call(history, None, llm=llm)
                    for step in result.steps:
                        levels.setdefault(step.strategy, []).extend([step.before_tokens, step.after_tokens])
                    peak = max(peak, counter.count_messages(history))
        print(
            f"(c) compaction levels over a 40-turn session, window {window} (trigger {manager.profile.compression_trigger_tokens})"
        )
        if offloaded[0]:
            print(f"    L1 offload: {offloaded[0]} results, {offloaded[1]} -> {offloaded[2]} tokens")
        for name, figures in levels.items():
            pairs = list(zip(figures[::2], figures[1::2], strict=True))
            shown = ", ".join(f"{a}->{b}" for a, b in pairs[:4]) + (", ..." if len(pairs) > 4 else "")
            removed = sum(a - b for a, b in pairs)
            print(f"    {name}: {len(pairs)} times, {removed} tokens removed in total: {shown}")
        print(
            f"    summary model calls: {llm.calls}; largest history sent (after the check): {peak} tokens; final: {counter.count_messages(history)} tokens, {len(history)} messages"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=40, help="steady-state calls to time")
    args = parser.parse_args(argv)
    sections: list[Callable[[], None]] = [
        lambda: bench_cost(args.calls),
        bench_error,
        lambda: bench_levels(16_000),
        lambda: bench_levels(32_000),
        lambda: bench_levels(128_000),
    ]
    for section in sections:
        section()
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
