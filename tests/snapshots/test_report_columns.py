"""`/snapshot` listing layout (issue 44 item 9): the columns after `#N` stay in line past #9."""

from __future__ import annotations

from paicli.snapshots.model import Snapshot
from paicli.snapshots.report import list_text


def test_columns_stay_in_line_past_number_nine() -> None:
    snapshots = [Snapshot(f"r{i}", f"c{i}", 1_700_000_000_000 + i * 1000, "turn") for i in range(12)]
    lines = list_text(snapshots).splitlines()[1:]
    assert len(lines) == 12
    assert lines[0].startswith("   #1   ") and lines[9].startswith("   #10  ")
    assert len({line.index("轮次开始前") for line in lines}) == 1
    few = list_text(snapshots[:3]).splitlines()[1:]
    assert few[0].startswith("   #1  2")  # a short listing is not padded for numbers it does not show
