"""The ledger's side index (session/ledger_index.py): counts and checkpoint positions equal to reading the ledger
itself, rebuilt when missing, stale, torn or from another file, and never a change in what a resume restores."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from paicli.llm.messages import Message
from paicli.session.ledger import ConversationLedger
from paicli.session.ledger_index import Marks, decode_side, encode_side, index_path, offsets, read_index
from paicli.session.resume import load_view, parse_entries
from paicli.session.transcript import read_transcript, starts_turn
from tests.session.test_transcript import ledger_in, write_turn

IDENTITIES = [("react", "agent"), ("plan", "t1"), ("team", "成员甲")]


def _grow(ledger: ConversationLedger, rng: random.Random, steps: int) -> None:
    """Turns of several identities, internal user entries, /clears, full and compact checkpoints, in random order."""
    for step in range(steps):
        mode, actor = rng.choice(IDENTITIES)
        roll = rng.random()
        if roll < 0.55:
            ledger.append_message(
                mode, actor, "user_input", Message.user(f"问题 {step} " + "字" * rng.randint(0, 300))
            )
            ledger.append_message(mode, actor, "llm_response", Message.assistant(f"回答 {step}"))
        elif roll < 0.65:
            ledger.append_message(
                mode, actor, rng.choice(["runaway_reminder", "skill_injection"]), Message.user("内部")
            )
        elif roll < 0.72:
            ledger.append_event("history_clear", mode, actor, "slash_clear", {"discardedViewMessages": 3})
        elif roll < 0.85:
            view = [Message.system("s"), Message.user(f"摘要 {step}"), Message.assistant("好")]
            ledger.record_view_checkpoint("automatic:full_summary", view, mode=mode, actor=actor)
        else:
            metadata = {"strategy": "tool_result_clearing", "replacedResults": {"c1": "[已清理]"}}
            ledger.append_event("view_checkpoint", mode, actor, "automatic:tool_result_clearing", metadata)


def _line_starts(path: Path) -> list[int]:
    data = path.read_bytes()
    starts, offset = [], 0
    for line in data.split(b"\n"):
        if line:
            starts.append(offset)
        offset += len(line) + 1
    return starts


def _turns_by_parsing(path: Path, end: int, mode: str, actor: str) -> int:
    """The definition: turn-start entries of (mode, actor) before `end`, after its last /clear before `end`."""
    data = path.read_bytes()[:end]
    entries, _ = parse_entries(data.split(b"\n"), first_line=None)
    count = 0
    for entry in entries:
        if entry.mode != mode or entry.actor != actor:
            continue
        if entry.event == "history_clear":
            count = 0
        elif starts_turn(entry):
            count += 1
    return count


def _ledger(tmp_path: Path, seed: int, steps: int) -> Path:
    ledger = ledger_in(tmp_path)
    _grow(ledger, random.Random(seed), steps)
    ledger.close()
    assert ledger.path is not None
    return ledger.path


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_turn_counts_equal_the_ledgers_own_at_every_line(tmp_path: Path, seed: int) -> None:
    path = _ledger(tmp_path, seed, 120)
    index = read_index(path)
    for end in [*_line_starts(path)[::3], path.stat().st_size]:
        for mode, actor in IDENTITIES:
            assert index.turns_before(end, mode, actor) == _turns_by_parsing(path, end, mode, actor)


def test_the_side_file_follows_appends_and_matches_a_fresh_build(tmp_path: Path) -> None:
    rng = random.Random(7)
    ledger = ledger_in(tmp_path)
    _grow(ledger, rng, 40)
    assert ledger.path is not None
    read_index(ledger.path)
    assert index_path(ledger.path).exists()
    _grow(ledger, rng, 40)  # stale now: it covers only the first part
    updated = read_index(ledger.path)
    index_path(ledger.path).unlink()
    fresh = read_index(ledger.path)
    assert updated.marks == fresh.marks and updated.size == fresh.size
    ledger.close()


@pytest.mark.parametrize(
    "damage",
    [
        "torn",
        "garbage",
        "a flipped byte",
        "other ledger",
        "truncated ledger",
        "offsets moved",
        "wrong format",
    ],
)
def test_a_damaged_or_foreign_side_file_is_rebuilt(tmp_path: Path, damage: str) -> None:
    path = _ledger(tmp_path / "a", 11, 80)
    expected = read_index(path).marks
    side = index_path(path)
    if damage == "torn":
        side.write_bytes(side.read_bytes()[: side.stat().st_size // 2])
    elif damage == "garbage":
        side.write_bytes(b"\x00not json")
    elif damage == "a flipped byte":  # in the offsets: the header's CRC no longer matches
        data = bytearray(side.read_bytes())
        data[-3] ^= 0x40
        side.write_bytes(bytes(data))
    elif damage == "other ledger":
        other = _ledger(tmp_path / "b", 12, 80)
        read_index(other)
        shutil.copy(index_path(other), side)
    elif damage == "truncated ledger":
        data = path.read_bytes()
        path.write_bytes(data[: data.rfind(b"\n", 0, len(data) // 2) + 1])
        expected = None
    elif damage == "offsets moved":  # a whole, well-formed side file whose offsets are not line starts
        covered, digest, marks = decode_side(side.read_bytes())
        moved = {
            key: Marks(offsets(x + 1 for x in m.turns), m.clears, m.checkpoints) for key, m in marks.items()
        }
        side.write_bytes(encode_side(covered, digest, moved))
    else:
        head, _, body = side.read_bytes().partition(b"\n")
        header = json.loads(head)
        header["format"] = 99
        side.write_bytes(json.dumps(header).encode() + b"\n" + body)
    index = read_index(path)
    for mode, actor in IDENTITIES:
        assert index.turns_before(index.size, mode, actor) == _turns_by_parsing(path, index.size, mode, actor)
    if expected is not None:
        assert index.marks == expected


def test_a_torn_last_line_of_the_ledger_is_not_indexed_as_covered(tmp_path: Path) -> None:
    ledger = ledger_in(tmp_path)
    write_turn(ledger, 1)
    assert ledger.path is not None
    with open(ledger.path, "ab") as handle:  # a process killed mid-write: a head without its line's end
        handle.write(
            b'{"schemaVersion":1,"sessionId":"s","sequence":9,"timestamp":1,"event":"user","mode":"react"'
        )
    read_index(ledger.path)
    write_turn(ledger, 2)  # the ledger starts the next entry on a new line
    write_turn(ledger, 3)
    transcript = read_transcript(ledger.path, 1)
    assert [turn.typed for turn in transcript.turns] == ["问题 3"] and transcript.earlier_turns == 2
    ledger.close()


@pytest.mark.parametrize("seed", [4, 5, 6, 7])
def test_a_resume_restores_the_same_view_with_any_side_file(tmp_path: Path, seed: int) -> None:
    path = _ledger(tmp_path, seed, 150)
    side = index_path(path)
    for mode, actor in IDENTITIES:
        side.unlink(missing_ok=True)
        shutil.copy(path, tmp_path / "plain.jsonl")  # the same bytes, never indexed before the first read
        reference = load_view(tmp_path / "plain.jsonl", mode, actor)
        with_index = load_view(path, mode, actor)
        assert side.exists()
        again = load_view(path, mode, actor)  # now from the side file
        covered, digest, marks = decode_side(side.read_bytes())
        for marks_of in marks.values():
            marks_of.checkpoints = marks_of.checkpoints[:1]  # an index that misses the later checkpoints
        side.write_bytes(encode_side(covered, digest, marks))
        missing = load_view(path, mode, actor)
        for result in (with_index, again, missing):
            assert result.messages == reference.messages
            assert result.checkpoint_sequence == reference.checkpoint_sequence
            assert result.notices == reference.notices and result.last_sequence == reference.last_sequence


def test_closing_the_ledger_brings_its_side_file_up_to_date(tmp_path: Path) -> None:
    path = _ledger(tmp_path, 8, 60)  # written and closed, never resumed
    covered, _, marks = decode_side(index_path(path).read_bytes())
    assert covered == path.stat().st_size
    assert marks == read_index(path).marks
