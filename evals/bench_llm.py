"""LLM client benchmark: assembler cost per chunk, loopback round trip, first-delta latency, cancel latency, and a
reply that never ends (issue 49: stopped at PAICLI_LLM_MAX_RESPONSE_BYTES, memory bounded).

Run from the repository root: `python -m evals.bench_llm`. Uses the fake server only (no network); for the endless
reply it runs in a child process, so that this process's peak memory is the client's own.
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import threading
import time

from paicli.cancel import Cancelled, CancelToken
from paicli.llm.client import OpenAIChatClient
from paicli.llm.messages import Message
from paicli.llm.protocol import StreamDelta
from paicli.llm.stream import StreamAssembler
from paicli.testing.openai_server import FakeOpenAIServer, Reply


def bench_assembler(chunks: int = 20_000) -> float:
    text = [{"model": "m", "choices": [{"index": 0, "delta": {"content": "字"}}]} for _ in range(chunks // 2)]
    calls = [
        {
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": i % 4,
                                "id": f"c{i % 4}" if i < 4 else None,
                                "function": {"name": "read_file", "arguments": "ab"},
                            }
                        ]
                    },
                }
            ],
        }
        for i in range(chunks // 2)
    ]
    assembler = StreamAssembler()
    start = time.perf_counter()
    for chunk in text + calls:
        assembler.feed(chunk)
    assembler.result()
    return (time.perf_counter() - start) / chunks * 1e6


def bench_round_trip(
    client: OpenAIChatClient, server: FakeOpenAIServer, rounds: int = 20
) -> tuple[float, float]:
    totals, firsts = [], []
    for _ in range(rounds):
        server.push(Reply.text("这是一个用于测量往返时间的回答。" * 4, chunks=16))
        first: list[float] = []
        start = time.perf_counter()

        def on_delta(_d: StreamDelta, first: list[float] = first, start: float = start) -> None:
            if not first:
                first.append(time.perf_counter() - start)

        client.chat([Message.system("s"), Message.user("q")], on_delta=on_delta)
        totals.append(time.perf_counter() - start)
        firsts.append(first[0])
    return statistics.median(totals) * 1000, statistics.median(firsts) * 1000


def bench_cancel(client: OpenAIChatClient, server: FakeOpenAIServer, rounds: int = 5) -> float:
    latencies = []
    for _ in range(rounds):
        server.push(Reply.hang("部分"))
        cancel = CancelToken()
        done = threading.Event()
        stamp: list[float] = []

        def run(
            cancel: CancelToken = cancel, done: threading.Event = done, stamp: list[float] = stamp
        ) -> None:
            try:
                client.chat([Message.user("q")], cancel=cancel)
            except Cancelled:
                stamp.append(time.perf_counter())
            done.set()

        threading.Thread(target=run, daemon=True).start()
        server.wait_for_hang()
        start = time.perf_counter()
        cancel.cancel()
        done.wait(10)
        latencies.append(stamp[0] - start if stamp else float("inf"))
    return statistics.median(latencies) * 1000


ENDLESS_SERVER = """
import sys
from paicli.testing.openai_server import FakeOpenAIServer, Reply
with FakeOpenAIServer(default_reply=Reply.endless("一个永远不会结束的回答，")) as server:
    print(server.base_url, flush=True)
    sys.stdin.read()
"""


def bench_endless() -> str:
    """A fast local server that streams without end, against the default limit: how long until the error, and
    how much this process's peak memory grew meanwhile."""
    from paicli.llm.connection import ClientOptions
    from paicli.llm.protocol import LLMError

    child = subprocess.Popen(
        [sys.executable, "-c", ENDLESS_SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        options = ClientOptions(child.stdout.readline().strip(), None, max_retries=0)
        client = OpenAIChatClient.from_options(options, "fake-model")
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        shown = [0]

        def on_delta(delta: StreamDelta) -> None:
            shown[0] += len(delta.text)

        start = time.perf_counter()
        try:
            client.chat([Message.user("讲一个没有结尾的故事")], on_delta=on_delta)
            outcome = "ended without an error (NOT bounded)"
        except LLMError as error:
            outcome = str(error)
        wall = time.perf_counter() - start
        growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before
    finally:
        if child.stdin is not None:
            child.stdin.close()
        child.wait(30)
    limit = options.max_response_bytes / 2**20
    return (
        f"endless reply (limit {limit:.0f} MiB): stopped after {wall:.1f} s, {shown[0]:,} characters shown, "
        f"peak memory growth {growth:.0f} MiB (target: bounded, <= 2x the limit): {outcome}"
    )


def main() -> None:
    print(f"assembler: {bench_assembler():.2f} µs per chunk (20k chunks, text + 4 interleaved tool calls)")
    with FakeOpenAIServer() as server:
        client = OpenAIChatClient(server.base_url, None, "fake-model")
        server.push("warm-up")
        start = time.perf_counter()
        client.chat([Message.user("warm")])
        print(
            f"first call incl. openai import and client set-up: {(time.perf_counter() - start) * 1000:.0f} ms"
        )
        total, first = bench_round_trip(client, server)
        print(f"loopback round trip (16 chunks): median {total:.1f} ms, first delta after {first:.1f} ms")
        print(
            f"cancel of a hanging stream: median {bench_cancel(client, server):.2f} ms until Cancelled is raised"
        )
    print(bench_endless())


if __name__ == "__main__":
    main()
