"""MCP names, schema conversion, result text and mcp.json loading: pure values and real files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from paicli.mcp.config import disabled_servers, load_config, set_disabled
from paicli.mcp.convert import canonical_schema, remote_tools, result_text
from paicli.mcp.naming import MAX_NAME, tool_name
from paicli.tools.schema import ArgumentError, parse_arguments


def test_tool_names_are_sanitised_bounded_and_distinct() -> None:
    assert tool_name("docs", "search") == "mcp__docs__search"
    sanitised = tool_name("my server", "a.b/c")  # changed parts carry a digest of what they were (issue 39)
    assert re.fullmatch(r"mcp__my_server_[0-9a-f]{6}__a_b_c_[0-9a-f]{6}", sanitised)
    assert sanitised != tool_name("my_server", "a_b_c") == "mcp__my_server__a_b_c"
    long_a, long_b = tool_name("s" * 40, "t" * 40 + "a"), tool_name("s" * 40, "t" * 40 + "b")
    assert len(long_a) == MAX_NAME and len(long_b) == MAX_NAME
    assert long_a != long_b
    assert tool_name("s" * 40, "t" * 40 + "a") == long_a  # deterministic


def test_schema_is_canonical_and_malformed_schemas_are_rejected() -> None:
    first = canonical_schema(
        {"title": "x", "type": "object", "properties": {"b": {"type": "string"}, "a": {}}}
    )
    second = canonical_schema({"properties": {"a": {}, "b": {"type": "string"}}, "type": "object"})
    assert first == second and "title" not in first
    for bad in ([1], {"type": "array"}, {"properties": [1]}, {"required": "a"}):
        with pytest.raises(ValueError):
            canonical_schema(bad)


def test_listing_sorted_and_problems_reported() -> None:
    listed = [
        {"name": "zeta", "inputSchema": {"type": "object"}},
        {"name": "alpha", "description": "A", "inputSchema": {"type": "object"}},
        {"name": "broken", "inputSchema": {"type": "string"}},
        {"inputSchema": {}},
    ]
    tools, problems = remote_tools("srv", listed)
    assert [t.model_name for t in tools] == ["mcp__srv__alpha", "mcp__srv__zeta"]
    assert len(problems) == 2 and any("broken" in p for p in problems)
    definition = tools[0].spec().definition()
    assert definition["function"]["name"] == "mcp__srv__alpha"
    assert definition["function"]["parameters"] == {"type": "object", "properties": {}}


def test_mcp_arguments_pass_through_and_required_ones_are_checked() -> None:
    tools, _ = remote_tools(
        "srv", [{"name": "add", "inputSchema": {"type": "object", "required": ["a"], "properties": {}}}]
    )
    spec = tools[0].spec()
    assert parse_arguments(spec, '{"a": 1, "extra": [1, 2]}') == {"a": 1, "extra": [1, 2]}
    with pytest.raises(ArgumentError, match="a"):
        parse_arguments(spec, "{}")


def test_result_text_describes_binary_content() -> None:
    text = result_text(
        [
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "A" * 400, "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "x://y", "blob": "AAAA", "mimeType": "application/zip"}},
        ]
    )
    assert "hello" in text and "image/png" in text and "AAAA" not in text and "application/zip" in text
    assert result_text([], {"k": 1}).strip().startswith("{")


def _write(path: Path, servers: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")


def test_project_overrides_by_name_only_when_trusted(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    _write(home / "mcp.json", {"a": {"command": "user-a"}, "b": {"url": "http://127.0.0.1:1/mcp"}})
    _write(project / ".paicli" / "mcp.json", {"a": {"command": "project-a"}, "c": {"command": "c"}})
    untrusted = load_config(home, project, {}, trusted=False)
    assert untrusted.servers["a"].command == "user-a" and "c" not in untrusted.servers
    assert untrusted.ignored_project == ["a", "c"]
    trusted = load_config(home, project, {}, trusted=True)
    assert trusted.servers["a"].command == "project-a" and trusted.servers["a"].source == "project"
    assert sorted(trusted.servers) == ["a", "b", "c"]


def test_variables_expand_in_env_and_headers_and_missing_ones_are_reported(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _write(
        home / "mcp.json",
        {
            "s": {"command": "x", "env": {"TOKEN": "${MY_TOKEN}", "N": "${UNSET_ONE}"}},
            "h": {"url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer ${MY_TOKEN}"}},
        },
    )
    config = load_config(home, tmp_path, {"MY_TOKEN": "t0k"}, trusted=False)
    assert dict(config.servers["s"].env) == {"TOKEN": "t0k", "N": ""}
    assert dict(config.servers["h"].headers) == {"Authorization": "Bearer t0k"}
    assert any("UNSET_ONE" in notice for notice in config.notices)


def test_invalid_entries_and_files_give_notices_not_errors(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _write(home / "mcp.json", {"both": {"command": "x", "url": "http://h"}, "bad name!": {"command": "x"}})
    config = load_config(home, tmp_path, {}, trusted=True)
    assert config.servers == {} and len(config.notices) == 2
    (home / "mcp.json").write_text("[" * 100_000, encoding="utf-8")
    assert load_config(home, tmp_path, {}, trusted=True).notices


def test_project_file_through_a_symlink_out_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    _write(outside, {"evil": {"command": "evil"}})
    project = tmp_path / "project"
    (project / ".paicli").mkdir(parents=True)
    (project / ".paicli" / "mcp.json").symlink_to(outside)
    config = load_config(tmp_path / "home", project, {}, trusted=True)
    assert "evil" not in config.servers


def test_disabled_servers_persist(tmp_path: Path) -> None:
    set_disabled(tmp_path, "a", True)
    set_disabled(tmp_path, "b", True)
    set_disabled(tmp_path, "a", False)
    assert disabled_servers(tmp_path) == {"b"}
    assert (tmp_path / "mcp-disabled.json").stat().st_mode & 0o777 == 0o600


def test_started_in_the_home_folder_the_users_file_is_not_also_the_projects(tmp_path: Path) -> None:
    _write(tmp_path / ".paicli" / "mcp.json", {"a": {"command": "x"}})
    config = load_config(tmp_path / ".paicli", tmp_path, {}, trusted=False)
    assert "a" in config.servers and config.ignored_project == []
