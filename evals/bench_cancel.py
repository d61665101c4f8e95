"""Cancel latency per tool: `python -m evals.bench_cancel` from the repository root (issue 25).

Each tool gets a call that would block for a long time (a memory lock held by another process, `sleep 30`, a
server that accepts and never answers, a large tree walk or search). The call is cancelled once it has been
running for a moment; printed per tool, median of RUNS runs:
  result  - cancel() until the runner hands back the call's result
  threads - cancel() until no tool worker thread is left running (a stuck thread costs CPU and, without
            paicli's hard exit, would hold up the process's end)
"finished first" means the call ended before the cancel (the workload was too small to measure).
Everything runs in a temp project and on loopback; no network, no real home.
"""

from __future__ import annotations

import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from paicli.cancel import CancelToken
from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.config.tool_values import ToolValues, WebSearchValues
from paicli.llm.messages import ToolCall
from paicli.memory.guard import ExternalContextTracker
from paicli.memory.manager import MemoryManager
from paicli.memory.store import FILE_NAME, LongTermMemory
from paicli.tools.approval import AutoApprover
from paicli.tools.audit import AuditLog
from paicli.tools.base import CANCELLED_PREFIX, ToolEvent, ToolStarted
from paicli.tools.runner import ToolRunner
from paicli.tools.web import UrlGate, WebTools

RUNS = 3
RUNNING_FOR = 0.3  # seconds the call runs before the cancel
THREAD_CAP = 40.0
HOLD_LOCK = (
    "import sys, time, portalocker\n"
    "h = open(sys.argv[1], 'a+b')\n"
    "portalocker.lock(h, portalocker.LockFlags.EXCLUSIVE)\n"
    "print('held', flush=True)\n"
    "time.sleep(600)\n"
)


def make_runner(root: Path, values: dict[str, str], memory: MemoryManager | None) -> ToolRunner:
    env = EnvLookup(environ=values, cwd=root)
    web = WebTools(
        WebSearchValues.parse(env), gate=UrlGate(address_ok=lambda _address: True)
    )  # loopback servers only
    return ToolRunner(
        root,
        approver=AutoApprover(),
        tracker=ExternalContextTracker(),
        values=ToolValues.parse(env),
        save_memory=memory.save_memory_tool if memory is not None else None,
        web=web,
        audit=AuditLog(root / ".audit"),
    )


def _tool_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("paicli-tool") and t.is_alive()]


def cancel_once(runner: ToolRunner, call: ToolCall, text: str) -> tuple[float, float, bool]:
    """(result, threads) seconds after the cancel, and whether the result is a cancelled one."""
    cancel, started, done = CancelToken(), threading.Event(), threading.Event()
    results: list[str] = []

    def emit(event: ToolEvent) -> None:
        if isinstance(event, ToolStarted):
            started.set()

    def work() -> None:
        results.extend(r.content for r in runner.for_turn(text).execute([call], cancel, emit))
        done.set()

    worker = threading.Thread(target=work, name="bench-caller")
    worker.start()
    started.wait(30)
    time.sleep(RUNNING_FOR)
    begun = time.perf_counter()
    cancel.cancel()
    done.wait(THREAD_CAP)
    result = time.perf_counter() - begun
    while _tool_threads() and time.perf_counter() - begun < THREAD_CAP:
        time.sleep(0.005)
    threads = time.perf_counter() - begun
    worker.join(THREAD_CAP)
    return result, threads, bool(results) and CANCELLED_PREFIX in results[0]


def report(name: str, runs: list[tuple[float, float, bool]]) -> None:
    result = statistics.median(r[0] for r in runs)
    threads = statistics.median(r[1] for r in runs)
    cancelled = sum(r[2] for r in runs)
    verdict = "yes" if max(result, threads) <= 1.0 and cancelled == len(runs) else "NO"
    if cancelled < len(runs):
        verdict += f" ({len(runs) - cancelled} of {len(runs)} results not cancelled)"
    threads_text = f"{threads * 1000:8.0f} ms" if threads < THREAD_CAP else f" >{THREAD_CAP:g} s"
    print(f"{name:<22} result {result * 1000:7.0f} ms   threads {threads_text}   within 1 s: {verdict}")


@contextmanager
def silent_server() -> Iterator[int]:
    """Accepts connections and never answers."""
    server = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        for conn in accepted:
            conn.close()
        server.close()


def build_tree(top: Path, width: int, depth: int, lines: int) -> None:
    line = "def handler(value): return compute(value) + 1  # ordinary code line\n" * lines
    level = [top]
    for _ in range(depth):
        level = [parent / f"d{i}" for parent in level for i in range(width)]
    for folder in level:
        folder.mkdir(parents=True)
        if lines:
            (folder / "a.py").write_text(line, encoding="utf-8")


def chosen(name: str) -> bool:
    """`python -m evals.bench_cancel web_fetch save_memory`: only those tools."""
    return not sys.argv[1:] or any(name.startswith(arg) for arg in sys.argv[1:])


def bench(root: Path, name: str, call: Callable[[int], ToolCall], text: str, values: dict[str, str]) -> None:
    if not chosen(name):
        return
    runner = make_runner(root, values, None)
    report(name, [cancel_once(runner, call(i), text) for i in range(RUNS)])


def bench_save_memory(root: Path) -> None:
    if not chosen("save_memory"):
        return
    memory_dir = root / "memory"
    memory_dir.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(memory_dir / (FILE_NAME + ".lock"))],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        env = EnvLookup(environ={}, cwd=root)
        store = LongTermMemory(memory_dir, MemoryValues.parse(env))  # the default 10 s lock wait
        runner = make_runner(root, {}, MemoryManager(store, root, MemoryValues.parse(env)))
        fact = '{"fact":"项目用 uv 管理依赖","scope":"global"}'
        runs = [
            cancel_once(runner, ToolCall(f"m{i}", "save_memory", fact), "记住：项目用 uv")
            for i in range(RUNS)
        ]
        report("save_memory (lock)", runs)
    finally:
        holder.kill()
        holder.communicate()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build_tree(root / "tree", 12, 3, 200)  # 1,728 folders, 23 MB of source
        build_tree(root / "dirs", 13, 4, 0)  # 28,561 empty folders
        print(f"cancel after {RUNNING_FOR:g} s of running; median of {RUNS} runs")
        bench_save_memory(root)
        bench(
            root,
            "execute_command",
            lambda i: ToolCall(f"e{i}", "execute_command", '{"command":"sleep 30"}'),
            "",
            {},
        )
        grep = '{"pattern":"compute\\\\(value\\\\)(?=.*ordinary) \\\\+ [0-9]+$","path":"tree"}'
        fallback = {"PAICLI_GREP_RIPGREP": "0"}
        bench(root, "grep_code (fallback)", lambda i: ToolCall(f"g{i}", "grep_code", grep), "", fallback)
        glob = '{"pattern":"**/*.nomatch","path":"dirs"}'
        bench(root, "glob_files (walk)", lambda i: ToolCall(f"w{i}", "glob_files", glob), "", {})
        with silent_server() as port:
            url = f"http://127.0.0.1:{port}/page"
            fetch = '{"url":"' + url + '"}'
            bench(root, "web_fetch (no answer)", lambda i: ToolCall(f"f{i}", "web_fetch", fetch), url, {})
            search = {"SEARXNG_URL": f"http://127.0.0.1:{port}"}
            query = '{"query":"paicli"}'
            bench(
                root, "web_search (no answer)", lambda i: ToolCall(f"s{i}", "web_search", query), "", search
            )


if __name__ == "__main__":
    main()
