"""Benchmark the session ledger: append cost (with fsync) and resume time for 1, 50 and 200 MB ledgers.

Run from the repository root: `python -m evals.bench_resume [--sizes 1,50,200] [--appends 300]`.
Ledgers are synthesised in a temp dir with realistic ReAct entries (user input, tool calls, tool results
of a few KB, final answers with reasoning, memory refreshes) and a compaction + view_checkpoint every
`--checkpoint-every` entries, the way a long session looks after many turns.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from paicli.llm.messages import Message, ToolCall
from paicli.session.catalog import read_session_info
from paicli.session.catalog_scan import list_path, scan_ledger
from paicli.session.ledger import ConversationLedger, encode_entry, event_for
from paicli.session.ledger_index import index_path
from paicli.session.resume import load_view
from paicli.session.transcript import read_transcript

MB = 1024 * 1024
TARGET_SECONDS = 1.0


def _entry(
    session_id: str,
    sequence: int,
    event: str,
    source: str,
    message: Message | None,
    metadata: dict[str, object],
) -> bytes:
    return encode_entry(
        {
            "schemaVersion": 1,
            "sessionId": session_id,
            "sequence": sequence,
            "timestamp": 1_762_400_000_000 + sequence * 1000,
            "event": event,
            "mode": "react",
            "actor": "agent",
            "source": source,
            "message": message.to_json() if message else None,
            "metadata": metadata,
        }
    )


def _turn(turn: int) -> Iterator[tuple[str, Message]]:
    yield (
        "user_input",
        Message.user(f"第 {turn} 轮：帮我检查 src/module_{turn % 40}.py 里的错误处理，并补上测试"),
    )
    for step in range(3):
        call = ToolCall(
            f"call-{turn}-{step}", "read_file", f'{{"path":"src/module_{(turn + step) % 40}.py"}}'
        )
        yield "llm_response", Message.assistant("先读一下相关文件", (call,), "需要先看代码" * 20)
        body = "\n".join(f"{i:4d}  def handler_{i}(x):  # 处理第 {i} 种情况" for i in range(60 + step * 40))
        yield (
            "tool_execution",
            Message.tool(call.id, f'<tool_result tool="read_file">\n{body}\n</tool_result>'),
        )
    yield (
        "llm_response",
        Message.assistant("已经补上了错误处理和三个测试。" * 8, reasoning_content="推理" * 200),
    )


def synthesise(
    path: Path,
    size_bytes: int,
    checkpoint_every: int,
    project_root: str = "/repo",
    tail_turns: int | None = None,
) -> tuple[int, int]:
    """Write a ledger of about `size_bytes`; returns (entries, checkpoints). With `tail_turns`, the ledger ends
    with a checkpoint followed by exactly that many turns, whatever its size (otherwise where the last periodic
    checkpoint falls decides how much a resume folds)."""
    session_id = path.name[: -len(".jsonl")]
    sequence = 0
    checkpoints = 0
    view: list[Message] = []
    written = 0
    with open(path, "wb") as handle:

        def write(event: str, source: str, message: Message | None, metadata: dict[str, object]) -> None:
            nonlocal sequence, written
            sequence += 1
            written += handle.write(_entry(session_id, sequence, event, source, message, metadata))

        def checkpoint() -> None:
            nonlocal view, checkpoints
            view = [
                Message.user("[已压缩的历史对话摘要]\n## 当前目标与成功条件\n" + "摘要" * 500),
                Message.assistant("好的，继续。"),
                *view[-5:],
            ]
            metadata: dict[str, object] = {
                "beforeMessages": 60,
                "afterMessages": len(view) + 1,
                "messages": [m.to_json() for m in view],
            }
            write("view_checkpoint", "automatic:full_summary", None, metadata)
            checkpoints += 1

        start: dict[str, object] = {
            "projectRoot": project_root,
            "model": "glm-5.1",
            "provider": "glm",
            "paicliVersion": "0.1.0",
        }
        write("session_start", "startup", None, start)
        turn = 0
        tail: int | None = None  # turns still to write after the closing checkpoint
        while True:
            if tail is None and written >= size_bytes:
                if tail_turns is None:
                    break
                checkpoint()
                tail = tail_turns
            if tail is not None:
                if tail == 0:
                    break
                tail -= 1
            turn += 1
            system = Message.system("你是 paicli。" + "规则。" * 300)
            write("system", "memory_context_refresh", system, {})
            for source, message in _turn(turn):
                write(event_for(message), source, message, {})
                view.append(message.without_reasoning() if not message.tool_calls else message)
            if tail is None and sequence // checkpoint_every > (sequence - 10) // checkpoint_every:
                checkpoint()
    return sequence, checkpoints


def bench_append(directory: Path, count: int) -> list[float]:
    ledger = ConversationLedger.create(directory, directory, "glm-5.1", "glm", "0.1.0")
    messages = [message for turn in range(1, count) for _, message in _turn(turn)][:count]
    timings: list[float] = []
    for message in messages:
        start = time.perf_counter_ns()
        ledger.append_message("react", "agent", "llm_response", message)
        timings.append((time.perf_counter_ns() - start) / 1000)
    ledger.close()
    return timings


def bench_resume(path: Path, repeats: int) -> tuple[float, int]:
    timings = []
    messages = 0
    for _ in range(repeats):
        start = time.perf_counter()
        result = load_view(path)
        timings.append(time.perf_counter() - start)
        messages = len(result.messages)
    return statistics.median(timings), messages


REPLAY_TURNS = 10


def bench_replay(path: Path, repeats: int) -> tuple[float, str]:
    """What a resume shows again: the last turns read from the ledger, plus the count of the earlier ones."""
    timings = []
    shown = ""
    for _ in range(repeats):
        start = time.perf_counter()
        transcript = read_transcript(path, REPLAY_TURNS)
        timings.append(time.perf_counter() - start)
        shown = f"{len(transcript.turns)} shown, {transcript.earlier_turns} counted"
    return statistics.median(timings), shown


LISTING_READ_TARGET = 1024 * 1024  # bytes a listing reads of a ledger it listed before (side file, new lines)


def _bytes_read() -> int:
    """This process's bytes read so far (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/io", encoding="ascii") as handle:
            return next(int(line.split()[1]) for line in handle if line.startswith("rchar:"))
    except (OSError, StopIteration, ValueError):
        return 0


def bench_listing(path: Path) -> tuple[float, int]:
    """What /resume's list and -c read of one ledger: (seconds, bytes read)."""
    before = _bytes_read()
    start = time.perf_counter()
    read_session_info(path)
    return time.perf_counter() - start, _bytes_read() - before


def more_turns(path: Path, sequence: int, turns: int = 2) -> None:
    """Turns appended as a later run of the session writes them (its side files not updated: a killed run)."""
    session_id = path.name[: -len(".jsonl")]
    with open(path, "ab") as handle:
        for turn in range(turns):
            for source, message in _turn(10_000 + turn):
                sequence += 1
                handle.write(_entry(session_id, sequence, event_for(message), source, message, {}))


GROWTH_TARGET = 6 * 1024
FLAT_TARGET = 1.5  # resume + replay at the largest ledger against the smallest, side index in place
TAIL_TURNS = (
    20  # after the last checkpoint, at every size: what a resume folds is the same, only the size grows
)


def bench_indexed(root: Path, sizes_mb: list[int], checkpoint_every: int, repeats: int) -> None:
    """Resume (fold) + replay (last turns, earlier ones counted) per ledger size, once the side index exists;
    the first run, which builds the index by one pass over the ledger, is printed apart. Every ledger ends with
    the same turns after its last checkpoint, and the sizes are measured in turn, round after round, so the
    ratio compares sizes under the same machine load."""
    from paicli.session.ledger_index import index_path

    paths = [root / f"session-{size_mb}-indexed.jsonl" for size_mb in sizes_mb]
    firsts = []
    for size_mb, path in zip(sizes_mb, paths, strict=True):
        synthesise(path, size_mb * MB, checkpoint_every, tail_turns=TAIL_TURNS)
        start = time.perf_counter()
        load_view(path)
        read_transcript(path, REPLAY_TURNS)
        firsts.append(time.perf_counter() - start)
    folds: list[list[float]] = [[] for _ in paths]
    replays: list[list[float]] = [[] for _ in paths]
    shown = ["" for _ in paths]
    for _ in range(repeats):
        for i, path in enumerate(paths):
            fold, _ = bench_resume(path, 1)
            replay, shown[i] = bench_replay(path, 1)
            folds[i].append(fold)
            replays[i].append(replay)
    costs = []
    for i, path in enumerate(paths):
        fold, replay = statistics.median(folds[i]), statistics.median(replays[i])
        costs.append(statistics.median(f + r for f, r in zip(folds[i], replays[i], strict=True)))
        print(
            f"indexed {os.path.getsize(path) / MB:7.1f} MB: resume {fold * 1000:.1f} ms + replay {replay * 1000:.1f} ms"
            f" ({shown[i]}; {TAIL_TURNS} turns after the last checkpoint); first run, building the index "
            f"({os.path.getsize(index_path(path)) / 1024:.0f} KB): {firsts[i] * 1000:.0f} ms"
        )
    for path in paths:
        path.unlink()
        index_path(path).unlink()
    if len(costs) > 1:
        ratio = costs[-1] / costs[0]
        verdict = "met" if ratio <= FLAT_TARGET else "NOT met"
        print(
            f"ledger cost {sizes_mb[-1]} MB / {sizes_mb[0]} MB (resume + replay, index in place, median of "
            f"{repeats} rounds): {ratio:.2f}x  target <= {FLAT_TARGET}x -> {verdict}"
        )


def _continue_growth(size_mb: int, resumes: int) -> tuple[float, float, int]:
    """Real `paicli -c -p` runs (one-line exchange each) against the loopback server on a session that starts
    with `size_mb` MB of history (0: a one-turn session). The first -c is reported apart: on synthetic history
    it also stores this version's system prompt and compacts the synthetic view. Returns (median bytes
    appended per later -c, median bytes of those turns' own user and answer entries, bytes of the first -c)."""
    import json
    import subprocess
    import sys

    from paicli.testing.openai_server import FakeOpenAIServer

    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer(default_reply="好的，完成。") as server:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PAICLI_", "OPENAI_", "DEEPSEEK_"))}
        env.update(
            {
                "HOME": str(home),
                "PAICLI_HOME": str(home / ".paicli"),
                "PAICLI_BASE_URL": server.base_url,
                "PAICLI_MODEL": "fake-model",
                "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "false",
            }
        )

        def run(*args: str) -> None:
            cmd = [sys.executable, "-m", "paicli", *args]
            done = subprocess.run(cmd, env=env, cwd=project, capture_output=True, stdin=subprocess.DEVNULL)
            if done.returncode:
                raise SystemExit(f"paicli failed: {done.stderr.decode(errors='replace')}")

        raw = home / ".paicli" / "history" / "raw"
        if size_mb:
            raw.mkdir(parents=True)
            synthesise(raw / "session-1-bench.jsonl", size_mb * MB, 200, str(project.resolve()))
        else:
            run("-p", "你好")
        (path,) = raw.glob("*.jsonl")
        growth, turn = [], []
        for index in range(resumes + 1):
            before = path.stat().st_size
            run("-c", "-p", f"再说一句 {index}")
            growth.append(path.stat().st_size - before)
            tail = path.read_bytes()[before:].splitlines()
            own = [line for line in tail if json.loads(line)["source"] in ("user_input", "llm_response")]
            turn.append(sum(len(line) + 1 for line in own))
    return statistics.median(growth[1:]), statistics.median(turn[1:]), growth[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,50,200", help="ledger sizes in MB, comma separated")
    parser.add_argument("--appends", type=int, default=300, help="entries appended for the append benchmark")
    parser.add_argument("--checkpoint-every", type=int, default=200, help="entries between view checkpoints")
    parser.add_argument("--repeats", type=int, default=3, help="resume runs per size (median reported)")
    parser.add_argument("--index-rounds", type=int, default=9, help="rounds of the side-index flatness row")
    parser.add_argument(
        "--fallback-mb",
        type=int,
        default=50,
        help="size of a ledger without any checkpoint (full forward replay); 0 skips it",
    )
    parser.add_argument(
        "--continue-sizes", default="0,20", help="history before the -c runs, MB (0: one turn)"
    )
    parser.add_argument(
        "--index-sizes",
        default="100,1000",
        help="ledger sizes in MB for the side-index flatness row; empty skips it",
    )
    parser.add_argument("--resumes", type=int, default=3, help="-c runs per size (median reported)")
    args = parser.parse_args()
    for size_mb in (int(s) for s in args.continue_sizes.split(",") if s.strip()):
        grown, turn, first = _continue_growth(size_mb, args.resumes)
        verdict = "met" if grown <= GROWTH_TARGET else "NOT met"
        print(
            f"ledger growth per -c (one-line exchange, {size_mb} MB before): {grown / 1024:.1f} KB, "
            f"the new turn itself {turn / 1024:.1f} KB ({grown / max(turn, 1):.1f}x); first -c "
            f"{first / 1024:.1f} KB  target <= 6 KB -> {verdict}"
        )
    with tempfile.TemporaryDirectory(prefix="paicli-bench-resume-") as tmp:
        root = Path(tmp)
        timings = bench_append(root / "append", args.appends)
        print(
            f"append (os.write + fsync), {len(timings)} entries: median {statistics.median(timings):.1f} µs, "
            f"p90 {statistics.quantiles(timings, n=10)[-1]:.1f} µs"
        )
        worst = 0.0
        listings: list[tuple[int, float, int]] = []
        for size_mb in (int(s) for s in args.sizes.split(",") if s.strip()):
            path = root / f"session-{size_mb}-bench.jsonl"
            entries, checkpoints = synthesise(path, size_mb * MB, args.checkpoint_every)
            seconds, messages = bench_resume(path, args.repeats)
            cold, cold_read = bench_listing(path)
            scan_ledger(
                path, os.path.getsize(path)
            )  # as the closing run leaves it (ConversationLedger.close)
            samples = []
            for round_ in range(max(1, args.repeats)):  # each round: a later run's lines, then a listing
                more_turns(path, entries + round_ * 100)
                samples.append(bench_listing(path))
            listing, read = statistics.median(s for s, _ in samples), max(r for _, r in samples)
            listings.append((size_mb, listing, read))
            replay, shown = bench_replay(path, args.repeats)
            worst = max(worst, seconds + replay)
            print(
                f"resume {os.path.getsize(path) / MB:6.1f} MB ({entries} entries, {checkpoints} checkpoints): "
                f"{seconds * 1000:.1f} ms -> {messages} messages; replay of the last {REPLAY_TURNS} turns "
                f"{replay * 1000:.1f} ms ({shown})"
            )
            print(
                f"  /resume and -c listing of it after 2 more turns: median {listing * 1000:.1f} ms, at most "
                f"{read / 1024:.0f} KB read "
                f"(a ledger from before the side files, at its first listing: {cold * 1000:.1f} ms, {cold_read / MB:.1f} MB read)"
            )
            for side in (path, list_path(path), index_path(path)):
                side.unlink(missing_ok=True)
        if len(listings) > 1:
            (small, small_s, _), (large, large_s, large_read) = listings[0], listings[-1]
            ratio = large_s / max(small_s, 1e-9)
            verdict = "met" if large_read <= LISTING_READ_TARGET else "NOT met"
            print(
                f"listing cost {large} MB / {small} MB: {ratio:.2f}x, {large_read / 1024:.0f} KB read at {large} MB  "
                f"target <= {LISTING_READ_TARGET // 1024} KB read per ledger -> {verdict}"
            )
        if args.fallback_mb:
            path = root / "session-fallback-bench.jsonl"
            entries, _ = synthesise(path, args.fallback_mb * MB, checkpoint_every=10**12)
            seconds, messages = bench_resume(path, 1)
            print(
                f"fallback without checkpoints {os.path.getsize(path) / MB:6.1f} MB ({entries} entries): "
                f"{seconds * 1000:.1f} ms -> {messages} messages (worst case, not part of the target)"
            )
            path.unlink()
        index_sizes = [int(s) for s in args.index_sizes.split(",") if s.strip()]
        if index_sizes:
            bench_indexed(root, index_sizes, args.checkpoint_every, args.index_rounds)
        verdict = "OK" if worst < TARGET_SECONDS else "SLOW"
        print(
            f"target: resume + replay < {TARGET_SECONDS:.0f} s at every size -> {verdict} (worst {worst * 1000:.1f} ms)"
        )


if __name__ == "__main__":
    main()
