"""LLM client benchmark: assembler cost per chunk, loopback round trip, first-delta latency, cancel latency.

Run from the repository root: `python -m evals.bench_llm`. Uses the in-process fake server only (no network).
"""

from __future__ import annotations

import statistics
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


if __name__ == "__main__":
    main()
