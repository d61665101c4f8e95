"""Audit trail of dangerous calls (spec 9.2)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from paicli.config.env import EnvLookup
from paicli.config.tool_values import ToolValues
from paicli.tools.audit import AuditLog, format_audit

from .helpers import RecordingApprover, env, make_runner, run

FIXED = datetime(2026, 11, 6, 10, 15, tzinfo=timezone.utc)


def test_dangerous_calls_are_audited_with_their_outcome(project: Path, tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit", clock=lambda: FIXED)
    runner = make_runner(project, RecordingApprover("deny"), audit=log)
    run(
        runner,
        ("write_file", '{"path":"a.txt","content":"x"}'),
        ("execute_command", '{"command":"touch b"}'),
        ("execute_command", '{"command":"sudo ls"}'),
        ("read_file", '{"path":"a.txt"}'),
    )
    [path] = list((tmp_path / "audit").glob("audit-*.jsonl"))
    assert path.name == f"audit-{FIXED.astimezone().strftime('%Y-%m-%d')}.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [(r["tool"], r["outcome"], r["success"]) for r in records] == [
        ("write_file", "executed", True),
        ("execute_command", "denied", False),
        ("execute_command", "blocked", False),
    ]
    assert records[0]["timestamp"] == "2026-11-06T10:15:00Z"
    assert log.recent(2) == records[1:]
    assert "execute_command [denied]" in format_audit(log.recent())


def test_audit_listing_shows_local_time_to_the_second(tmp_path: Path) -> None:
    """Issue 44 item 7: the file keeps ISO-8601 UTC; /audit shows local time without microseconds."""
    precise = FIXED.replace(microsecond=656277)
    log = AuditLog(tmp_path / "audit", clock=lambda: precise)
    log.record("write_file", '{"path":"a.txt"}', "executed", True)
    [record] = log.recent()
    assert record["timestamp"] == "2026-11-06T10:15:00.656277Z"
    text = format_audit(log.recent(), timezone(timedelta(hours=8)))
    assert text.splitlines()[1] == '  ✅ 2026-11-06 18:15:00 write_file [executed] {"path":"a.txt"}'
    assert format_audit([{"timestamp": "手改的", "tool": "x"}]).splitlines()[1].startswith("  ❌ 手改的 x")


def test_audit_dir_defaults_under_paicli_home_and_can_be_moved(tmp_path: Path) -> None:
    def audit_dir(lookup: EnvLookup) -> Path:
        return ToolValues.parse(lookup).audit_folder

    assert audit_dir(env()).name == "audit"
    assert audit_dir(env({"PAICLI_AUDIT_DIR": str(tmp_path / "x")})) == tmp_path / "x"
    assert (
        audit_dir(env({"PAICLI_HOME": str(tmp_path / "h")})) == tmp_path / "h" / "audit"
    )  # the injected env
    assert audit_dir(env({"HOME": str(tmp_path / "u")})) == tmp_path / "u" / ".paicli" / "audit"
    assert format_audit([]).startswith("📭")


def test_guard_and_policy_refusals_of_any_tool_are_audited(project: Path, tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit", clock=lambda: FIXED)
    runner = make_runner(project, audit=log)
    run(
        runner,
        ("read_file", '{"path":"../outside.txt"}'),
        ("web_fetch", '{"url":"https://not-in-input.example/"}'),
        ("list_dir", '{"path":"."}'),
        text="列一下目录",
    )
    records = log.recent()
    # read-only calls run as one parallel batch, so their records may land in either order
    assert sorted((r["tool"], r["outcome"]) for r in records) == [
        ("read_file", "blocked"),
        ("web_fetch", "blocked"),
    ]
