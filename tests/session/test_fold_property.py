"""Property: after every turn of a scripted session, folding the ledger gives exactly the live view.

Sessions are drawn from seeds (parallel calls, big outputs, failing summaries, /compact, /clear, resume); a
child process killed with SIGKILL in the middle of a model call folds to exactly the request it had sent.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from paicli.context.clearing import CLEARED_PREFIX
from paicli.llm.messages import Message
from paicli.session.resume import load_view
from paicli.testing.protocol import assert_protocol_valid

from .fold_driver import WINDOW, new_session, step

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("seed", range(6))
def test_folding_the_ledger_gives_the_live_view_after_every_turn(tmp_path: Path, seed: int) -> None:
    session = new_session(tmp_path, seed)
    actions: list[str] = []
    for turn in range(1, 26):
        actions.append(step(session, turn))
        assert session.ledger.path is not None
        folded = load_view(session.ledger.path)
        assert folded.messages == session.agent.history[1:], (seed, turn, actions)
        assert folded.repaired == 0
    assert {"turn"} <= set(actions)
    for request in session.script.requests:
        assert_protocol_valid(request)
        assert session.manager.measure(request, session.llm.model) <= WINDOW


def test_the_sessions_exercise_compact_checkpoints(tmp_path: Path) -> None:
    """The property above is only worth something if in-place changes were folded from compact checkpoints."""
    session = new_session(tmp_path, 3)
    for turn in range(1, 26):
        step(session, turn)
    assert session.ledger.path is not None
    entries = session.ledger.read_all()
    compact = [e for e in entries if e.event == "view_checkpoint" and "replacedResults" in e.metadata]
    full = [e for e in entries if e.event == "view_checkpoint" and "messages" in e.metadata]
    assert compact and full
    assert all("messages" not in e.metadata for e in compact)
    assert any(
        text.startswith(CLEARED_PREFIX) for e in compact for text in e.metadata["replacedResults"].values()
    )


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
@pytest.mark.parametrize(("seed", "stop_at"), [(1, 9), (4, 23)])
def test_a_process_killed_mid_call_folds_to_the_request_it_sent(
    tmp_path: Path, seed: int, stop_at: int
) -> None:
    dump = tmp_path / "request.json"
    code = "import sys; from tests.session.fold_driver import child_main; child_main(*sys.argv[1:])"
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path), str(seed), str(stop_at), str(dump)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        _wait_for(dump, child)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    payload = json.loads(dump.read_text(encoding="utf-8"))
    sent = [Message.from_json(m) for m in payload["view"]]
    folded = load_view(Path(payload["ledger"]))
    assert folded.messages == sent
    assert folded.repaired == 0


def _wait_for(path: Path, child: subprocess.Popen[bytes]) -> None:
    """Wait for the child to reach the target request (or to die, which fails the test)."""
    for _ in range(6_000):
        if path.exists():
            return
        try:
            child.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            continue
        raise AssertionError(f"child exited with {child.returncode} before the target request")
    raise AssertionError("the child never reached the target request")
