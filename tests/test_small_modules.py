"""The small shared modules at paicli's bottom layer: the folders every project walk passes over, and how an
instant is shown to a person."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from paicli.codeindex.walker import project_files
from paicli.skipdirs import SKIPPED_DIRS
from paicli.timefmt import local_time, local_time_text

EAST_8 = timezone(timedelta(hours=8))


def test_a_project_walk_passes_over_every_shared_skipped_folder(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text("print(1)\n")
    for name in SKIPPED_DIRS:
        (tmp_path / name).mkdir()
        (tmp_path / name / "inside.py").write_text("print(2)\n")
    assert {".git", "node_modules", ".venv", "__pycache__"} <= SKIPPED_DIRS
    assert [relative for relative, _ in project_files(tmp_path, 100)] == ["main.py"]


def test_an_instant_is_shown_in_the_given_zone_and_a_naive_one_is_taken_as_utc() -> None:
    moment = datetime(2026, 12, 4, 13, 0, 0, tzinfo=timezone.utc)
    assert local_time(moment, EAST_8) == "2026-12-04 21:00:00"
    assert local_time(moment.replace(tzinfo=None), EAST_8) == "2026-12-04 21:00:00"


def test_stored_text_is_shown_as_local_time_and_other_text_stays_as_it_is() -> None:
    assert local_time_text("2026-12-04T13:00:00Z", EAST_8) == "2026-12-04 21:00:00"
    assert local_time_text(" 2026-12-04T13:00:00+00:00\n", EAST_8) == "2026-12-04 21:00:00"
    assert local_time_text("昨天下午", EAST_8) == "昨天下午"
