"""Hooks in Claude Code's schema (issue 42): matching, the event on stdin, exit code 2 blocks with stderr as the
reason, bounded time and output, never paicli's keys in the hook's environment."""

from __future__ import annotations

import json
from pathlib import Path

from paicli.tools.hooks import HookConfig, Hooks, compaction_hooks, load_hooks, parse_hooks
from tests.tools.helpers import make_runner, run_one


def _hooks(root: Path, event: str, command: str, matcher: str = "", **extra: object) -> Hooks:
    entry = {"type": "command", "command": command, **extra}
    config = parse_hooks({"hooks": {event: [{"matcher": matcher, "hooks": [entry]}]}}, "user")
    assert config.problems == () and len(config.commands) == 1
    return Hooks(config, root, "s-1", lambda: ("sk-configured-key-123456",))


def test_exit_code_two_blocks_a_tool_call_with_stderr_as_the_reason(tmp_path: Path) -> None:
    hooks = _hooks(tmp_path, "PreToolUse", "cat > seen.json; echo '不许在周五部署' >&2; exit 2", "execute_.*")
    runner = make_runner(tmp_path, hooks=hooks)
    result, text = run_one(runner, "execute_command", json.dumps({"command": "touch made.txt"}))
    assert result.blocked and "不许在周五部署" in text and "PreToolUse" in text
    assert not (tmp_path / "made.txt").exists()
    event = json.loads((tmp_path / "seen.json").read_text(encoding="utf-8"))
    assert event["hook_event_name"] == "PreToolUse" and event["tool_name"] == "execute_command"
    assert event["tool_input"] == {"command": "touch made.txt"} and event["session_id"] == "s-1"


def test_a_matcher_picks_the_tool_and_other_exit_codes_do_not_block(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\n", encoding="utf-8")
    notices: list[str] = []
    broken = _hooks(tmp_path, "PreToolUse", "echo broken >&2; exit 1", "read_file")
    runner = make_runner(tmp_path, notices=notices.append, hooks=broken)
    result, text = run_one(runner, "read_file", json.dumps({"path": "a.txt"}))
    assert not result.blocked and "hello" in text
    assert len(notices) == 1 and "退出码 1" in notices[0] and "broken" in notices[0]
    elsewhere = _hooks(tmp_path, "PreToolUse", "exit 2", "write_file|edit_file")
    result, _ = run_one(make_runner(tmp_path, hooks=elsewhere), "read_file", json.dumps({"path": "a.txt"}))
    assert not result.blocked


def test_post_tool_use_feedback_reaches_the_model(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\n", encoding="utf-8")
    feedback = _hooks(tmp_path, "PostToolUse", "grep -q hello && echo '请同时更新 CHANGELOG' >&2; exit 2")
    runner = make_runner(tmp_path, hooks=feedback)
    _, text = run_one(runner, "read_file", json.dumps({"path": "a.txt"}))
    assert "hello" in text and "[PostToolUse 钩子的反馈] 请同时更新 CHANGELOG" in text


def test_a_hook_never_sees_a_configured_key_and_its_time_and_output_are_bounded(tmp_path: Path) -> None:
    hooks = _hooks(tmp_path, "Stop", "env; head -c 100000 /dev/zero | tr '\\0' x")
    result = hooks.run("Stop", {})
    assert "sk-configured-key-123456" not in result.context and "PAICLI_API_KEY" not in result.context
    assert len(result.context) <= 16_000 and "CLAUDE_PROJECT_DIR=" in result.context
    slow = _hooks(tmp_path, "Stop", "exec sleep 600", timeout=0.2)
    outcome = slow.run("Stop", {})
    assert not outcome.blocked and "超时" in outcome.failures[0]


def test_pre_compact_adds_what_the_summary_must_keep(tmp_path: Path) -> None:
    focus, _ = compaction_hooks(_hooks(tmp_path, "PreCompact", "echo '保留: 发布日期是 3 月 9 日'"), None)
    assert focus(None) == "保留: 发布日期是 3 月 9 日"
    assert focus("重点是接口") == "重点是接口\n保留: 发布日期是 3 月 9 日"


def test_an_untrusted_folder_hooks_never_load_and_bad_files_are_named(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "repo"
    (root / ".paicli").mkdir(parents=True)
    home.mkdir()
    (root / ".paicli" / "hooks.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "touch pwned"}]}]}}),
        encoding="utf-8",
    )
    (home / "hooks.json").write_text("{not json", encoding="utf-8")
    untrusted = load_hooks(home, root, trusted=False)
    assert untrusted.commands == () and "无法解析" in untrusted.problems[0]
    assert len(load_hooks(home, root, trusted=True).commands) == 1
    assert HookConfig().for_event("Stop") == []
