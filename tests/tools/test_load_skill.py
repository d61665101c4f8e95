"""load_skill: pieces, files confined to the skill folder, and settling into the history (spec 7.5, 9.1)."""

from __future__ import annotations

import json
from pathlib import Path

from paicli.config.values import SessionValues
from paicli.context.internal import is_internal, skill_names
from paicli.llm.messages import Message
from paicli.tools.base import ToolResult
from paicli.tools.runner import ToolRunner
from paicli.tools.skill_load import PIECE_CHARS, LoadSkillTool, settle_skill_loads
from paicli.tools.skills import SkillCatalog
from tests.tools.helpers import env, make_runner, run, unwrap
from tests.tools.skill_helpers import catalog, dirs, write_skill


def runner_with(tmp_path: Path, made: SkillCatalog, budget: int | None = None) -> ToolRunner:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    runner = make_runner(root)
    values = {"PAICLI_SKILL_BODY_BUDGET": str(budget)} if budget else {}
    runner.register(LoadSkillTool.tool(made, SessionValues.parse(env(values)).skill_body_budget))
    return runner


def load(runner: ToolRunner, history: list[Message], **args: object) -> tuple[ToolResult, list[Message]]:
    raw = run(runner, ("load_skill", json.dumps(args)))
    settled, injections = settle_skill_loads(history, raw)
    return settled[0], injections


def long_body(lines: int) -> str:
    return "\n".join(f"步骤 {i:04d}: " + "做点什么" * 10 for i in range(lines))


def test_injection_format_and_short_confirmation(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    folder = write_skill(d.user, "review", "审查改动", body="# Review\n先看 diff。")
    (folder / "checklist.md").write_text("- 边界\n", encoding="utf-8")
    runner = runner_with(tmp_path, catalog(tmp_path))
    result, injections = load(runner, [], name="review")
    assert result.success
    confirmation = unwrap(result)
    assert "✅ 已加载 Skill review" in confirmation and "[PAICLI_SKILL_INJECTION]" in confirmation
    assert "checklist.md" in confirmation and "先看 diff" not in confirmation
    [message] = injections
    lines = (message.content or "").splitlines()
    assert lines[0] == "[PAICLI_SKILL_INJECTION]"
    assert lines[1] == "## 已加载 Skill：review（来源：user）"
    assert lines[2] == f"Skill 目录：{folder}"
    assert "# Review\n先看 diff。" in (message.content or "")
    assert is_internal(message) and skill_names(message) == ["review"]


def test_project_skill_is_marked_untrusted_in_the_injection(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    write_skill(d.project, "deploy", "部署")
    runner = runner_with(tmp_path, catalog(tmp_path))
    _, [message] = load(runner, [], name="deploy")
    head = (message.content or "").splitlines()[:5]
    assert head[1] == "## 已加载 Skill：deploy（来源：project）"
    assert any("不可信" in line for line in head)


def test_long_body_is_cut_on_a_line_boundary_and_continues_by_offset(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    body = long_body(200)
    write_skill(d.user, "big", "很长", body=body)
    runner = runner_with(tmp_path, catalog(tmp_path))
    history: list[Message] = []
    first, [piece1] = load(runner, history, name="big")
    text1 = piece1.content or ""
    hint = text1.rsplit("offset=", 1)[1].rstrip("]")
    offset = int(hint)
    assert 0 < offset <= PIECE_CHARS and body[offset - 1] == "\n"
    assert "file=SKILL.md, offset=" in text1 and f"offset={offset}" in unwrap(first)
    assert body[:offset].rstrip("\n") in text1
    history.append(piece1)
    _, [piece2] = load(runner, history, name="big", file="SKILL.md", offset=offset)
    assert body[offset : offset + 100] in (piece2.content or "")
    assert "（第 0-" in text1 and f"（第 {offset}-" in (piece2.content or "")


def test_the_same_piece_is_not_injected_twice(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    write_skill(d.user, "review", "审查", body="正文内容")
    runner = runner_with(tmp_path, catalog(tmp_path))
    _, [message] = load(runner, [], name="review")
    again, injections = load(runner, [Message.user("任务"), message], name="review")
    assert injections == []
    assert again.success and "没有重复加载" in unwrap(again)


def test_two_calls_in_one_response_inject_once(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    write_skill(d.user, "review", "审查")
    runner = runner_with(tmp_path, catalog(tmp_path))
    raw = run(runner, ("load_skill", '{"name":"review"}'), ("load_skill", '{"name":"review"}'))
    settled, injections = settle_skill_loads([], raw)
    assert len(injections) == 1
    assert "没有重复加载" in unwrap(settled[1])


def test_budget_limits_the_skill_text_in_history(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    for name in ("a", "b", "c", "d", "e"):
        write_skill(d.user, name, name, body=long_body(200))
    runner = runner_with(tmp_path, catalog(tmp_path))
    history: list[Message] = []
    refused = None
    for name in ("a", "b", "c", "d", "e"):
        result, injections = load(runner, history, name=name)
        history.extend(injections)
        if not injections:
            refused = unwrap(result)
    injected = sum(len(m.content or "") for m in history)
    assert injected <= 16 * 1024
    assert len(history) == 3  # the fourth 5 KB piece would break the 16 KB budget
    assert refused is not None and "16384" in refused


def test_budget_is_configurable_and_a_piece_is_shortened_to_fit(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    write_skill(d.user, "a", "a", body=long_body(200))
    write_skill(d.user, "b", "b", body=long_body(200))
    runner = runner_with(tmp_path, catalog(tmp_path), budget=8000)
    history: list[Message] = []
    for name in ("a", "b"):
        _, injections = load(runner, history, name=name)
        history.extend(injections)
    assert len(history) == 2
    assert sum(len(m.content or "") for m in history) <= 8000
    assert "offset=" in (history[1].content or "")


def test_other_files_load_but_nothing_outside_the_folder(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    folder = write_skill(d.user, "review", "审查")
    (folder / "ref").mkdir()
    (folder / "ref" / "guide.md").write_text("指南内容", encoding="utf-8")
    (d.user / "secret.txt").write_text("secret", encoding="utf-8")
    (folder / "link.md").symlink_to(d.user / "secret.txt")
    runner = runner_with(tmp_path, catalog(tmp_path))
    ok, [message] = load(runner, [], name="review", file="ref/guide.md")
    assert ok.success and "指南内容" in (message.content or "")
    assert "Skill 文件：ref/guide.md" in (message.content or "")
    for bad in ("../secret.txt", str(d.user / "secret.txt"), "link.md", "missing.md"):
        result, injections = load(runner, [], name="review", file=bad)
        assert not result.success and injections == [], bad
        assert "secret" not in unwrap(result).replace("secret.txt", "")


def test_unknown_and_disabled_skills_are_clear_errors(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    write_skill(d.user, "review", "审查")
    write_skill(d.user, "off", "停用的")
    made = catalog(tmp_path)
    made.set_enabled("off", False)
    runner = runner_with(tmp_path, made)
    unknown, none = load(runner, [], name="nope")
    assert not unknown.success and none == [] and "review" in unwrap(unknown) and "off" not in unwrap(unknown)
    disabled, none = load(runner, [], name="off")
    assert not disabled.success and "/skill on off" in unwrap(disabled)
    past_end, _ = load(runner, [], name="review", offset=999999)
    assert not past_end.success and "超出" in unwrap(past_end)


def test_unsettled_result_still_carries_the_skill_text(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    write_skill(d.user, "review", "审查", body="按步骤审查")
    runner = runner_with(tmp_path, catalog(tmp_path))
    [raw] = run(runner, ("load_skill", '{"name":"review"}'))
    assert "按步骤审查" in unwrap(raw)


def test_load_skill_is_always_in_the_tool_list(tmp_path: Path) -> None:
    runner = runner_with(tmp_path, catalog(tmp_path))
    names = [d["function"]["name"] for d in runner.for_turn("不要联网，解释一下").definitions()]
    assert "load_skill" in names
