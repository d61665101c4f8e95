"""execute_command's live-output hook: each printed line reaches it in order while the command still runs."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from paicli.agent.events import AgentEvent, ToolFinished, ToolProgress, ToolStarted
from paicli.cancel import CancelToken
from paicli.tools.base import ToolResult
from paicli.tools.shell import LIVE_LINES_PER_CHUNK, LineFeed

from .helpers import calls, make_runner, run, unwrap

WAIT = 60.0


def test_the_hook_gets_each_line_in_order_before_the_command_ends(project: Path) -> None:
    runner = make_runner(project)
    events: list[AgentEvent] = []
    third_line = threading.Event()

    def sink(event: AgentEvent) -> None:
        events.append(event)
        if isinstance(event, ToolProgress) and event.line == "three":
            third_line.set()

    script = "echo one; echo two >&2; printf 'thr'; printf 'ee\\n'; until [ -f go.flag ]; do sleep 0.05; done; echo last"
    batch = calls(("execute_command", json.dumps({"command": script})))
    results: list[ToolResult] = []
    worker = threading.Thread(
        target=lambda: results.extend(runner.for_turn("run").execute(batch, CancelToken(), sink))
    )
    worker.start()
    try:
        assert third_line.wait(WAIT), f"the hook never saw the third line: {events}"
        # the command is still waiting for go.flag: nothing has finished yet
        assert not any(isinstance(e, ToolFinished) for e in events)
        assert worker.is_alive()
    finally:
        (project / "go.flag").write_text("")
        worker.join(WAIT)
    assert not worker.is_alive()
    progress = [e for e in events if isinstance(e, ToolProgress)]
    assert [e.line for e in progress] == ["one", "two", "three", "last"]
    assert {e.call_id for e in progress} == {"call-1"} and {e.name for e in progress} == {"execute_command"}
    assert isinstance(events[0], ToolStarted) and isinstance(events[-1], ToolFinished)
    # what the model gets is the full capture, as before
    assert unwrap(results[0]) == "one\ntwo\nthree\nlast\n退出码: 0"


def test_a_command_without_output_sends_nothing(project: Path) -> None:
    events: list[AgentEvent] = []
    run(make_runner(project), ("execute_command", json.dumps({"command": "true"})), text="x", events=events)
    assert [type(e) for e in events] == [ToolStarted, ToolFinished]


def test_line_feed_cuts_chunks_into_lines_and_sends_an_unfinished_last_line_at_the_end() -> None:
    seen: list[str] = []
    feed = LineFeed(seen.append)
    feed.feed("a\nb")
    assert seen == ["a"]
    feed.feed("c\n\nd")
    assert seen == ["a", "bc", ""]
    feed.close()
    assert seen == ["a", "bc", "", "d"]


def test_a_failing_hook_is_dropped_after_its_first_error() -> None:
    seen: list[str] = []

    def broken(line: str) -> None:
        seen.append(line)
        raise RuntimeError("display gone")

    feed = LineFeed(broken)
    feed.feed("x\ny\n")  # no exception escapes the reader
    feed.close()
    assert seen == ["x"]


def test_a_flood_in_one_chunk_sends_only_its_latest_lines_in_order() -> None:
    seen: list[str] = []
    feed = LineFeed(seen.append)
    feed.feed("".join(f"{n}\n" for n in range(1000)))
    assert seen == [str(n) for n in range(1000 - LIVE_LINES_PER_CHUNK, 1000)]
