"""Permission rules (issue 42): permissions.json entries `tool` / `tool(glob)` in the one approval decision."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli.tools.approval import ApprovalState, AutoApprover
from paicli.tools.grants import Grant
from paicli.tools.registry import EXECUTE_COMMAND, WRITE_FILE
from paicli.tools.rule_book import RuleBook, RuleFileError
from paicli.tools.rules import RuleSet, path_pattern, rule_for_grant
from tests.tools.helpers import RecordingApprover, make_runner, run_one


def _book(tmp_path: Path, user: object = None, project: object = None, trusted: bool = True) -> RuleBook:
    home, root = tmp_path / "home", tmp_path / "repo"
    home.mkdir(exist_ok=True)
    root.mkdir(exist_ok=True)
    if user is not None:
        (home / "permissions.json").write_text(json.dumps(user), encoding="utf-8")
    if project is not None:
        (root / ".paicli").mkdir(exist_ok=True)
        (root / ".paicli" / "permissions.json").write_text(json.dumps(project), encoding="utf-8")
    return RuleBook(home, root, lambda: trusted)


def _runner(book: RuleBook, approver: object, **state: object):  # type: ignore[no-untyped-def]
    approval = ApprovalState(rules=book, **state)  # type: ignore[arg-type]
    return make_runner(book.project_root, approver, approval=approval)  # type: ignore[arg-type]


def _command(command: str) -> str:
    return json.dumps({"command": command})


def test_a_deny_rule_refuses_and_names_the_rule_even_with_yes(tmp_path: Path) -> None:
    book = _book(tmp_path, {"deny": ["execute_command(touch *)"]})
    runner = _runner(book, AutoApprover(), yes=True)
    result, text = run_one(runner, "execute_command", _command("cd . && touch made.txt"))
    assert result.blocked and result.outcome == "refused"
    assert "deny 规则 execute_command(touch *)" in text
    assert not (book.project_root / "made.txt").exists()


def test_an_ask_rule_asks_even_for_a_read_only_tool(tmp_path: Path) -> None:
    book = _book(tmp_path, {"ask": ["read_file(notes/**)"]})
    (book.project_root / "notes").mkdir()
    (book.project_root / "notes" / "a.md").write_text("secret plan\n", encoding="utf-8")
    (book.project_root / "free.md").write_text("free\n", encoding="utf-8")
    approver = RecordingApprover("deny")
    runner = _runner(book, approver)
    result, _ = run_one(runner, "read_file", json.dumps({"path": "notes/a.md"}))
    assert result.blocked and len(approver.requests) == 1
    assert "ask 规则 read_file(notes/**)" in approver.requests[0].reason
    run_one(runner, "read_file", json.dumps({"path": "free.md"}))
    assert len(approver.requests) == 1  # another path: no rule, a read-only tool runs unasked


def test_an_allow_rule_runs_its_command_unasked_but_not_what_is_chained_to_it(tmp_path: Path) -> None:
    book = _book(tmp_path, {"allow": ["execute_command(touch *)"]})
    approver = RecordingApprover("deny")
    runner = _runner(book, approver, mode="ask")
    result, _ = run_one(runner, "execute_command", _command("touch a.txt"))
    assert not result.blocked and (book.project_root / "a.txt").exists() and approver.requests == []
    result, _ = run_one(runner, "execute_command", _command("touch b.txt; mkdir evil"))
    assert result.blocked and len(approver.requests) == 1  # mkdir is not covered by the rule
    assert not (book.project_root / "evil").exists()
    run_one(runner, "execute_command", _command("touch $(mkdir evil2)"))
    assert len(approver.requests) == 2  # a substitution: no rule vouches for it


def test_deny_beats_ask_beats_allow(tmp_path: Path) -> None:
    rules = RuleSet.of(
        {
            "allow": ["execute_command"],
            "ask": ["execute_command(git *)"],
            "deny": ["execute_command(git push*)"],
        },
        "user",
    )
    found = [rules.matching(EXECUTE_COMMAND, {"command": c}, []) for c in ("ls -l", "git status", "git push")]
    assert [rule.kind if rule else None for rule in found] == ["allow", "ask", "deny"]


def test_an_allow_rule_never_covers_a_protected_file(tmp_path: Path) -> None:
    book = _book(tmp_path, {"allow": ["write_file"]})
    approver = RecordingApprover("deny")
    runner = _runner(book, approver, mode="ask")
    result, _ = run_one(runner, "write_file", json.dumps({"path": "docs/a.md", "content": "x"}))
    assert not result.blocked and approver.requests == []
    result, _ = run_one(runner, "write_file", json.dumps({"path": ".env", "content": "A=1"}))
    assert result.blocked and len(approver.requests) == 1
    assert not (book.project_root / ".env").exists()


def test_path_globs_keep_star_within_a_folder() -> None:
    docs = path_pattern("docs/**")
    assert docs.fullmatch("docs/a/b.md") and docs.fullmatch("docs/a.md") and not docs.fullmatch("src/docs.md")
    one = path_pattern("src/*.py")
    assert one.fullmatch("src/a.py") and not one.fullmatch("src/pkg/a.py")
    anywhere = path_pattern("**/*.lock")
    assert anywhere.fullmatch("poetry.lock") and anywhere.fullmatch("web/yarn.lock")


def test_a_project_file_adds_ask_and_deny_never_allow(tmp_path: Path) -> None:
    book = _book(tmp_path, project={"allow": ["execute_command"], "deny": ["write_file(build/**)"]})
    rules = book.current()
    assert [(rule.kind, rule.entry, rule.source) for rule in rules.rules] == [
        ("deny", "write_file(build/**)", "project")
    ]
    assert any("不能添加 allow" in problem for problem in rules.problems)
    approver = RecordingApprover("deny")
    runner = _runner(book, approver, mode="ask")
    result, _ = run_one(runner, "execute_command", _command("touch x"))
    assert result.blocked and len(approver.requests) == 1  # the project's allow did not apply
    result, text = run_one(runner, "write_file", json.dumps({"path": "build/out.txt", "content": "x"}))
    assert result.outcome == "refused" and "项目 .paicli/permissions.json 的 deny 规则" in text


def test_an_untrusted_folder_rules_never_apply(tmp_path: Path) -> None:
    book = _book(tmp_path, project={"deny": ["read_file"]}, trusted=False)
    (book.project_root / "a.txt").write_text("hello\n", encoding="utf-8")
    assert book.current().rules == () and book.project_ignored()
    result, text = run_one(_runner(book, RecordingApprover()), "read_file", json.dumps({"path": "a.txt"}))
    assert not result.blocked and "hello" in text


def test_the_user_file_is_edited_in_place_and_a_broken_one_is_never_overwritten(tmp_path: Path) -> None:
    book = _book(tmp_path, {"allow": ["read_file"], "note": "kept"})
    rule = book.add("deny", "execute_command(rm *)")
    assert rule is not None and book.add("deny", "execute_command(rm *)") is not None
    data = json.loads(book.user_path.read_text(encoding="utf-8"))
    assert data["deny"] == ["execute_command(rm *)"] and data["allow"] == ["read_file"]
    assert book.remove(rule) and json.loads(book.user_path.read_text(encoding="utf-8"))["deny"] == []
    assert book.add("deny", "not a rule(") is None
    book.user_path.write_text("{broken", encoding="utf-8")
    with pytest.raises(RuleFileError):
        book.add("allow", "read_file")
    assert book.user_path.read_text(encoding="utf-8") == "{broken"
    assert book.current().problems and "JSON" in book.current().problems[0]


def test_always_at_an_approval_offers_the_rule_that_keeps_it(tmp_path: Path) -> None:
    assert rule_for_grant(EXECUTE_COMMAND, Grant("command", ("npm", "test"))) == "execute_command(npm test*)"
    assert rule_for_grant(WRITE_FILE, Grant("edits")) == "write_file"
    approver = RecordingApprover("approve")
    runner = _runner(_book(tmp_path), approver, mode="ask")
    run_one(runner, "execute_command", _command("touch a.txt"))
    assert approver.requests[0].rule == "execute_command(touch*)"
