"""The checks that let a plain `paicli -p` skip loading a subsystem (issue 49) decide exactly as the subsystem
would have: no hooks.json means `load_hooks` finds nothing and reports nothing, no mcp.json means `load_config`
finds no server and says nothing; the built-in web tools built at their first call answer as WebTools does; a
folder with no `.paicli` entry brings nothing (the trust check asked at every use of a watched trust).
Which modules a plain run leaves unloaded is checked by tests/cli/test_oneshot_imports.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from paicli.config.trust import project_brings
from paicli.mcp.config import load_config
from paicli.mcp.files import mcp_files_present
from paicli.tools.hook_paths import hooks_files_present
from paicli.tools.hooks import load_hooks
from paicli.tools.web import WebTools
from tests.tools.helpers import make_runner, run, unwrap

STOP_HOOK = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}
SERVER = {"mcpServers": {"demo": {"command": "demo-server"}}}


def _layout(tmp_path: Path, kind: str, name: str, content: object) -> tuple[Path, Path]:
    """A paicli home and a project, with `name` (hooks.json / mcp.json) placed as `kind` says."""
    home, root = tmp_path / "home", tmp_path / "repo"
    home.mkdir()
    (root / ".paicli").mkdir(parents=True)
    text = json.dumps(content)
    if kind == "user":
        (home / name).write_text(text, encoding="utf-8")
    elif kind == "project":
        (root / ".paicli" / name).write_text(text, encoding="utf-8")
    elif kind == "user_broken":
        (home / name).write_text("{not json", encoding="utf-8")
    elif kind == "project_dangling_link":
        os.symlink(tmp_path / "gone.json", root / ".paicli" / name)
    elif kind == "project_link_outside":
        (tmp_path / "outside.json").write_text(text, encoding="utf-8")
        os.symlink(tmp_path / "outside.json", root / ".paicli" / name)
    return home, root


LAYOUTS = ("none", "user", "project", "user_broken", "project_dangling_link", "project_link_outside")


@pytest.mark.parametrize("kind", LAYOUTS)
@pytest.mark.parametrize("trusted", [True, False])
def test_no_hooks_file_means_load_hooks_has_nothing_to_say(tmp_path: Path, kind: str, trusted: bool) -> None:
    home, root = _layout(tmp_path, kind, "hooks.json", STOP_HOOK)
    config = load_hooks(home, root, trusted)
    if not hooks_files_present(home, root, trusted):
        assert config.commands == () and config.problems == ()
    expected_present = kind.startswith("user") or (trusted and kind.startswith("project"))
    assert hooks_files_present(home, root, trusted) is expected_present
    if kind in ("user", "project") and expected_present:
        assert len(config.commands) == 1  # a file that is there still loads


@pytest.mark.parametrize("kind", LAYOUTS)
@pytest.mark.parametrize("trusted", [True, False])
def test_no_mcp_file_means_load_config_finds_no_server_and_no_notice(
    tmp_path: Path, kind: str, trusted: bool
) -> None:
    home, root = _layout(tmp_path, kind, "mcp.json", SERVER)
    config = load_config(home, root, {}, trusted=trusted)
    present = mcp_files_present(home, root)
    assert present is (kind != "none")
    if not present:
        assert config.servers == {} and config.notices == [] and config.ignored_project == []
    if kind == "user" or (kind == "project" and trusted):
        assert list(config.servers) == ["demo"]  # a file that is there still configures its server
    if kind == "project" and not trusted:
        assert config.ignored_project == ["demo"]


def test_the_built_in_web_tools_built_at_first_call_answer_like_webtools(tmp_path: Path) -> None:
    url = "http://127.0.0.1:9/"
    call = ("web_fetch", json.dumps({"url": url}))
    [deferred] = run(make_runner(tmp_path), call, text=f"抓取 {url}")  # the table's own, built at this call
    [direct] = run(make_runner(tmp_path, web=WebTools()), call, text=f"抓取 {url}")
    assert unwrap(deferred) == unwrap(direct)
    assert unwrap(deferred).startswith("🛡️ 策略拒绝")  # the address gate of the WebTools it built refused
    assert (deferred.success, deferred.blocked) == (direct.success, direct.blocked)


def test_a_folder_whose_paicli_entry_is_a_link_is_still_looked_into(tmp_path: Path) -> None:
    """project_brings answers "nothing" at once only when no `.paicli` entry exists at all: a link to a folder
    inside the project is followed as before, a dangling one brings nothing."""
    root = tmp_path / "repo"
    (root / "config" / "skills" / "deploy").mkdir(parents=True)
    (root / "config" / "skills" / "deploy" / "SKILL.md").write_text("x", encoding="utf-8")
    assert project_brings(root) == []  # no .paicli entry
    (root / ".paicli").symlink_to(root / "config")
    assert [(b.path, b.kind) for b in project_brings(root)] == [(".paicli/skills/deploy", "Skill")]
    (root / ".paicli").unlink()
    (root / ".paicli").symlink_to(root / "gone")
    assert project_brings(root) == []
