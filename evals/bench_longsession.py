"""Long-session compaction, both profiles side by side: what compaction costs, what it keeps, what it loses.

A fixed 60-turn scripted session (tool outputs of 3k-40k characters, parallel calls, one turn of many rounds, a
saved memory, a PAI.md, and 12 facts the user states in the first 12 turns) runs through the real CLI components
against the loopback server, which counts cl100k tokens and emulates a provider prefix cache (64-token blocks).
The same session runs under PAICLI_COMPACTION_PROFILE=paicli and =reference, per window (16K, 32K), with a
summariser that keeps what it is given (every fact it sees goes into its summary) and with it failing:

- uncached / first-sent tokens per turn: prompt tokens not served from the cache; tokens of content sent for
  the first time (no cache can have those, whatever compaction does);
- rounding per turn: tokens of a prefix shared with an earlier request that the 64-token blocks leave uncached;
- compaction overhead per turn: uncached - first-sent - rounding (placeholders, summaries, notes, summary
  requests and the cache breaks they cause), also as points of prompt tokens;
- cached/prompt; requests over the window; unseen results cleared (first sent as a placeholder, or never);
- user facts retained: of the 12 facts, how many the session's last request still carries;
- latest request verbatim: agent requests that carry the current turn's user text unchanged.

Run from the repository root: python -m evals.bench_longsession [--turns 60] [--windows 16000,32K]
[--profiles paicli,reference]. Targets (paicli profile): overhead <= 0.8 points at 16K and 32K; uncached per
turn <= 0.85x the reference's; 0 requests over the window (the reference's overflow is reported); 0 unseen
cleared; facts 12/12 (summariser working), >= 10/12 (failing); the latest request verbatim in every request.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.compose import build_components
from paicli.config.env import EnvLookup
from paicli.config.settings import load_settings
from paicli.memory.entry import new_fact
from paicli.testing.openai_server import (
    CACHE_BLOCK,
    FakeOpenAIServer,
    Reply,
    count_tokens,
    is_summary_request,
    prompt_text,
)

# Measured before this work (commit d748768, paicli profile, same 60 turns without the facts): overhead
# 1.66 points @16K and 1.40 @32K; 20,143 / 31,665 prompt, 3,183 / 4,311 uncached, 2,771 / 3,801 first-sent
# tokens per turn; with the summariser failing, 0 of 12 facts survived a fallback note.
MEMORY_FACT = "构建命令统一使用 make build-all，不要直接调用 gradle"
FACTS = (
    "数据库端口固定为 5433",
    "发布分支命名为 release/2027-q1",
    "日志目录是 /var/log/orion",
    "超时上限设为 45 秒",
    "负责人是王晓峰",
    "接口前缀统一为 /api/v3",
    "缓存条目上限 20000 条",
    "不要修改 legacy_billing 模块",
    "测试用 pytest -n 4 运行",
    "配置文件格式只用 TOML",
    "错误码从 E7100 开始编号",
    "每次提交前运行 make lint",
)
CLEARED_PREFIX = "[已清理的旧工具结果]"
# Output sizes in characters: mostly a few thousand, now and then a big one (L1 offloads those).
SIZES = (3_000, 4_000, 5_000, 6_000, 8_000, 12_000, 18_000, 25_000, 40_000)
SMALL = (3_000, 3_500, 4_000, 4_500, 5_000)
SUMMARY_BODY = (
    "## 当前目标与成功条件\n检查模块并回答构建相关问题。\n## 用户要求与已确认决定\n按 make build-all 构建。\n{facts}"
    "## 已完成工作及证据\n已读取若干模块文件。\n## 未解决问题与下一步\n继续回答后续问题。"
)
PROFILES = ("paicli", "reference")
WINDOWS = (16_000, 32_000)


def turn_text(turn: int) -> str:
    fact = f"请记住这个约定：{FACTS[turn - 1]}。" if turn <= len(FACTS) else ""
    return f"第 {turn} 轮：{fact}构建之前请检查一下相关模块，构建命令是什么？"


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
    profile: str = "paicli"
    prompt: int = 0
    cached: int = 0
    first_sent: int = 0  # tokens of content sent for the first time (see first_sent_tokens)
    rounding: int = 0  # shared-prefix tokens the cache blocks leave uncached
    l2: int = 0
    l3: int = 0
    fallback: int = 0
    max_request: int = 0
    over_window: int = 0
    unseen_cleared: int = 0
    missing_memory: int = 0
    facts_retained: int = 0
    not_verbatim: int = 0  # agent requests without the current turn's user text
    agent_requests: int = 0
    turns: int = 0
    expected: list[str] = field(default_factory=list)  # per agent request: the turn's user text

    def per_turn(self, tokens: int) -> float:
        return tokens / max(1, self.turns)

    @property
    def uncached(self) -> int:
        return self.prompt - self.cached

    @property
    def overhead(self) -> int:
        return self.uncached - self.first_sent - self.rounding

    @property
    def overhead_points(self) -> float:
        return 100 * self.overhead / self.prompt if self.prompt else 0.0


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


def keeping_summary(body: dict[str, Any]) -> str:
    """A summariser that keeps what it is given: every fact its input shows goes into the summary."""
    text = prompt_text(body)
    kept = "".join(f"- {fact}\n" for fact in FACTS if fact in text)
    return SUMMARY_BODY.format(facts=kept)


def make_responder(failing: bool, turn_of: list[int], rounds: dict[int, int], figures: Figures) -> Any:
    def responder(body: dict[str, Any]) -> Reply | str:
        if is_summary_request(body):
            return Reply.error(500, "summary model down") if failing else keeping_summary(body)
        turn = turn_of[0]
        figures.expected.append(turn_text(turn))
        done = rounds.get(turn, 0)
        plan = turn_plan(turn)
        if done < len(plan):
            rounds[turn] = done + 1
            return Reply.tool_calls(*[("read_file", json.dumps({"path": f})) for f in plan[done]])
        return f"第 {turn} 轮完成：构建请用约定的命令。" + "已核对相关模块。" * 6

    return responder


def run_session(window: int, failing: bool, turns: int, root: Path, profile: str = "paicli") -> Figures:
    tag = f"{profile}-{window}-{'fail' if failing else 'ok'}"
    home, project = root / f"home-{tag}", root / f"project-{tag}"
    write_project(project)
    turn_of, rounds = [0], {}
    figures = Figures(window, failing, profile, turns=turns)
    responder = make_responder(failing, turn_of, rounds, figures)
    with FakeOpenAIServer(responder=responder, cache_emulation=True) as server:
        env = EnvLookup(
            environ={
                "HOME": str(home),
                "PAICLI_HOME": str(home / ".paicli"),
                "PAICLI_BASE_URL": server.base_url,
                "PAICLI_MODEL": "fake-model",
                "PAICLI_CONTEXT_WINDOW": str(window),
                "PAICLI_COMPACTION_PROFILE": profile,
                "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "false",
                "PAICLI_PROMPT_RUNTIME_DATE": "2026-11-30",
                "PAICLI_PROMPT_RUNTIME_ZONE": "UTC",
                "PAICLI_LLM_MAX_RETRIES": "0",
            },
            cwd=project,
        )
        settings = load_settings(env, cwd=project)
        parts = build_components(settings, env, _approver(), yes=True)
        # offload notices and placeholders name the offload folder: a fixed name keeps the figures independent
        # of the clock and of the folder's random suffix (run to run, the token counts are the same)
        parts.offloader.session_dir_name = "session-20261130-090000-5eed00"  # the real shape
        parts.memory.store.store(
            new_fact(MEMORY_FACT, {"source": "fact", "scope": "global"}, parts.memory.clock)
        )
        backend = AppBackend(parts)
        for turn in range(1, turns + 1):
            turn_of[0] = turn
            backend.run(turn_text(turn), "react", _ignore, CancelToken())
        backend.close()
        measure(server.requests, server.usages, figures)
        ledger = parts.ledger.path
        if ledger is not None:
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
    answered = [r for r in requests if not is_summary_request(r) or not figures.failing]  # failed: no usage
    figures.first_sent = first_sent_tokens(answered)
    figures.rounding = rounding_tokens(answered, usages)
    agent = [r for r in requests if not is_summary_request(r)]
    figures.agent_requests = len(agent)
    for body in requests:
        tokens = count_tokens(prompt_text(body))
        figures.max_request = max(figures.max_request, tokens)
        figures.over_window += tokens > figures.window
    for body, expected in zip(agent, figures.expected, strict=True):
        messages = body["messages"]
        if not any(MEMORY_FACT in (m.get("content") or "") for m in messages):
            figures.missing_memory += 1
        users = [str(m.get("content") or "") for m in messages if m.get("role") == "user"]
        figures.not_verbatim += not any(expected in text for text in users)
    figures.unseen_cleared = unseen_cleared(agent)
    if agent:
        last = prompt_text(agent[-1])
        figures.facts_retained = sum(1 for fact in FACTS if fact in last)


def unseen_cleared(agent: list[dict[str, Any]]) -> int:
    first_seen: dict[str, bool] = {}  # call id -> its first appearance in a request was the real result
    calls: set[str] = set()
    for body in agent:
        for m in body["messages"]:
            if m.get("role") == "assistant":
                calls.update(call["id"] for call in m.get("tool_calls") or [])
            elif m.get("role") == "tool" and m["tool_call_id"] not in first_seen:
                first_seen[m["tool_call_id"]] = not (m.get("content") or "").startswith(CLEARED_PREFIX)
    return sum(1 for call in calls if not first_seen.get(call, False))


def rounding_tokens(answered: list[dict[str, Any]], usages: list[dict[str, Any]]) -> int:
    """Per request: the longest token prefix shared with an earlier request minus what the cache served (the
    emulation rounds the shared prefix down to CACHE_BLOCK tokens)."""
    from paicli.testing.openai_server import _common_prefix, _Tokens

    earlier: list[list[int]] = []
    total = 0
    for body, usage in zip(answered, usages, strict=True):
        tokens = _Tokens.encode(prompt_text(body))
        best = max((_common_prefix(tokens, e) for e in earlier), default=0)
        total += best - best // CACHE_BLOCK * CACHE_BLOCK
        earlier.append(tokens)
        del usage
    return total


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


ROWS: tuple[tuple[str, Any], ...] = (
    ("prompt tokens/turn", lambda f: f"{f.per_turn(f.prompt):,.0f}"),
    ("uncached tokens/turn", lambda f: f"{f.per_turn(f.uncached):,.0f}"),
    ("first-sent tokens/turn", lambda f: f"{f.per_turn(f.first_sent):,.0f}"),
    ("rounding tokens/turn", lambda f: f"{f.per_turn(f.rounding):,.0f}"),
    ("compaction overhead/turn", lambda f: f"{f.per_turn(f.overhead):,.0f} ({f.overhead_points:.2f} pt)"),
    ("cached/prompt", lambda f: f"{ratio_of(f):.3f}"),
    ("L2 / L3 / fallback", lambda f: f"{f.l2} / {f.l3} / {f.fallback}"),
    ("max request/window", lambda f: f"{f.max_request / f.window:.2f}"),
    ("requests over the window", lambda f: str(f.over_window)),
    ("unseen results cleared", lambda f: str(f.unseen_cleared)),
    ("user facts retained", lambda f: f"{f.facts_retained}/{len(FACTS)}"),
    ("latest request verbatim", lambda f: f"{f.agent_requests - f.not_verbatim}/{f.agent_requests}"),
    ("missing memory", lambda f: str(f.missing_memory)),
)


def table(results: list[Figures]) -> list[str]:
    """One column per (profile, summariser) run, one block per window."""
    lines: list[str] = []
    for window in sorted({f.window for f in results}):
        runs = [f for f in results if f.window == window]
        heads = [f"{f.profile} {'failing' if f.failing else 'ok'}" for f in runs]
        lines.append(f"{window // 1000}K".ljust(26) + "".join(h.rjust(22) for h in heads))
        for name, cell in ROWS:
            lines.append(f"  {name}".ljust(26) + "".join(str(cell(f)).rjust(22) for f in runs))
    return lines


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
        if window not in WINDOWS:
            known = ", ".join(str(w) for w in WINDOWS)
            raise argparse.ArgumentTypeError(f"no targets for window {window} (known: {known})")
        if window not in windows:
            windows.append(window)
    if not windows:
        raise argparse.ArgumentTypeError("no window given")
    return windows


def parse_profiles(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names or any(name not in PROFILES for name in names):
        raise argparse.ArgumentTypeError(f"profiles are {', '.join(PROFILES)}")
    return list(dict.fromkeys(names))


OVERHEAD_TARGET_POINTS = 0.8
UNCACHED_TARGET_RATIO = 0.85


def verdicts(results: list[Figures]) -> list[tuple[bool, str]]:
    """One (passed, line) per target (paicli profile) over the runs made; the reference is compared, not judged."""
    lines: list[tuple[bool, str]] = []
    ours = [f for f in results if f.profile == "paicli"]
    for f in ours:
        tag = f"@{f.window // 1000}K {'failing' if f.failing else 'ok'}"
        if not f.failing:
            lines.append(
                (
                    f.overhead_points <= OVERHEAD_TARGET_POINTS,
                    f"compaction overhead {tag}: {f.overhead_points:.2f} pt (target <= {OVERHEAD_TARGET_POINTS})",
                )
            )
            ref = next(
                (r for r in results if r.profile == "reference" and r.window == f.window and not r.failing),
                None,
            )
            if ref is not None and ref.uncached:
                ratio = f.uncached / ref.uncached
                lines.append(
                    (
                        ratio <= UNCACHED_TARGET_RATIO,
                        f"uncached tokens/turn {tag}: {ratio:.2f}x the reference's (target <= {UNCACHED_TARGET_RATIO})",
                    )
                )
        wanted = len(FACTS) if not f.failing else len(FACTS) - 2
        lines.append(
            (
                f.facts_retained >= wanted,
                f"user facts retained {tag}: {f.facts_retained}/{len(FACTS)} (target >= {wanted})",
            )
        )
    for name, value in (
        ("unseen results cleared", sum(f.unseen_cleared for f in ours)),
        ("requests over the window", sum(f.over_window for f in ours)),
        ("requests without the latest user text verbatim", sum(f.not_verbatim for f in ours)),
        ("missing memories", sum(f.missing_memory for f in ours)),
    ):
        lines.append((value == 0, f"{name}: {value} (target 0)"))
    return lines


def reference_notes(results: list[Figures]) -> list[str]:
    return [
        f"INFO  reference @{f.window // 1000}K {'failing' if f.failing else 'ok'}: {f.over_window} requests over "
        f"the window (largest {f.max_request / f.window:.2f}x), {f.unseen_cleared} unseen results cleared"
        for f in results
        if f.profile == "reference" and (f.over_window or f.unseen_cleared)
    ]


BENCH_ROOT = Path(tempfile.gettempdir()) / "paicli-bench-longsession"


@contextmanager
def bench_root() -> Iterator[Path]:
    """One fixed folder for the sessions: the project's absolute path is in the system prompt (its PAI.md), so a
    random temporary name would change the token counts from run to run. Runs on one machine take turns."""
    BENCH_ROOT.mkdir(exist_ok=True)
    with (BENCH_ROOT / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        work = BENCH_ROOT / "run"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        try:
            yield work
        finally:
            shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--windows", type=parse_windows, default=parse_windows("16000,32000"))
    parser.add_argument("--profiles", type=parse_profiles, default=parse_profiles("paicli,reference"))
    parser.add_argument(
        "--summariser", choices=("both", "ok", "failing"), default="both", help="which summariser runs"
    )
    args = parser.parse_args()
    modes = {"both": (False, True), "ok": (False,), "failing": (True,)}[args.summariser]
    results: list[Figures] = []
    with bench_root() as root:
        for window in args.windows:
            for profile in args.profiles:
                for failing in modes:
                    results.append(run_session(window, failing, args.turns, root, profile))
    for line in table(results):
        print(line)
    checks = verdicts(results)
    for passed, line in checks:
        print(f"{'PASS' if passed else 'FAIL'}  {line}")
    for line in reference_notes(results):
        print(line)
    return 0 if all(passed for passed, _ in checks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
