"""Long-session compaction: prefix-cache reuse, compaction counts, window fit, memories, unseen results, ledger size.

A fixed 60-turn scripted session (tool outputs of 3k-40k characters, parallel calls, one turn of many rounds, a
saved memory and a PAI.md) runs through the real CLI components against the loopback server, which counts
cl100k tokens and emulates a provider prefix cache. Per window (16K, 32K) and summariser (working, failing):

- cached/prompt: all cached prompt tokens over all prompt tokens (summary requests included);
- L2 / L3 / fallback: automatic clearing, summary and mechanical-note events in the ledger;
- max request / window: the largest request's prompt tokens (tools included) over the window;
- unseen cleared: tool results whose first appearance in a request was already a placeholder, or never;
- missing memory: agent requests that do not carry the saved memory;
- ledger bytes per turn.

Run from the repository root: python -m evals.bench_longsession [--turns 60] [--windows 16000,32K]
(--windows picks which of the windows to run; each target's verdict line is printed for the windows run.)
Targets: cached/prompt >= 0.85 @16K and >= 0.90 @32K; 0 unseen cleared; 0 requests over the window (also with
the summariser failing); 0 missing memories; ledger bytes per turn <= half the baseline recorded below.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.fakes.openai_server import FakeOpenAIServer, Reply, count_tokens, is_summary_request, prompt_text

from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.compose import build_components
from paicli.config.env import EnvLookup
from paicli.config.settings import load_settings
from paicli.memory.entry import new_fact

# Measured with this script on the branch before this work (commit ba12f66, same 60 turns):
#   16K ok:      cached/prompt 0.739, L2 70, L3 10, unseen cleared 28, missing memory 17, 34,305 ledger bytes/turn
#   16K failing: max request/window 1.98 (88 requests over), unseen cleared 48
#   32K ok:      cached/prompt 0.801, L2 62, L3 2, unseen cleared 28, missing memory 14, 53,182 ledger bytes/turn
#   32K failing: max request/window 0.94, unseen cleared 36
BASELINE_LEDGER_BYTES_PER_TURN = {16_000: 34_305, 32_000: 53_182}
# Ceiling (2026-12-01): content sent for the first time (system prompt and tools once, every user message, answer
# and tool result once) is 13.8% of the prompt tokens @16K and 12.0% @32K: no request can have it from a cache, so
# cached/prompt stays below 0.862 / 0.880 for these prompts whatever compaction does (requests with no compaction
# before them lose only the 128-token cache granularity beyond their new messages: 33 tokens on average).
# Measured after the shared-prefix summaries, same-pass tail clearing and the one-request clearing wait:
# 0.842 @16K (compaction's own cost 2.0 points, all of it L2 events: about 700 tokens each) and 0.864 @32K
# (1.6 points). Lighter mixes within the constraints (chat-only turns, five parallel reads every 10th
# turn) gave 0.877 / 0.895 with requests without compaction at 0.891 / 0.906.
MEMORY_FACT = "构建命令统一使用 make build-all，不要直接调用 gradle"
CLEARED_PREFIX = "[已清理的旧工具结果]"
# Output sizes in characters: mostly a few thousand, now and then a big one (L1 offloads those).
SIZES = (3_000, 4_000, 5_000, 6_000, 8_000, 12_000, 18_000, 25_000, 40_000)
SMALL = (3_000, 3_500, 4_000, 4_500, 5_000)
SUMMARY = (
    "## 当前目标与成功条件\n检查模块并回答构建相关问题。\n## 用户要求与已确认决定\n按 make build-all 构建。\n"
    "## 已完成工作及证据\n已读取若干模块文件。\n## 未解决问题与下一步\n继续回答后续问题。"
)


def turn_plan(turn: int) -> list[list[str]]:
    """The rounds of one turn: each round is the files read by one response's parallel calls."""
    if turn == 30:  # one long task: many rounds within a single turn
        return [[f"f{SIZES[(turn + r) % len(SIZES)]}.txt"] for r in range(14)]
    kind = turn % 4
    if kind == 0:
        return []
    if kind == 1:
        return [[f"f{SIZES[turn % len(SIZES)]}.txt"]]
    if kind == 2:
        return [[f"f{size}.txt" for size in SMALL]]  # five parallel calls
    return [[f"f{SMALL[turn % len(SMALL)]}.txt"], [f"f{SIZES[(turn * 7) % len(SIZES)]}.txt"]]


@dataclass
class Figures:
    window: int
    failing: bool
    prompt: int = 0
    cached: int = 0
    l2: int = 0
    l3: int = 0
    fallback: int = 0
    max_request: int = 0
    over_window: int = 0
    unseen_cleared: int = 0
    missing_memory: int = 0
    steady_prompt: int = 0  # agent requests that only append to the previous one (no compaction in between)
    steady_cached: int = 0
    first_sent: int = 0  # tokens of content sent for the first time (see first_sent_tokens)
    summary_prompt: int = 0  # summary-model requests that got an answer
    summary_cached: int = 0
    ledger_bytes: int = 0
    turns: int = 0


def write_project(project: Path) -> None:
    project.mkdir(parents=True)
    (project / "PAI.md").write_text(
        "# 项目约定\n- 代码注释用英文。\n- 修改前先阅读相关模块。\n- 提交信息写清原因。\n", encoding="utf-8"
    )
    for size in sorted(set(SIZES + SMALL)):  # source-like text (about 3.5 characters per cl100k token)
        lines = [
            f"    result_{n} = compute(alpha, beta, gamma)  # step {n} of module {size}\n"
            for n in range(size // 40)
        ]
        (project / f"f{size}.txt").write_text("".join(lines)[:size], encoding="utf-8")


def make_responder(failing: bool, turn_of: list[int], rounds: dict[int, int]) -> Any:
    def responder(body: dict[str, Any]) -> Reply | str:
        if is_summary_request(body):
            return Reply.error(500, "summary model down") if failing else SUMMARY
        turn = turn_of[0]
        done = rounds.get(turn, 0)
        plan = turn_plan(turn)
        if done < len(plan):
            rounds[turn] = done + 1
            return Reply.tool_calls(*[("read_file", json.dumps({"path": f})) for f in plan[done]])
        return f"第 {turn} 轮完成：构建请用约定的命令。" + "已核对相关模块。" * 6

    return responder


def run_session(window: int, failing: bool, turns: int, root: Path) -> Figures:
    tag = f"{window}-{'fail' if failing else 'ok'}"
    home, project = root / f"home-{tag}", root / f"project-{tag}"
    write_project(project)
    turn_of, rounds = [0], {}
    with FakeOpenAIServer(responder=make_responder(failing, turn_of, rounds), cache_emulation=True) as server:
        env = EnvLookup(
            environ={
                "HOME": str(home),
                "PAICLI_HOME": str(home / ".paicli"),
                "PAICLI_BASE_URL": server.base_url,
                "PAICLI_MODEL": "fake-model",
                "PAICLI_CONTEXT_WINDOW": str(window),
                "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "false",
                "PAICLI_PROMPT_RUNTIME_DATE": "2026-11-30",
                "PAICLI_PROMPT_RUNTIME_ZONE": "UTC",
                "PAICLI_LLM_MAX_RETRIES": "0",
            },
            cwd=project,
        )
        settings = load_settings(env, cwd=project)
        parts = build_components(settings, env, _approver(), yes=True)
        parts.memory.store.store(
            new_fact(MEMORY_FACT, {"source": "fact", "scope": "global"}, parts.memory.clock)
        )
        backend = AppBackend(parts, auto_extract=False)
        for turn in range(1, turns + 1):
            turn_of[0] = turn
            backend.run(
                f"第 {turn} 轮：构建之前请检查一下相关模块，构建命令是什么？", "react", _ignore, CancelToken()
            )
        backend.close()
        figures = Figures(window, failing, turns=turns)
        measure(server.requests, server.usages, figures)
        ledger = parts.ledger.path
        if ledger is not None:
            figures.ledger_bytes = ledger.stat().st_size
            count_events(ledger, figures)
    return figures


def _approver() -> Any:
    from paicli.tools.approval import AutoApprover

    return AutoApprover()


def _ignore(event: object) -> None:
    return None


def measure(requests: list[dict[str, Any]], usages: list[dict[str, Any]], figures: Figures) -> None:
    figures.prompt = sum(u["prompt_tokens"] for u in usages)
    figures.cached = sum(u["prompt_tokens_details"]["cached_tokens"] for u in usages)
    first_seen: dict[str, bool] = {}  # call id -> its first appearance in a request was the real result
    calls: set[str] = set()
    previous: list[Any] | None = None
    answered = [
        r for r in requests if not is_summary_request(r) or not figures.failing
    ]  # failed summaries: no usage
    for body, usage in zip(answered, usages, strict=True):
        if is_summary_request(body):
            figures.summary_prompt += usage["prompt_tokens"]
            figures.summary_cached += usage["prompt_tokens_details"]["cached_tokens"]
        else:
            if previous is not None and body["messages"][: len(previous)] == previous:
                figures.steady_prompt += usage["prompt_tokens"]
                figures.steady_cached += usage["prompt_tokens_details"]["cached_tokens"]
            previous = body["messages"]
    figures.first_sent = first_sent_tokens(answered)
    for body in requests:
        tokens = count_tokens(prompt_text(body))
        figures.max_request = max(figures.max_request, tokens)
        figures.over_window += tokens > figures.window
        if is_summary_request(body):
            continue
        messages = body["messages"]
        if not any(MEMORY_FACT in (m.get("content") or "") for m in messages):
            figures.missing_memory += 1
        for m in messages:
            if m.get("role") == "assistant":
                calls.update(call["id"] for call in m.get("tool_calls") or [])
            elif m.get("role") == "tool" and m["tool_call_id"] not in first_seen:
                first_seen[m["tool_call_id"]] = not (m.get("content") or "").startswith(CLEARED_PREFIX)
    figures.unseen_cleared = sum(1 for call in calls if not first_seen.get(call, False))


# Text that compaction itself writes (a placeholder, a summary, a fallback note, the summary instruction): a
# cost of compaction, not new content of the session.
COMPACTION_TEXT = (
    CLEARED_PREFIX,
    "[已压缩的历史对话摘要]",
    "[已省略的早期对话]",
    "【上下文整理请求",
    "好的，我已了解之前的上下文",
)


def first_sent_tokens(bodies: list[dict[str, Any]]) -> int:
    """Tokens of the session's own content the first time it is sent: the system prompt and tools once, each
    user message, answer and tool result once (a tool result first sent as an offload notice counts as the
    notice). No request can have those served from a cache, whatever compaction does, so 1 - first_sent/prompt
    bounds cached/prompt for the prompts of the run."""
    seen: set[str] = set()
    total = 0
    for body in bodies:
        pieces = [json.dumps(body.get("tools") or [], ensure_ascii=False, sort_keys=True)]
        for message in body.get("messages") or []:
            if str(message.get("content") or "").startswith(COMPACTION_TEXT):
                continue
            pieces.append(json.dumps(message, ensure_ascii=False, sort_keys=True))
        for piece in pieces:
            if piece not in seen:
                seen.add(piece)
                total += count_tokens(piece)
    return total


def count_events(ledger: Path, figures: Figures) -> None:
    for line in ledger.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("event") != "compaction":
            continue
        source = entry.get("source", "")
        figures.l2 += source == "automatic:tool_result_clearing"
        figures.l3 += source in ("automatic:full_summary", "automatic:session_memory")
        figures.fallback += source == "automatic:dropped_rounds"


def ratio_of(f: Figures) -> float:
    return f.cached / f.prompt if f.prompt else 0.0


def first_sent_share(f: Figures) -> float:
    return f.first_sent / f.prompt if f.prompt else 0.0


def report(f: Figures) -> None:
    ratio = ratio_of(f)
    base = BASELINE_LEDGER_BYTES_PER_TURN.get(f.window, 0)
    per_turn = f.ledger_bytes / max(1, f.turns)
    vs = f" (baseline {base:,}, {per_turn / base:.2f}x)" if base else ""
    print(
        f"{f.window // 1000:>3}K summariser={'failing' if f.failing else 'ok':7} cached/prompt {ratio:.3f}  "
        f"L2 {f.l2:3d}  L3 {f.l3:3d}  fallback {f.fallback:3d}  max request/window {f.max_request / f.window:.2f} "
        f"(over {f.over_window})  unseen cleared {f.unseen_cleared}  missing memory {f.missing_memory}  "
        f"ledger bytes/turn {per_turn:,.0f}{vs}  [requests with no compaction before them: cached/prompt "
        f"{f.steady_cached / max(1, f.steady_prompt):.3f}; first-sent content {first_sent_share(f):.3f} of prompt "
        f"tokens, so at most {1 - first_sent_share(f):.3f}; summary requests: {f.summary_prompt:,} prompt tokens, "
        f"cached/prompt {f.summary_cached / max(1, f.summary_prompt):.3f}]"
    )


CACHE_TARGETS = {16_000: 0.85, 32_000: 0.90}


def parse_windows(text: str) -> list[int]:
    """'16000,32K' -> [16000, 32000]; an unknown or malformed window is an argparse error."""
    windows: list[int] = []
    for item in (part.strip().lower() for part in text.split(",")):
        if not item:
            continue
        try:
            window = int(item[:-1]) * 1000 if item.endswith("k") else int(item)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a window: {item!r}") from None
        if window not in CACHE_TARGETS:
            known = ", ".join(str(w) for w in CACHE_TARGETS)
            raise argparse.ArgumentTypeError(f"no targets for window {window} (known: {known})")
        if window not in windows:
            windows.append(window)
    if not windows:
        raise argparse.ArgumentTypeError("no window given")
    return windows


def verdicts(results: list[Figures]) -> list[tuple[bool, str]]:
    """One (passed, line) per target over the runs made."""
    lines: list[tuple[bool, str]] = []
    for f in results:
        if not f.failing:
            target = CACHE_TARGETS[f.window]
            ratio = ratio_of(f)
            lines.append(
                (ratio >= target, f"cached/prompt @{f.window // 1000}K: {ratio:.3f} (target >= {target:.2f})")
            )
    for name, value in (
        ("unseen cleared", sum(f.unseen_cleared for f in results)),
        ("requests over the window", sum(f.over_window for f in results)),
        ("missing memories", sum(f.missing_memory for f in results)),
    ):
        lines.append((value == 0, f"{name}: {value} (target 0)"))
    for f in results:
        if not f.failing:
            base = BASELINE_LEDGER_BYTES_PER_TURN[f.window]
            per_turn = f.ledger_bytes / max(1, f.turns)
            lines.append(
                (
                    per_turn <= base / 2,
                    f"ledger bytes/turn @{f.window // 1000}K: {per_turn:,.0f} (target <= {base // 2:,})",
                )
            )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--windows", type=parse_windows, default=parse_windows("16000,32000"))
    args = parser.parse_args()
    results: list[Figures] = []
    with tempfile.TemporaryDirectory() as tmp:
        for window in args.windows:
            for failing in (False, True):
                figures = run_session(window, failing, args.turns, Path(tmp))
                report(figures)
                results.append(figures)
    checks = verdicts(results)
    for passed, line in checks:
        print(f"{'PASS' if passed else 'FAIL'}  {line}")
    for f in results:
        if not f.failing:
            bound = 1 - first_sent_share(f)
            print(
                f"INFO  cached/prompt @{f.window // 1000}K: at most {bound:.3f} for these prompts (first-sent content "
                f"{first_sent_share(f):.1%}); compaction's own cost {100 * (bound - ratio_of(f)):.1f} points; per "
                f"turn {f.prompt / max(1, f.turns):,.0f} prompt tokens, {(f.prompt - f.cached) / max(1, f.turns):,.0f} "
                "not from the cache"
            )
    return 0 if all(passed for passed, _ in checks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
