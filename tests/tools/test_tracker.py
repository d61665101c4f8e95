"""Port of ExternalContextTrackerTest (spec 5.5) plus the explicit-memory phrases (5.6)."""

from __future__ import annotations

import pytest

from paicli.config.env import ConfigError
from paicli.config.values import SessionValues
from paicli.mcp.convert import RemoteTool
from paicli.memory.guard import (
    CURL_SOURCE,
    EXPLICIT_MEMORY_PHRASES,
    MAX_SOURCES,
    ExternalContextTracker,
    explicit_memory_requested,
)
from paicli.tools.registry import builtin_specs

from .helpers import env


def tracker(values: dict[str, str]) -> ExternalContextTracker:
    """The tracker as the composition root builds it from these settings."""
    return ExternalContextTracker(guard_enabled=SessionValues.parse(env(values)).external_guard)


def test_what_counts_as_external_comes_from_the_tool_spec() -> None:
    specs = {spec.name: spec for spec in builtin_specs()}
    assert {name for name, spec in specs.items() if spec.external} == {"web_search", "web_fetch"}
    mcp = RemoteTool("docs", "search", "", '{"type":"object"}').spec()
    assert mcp.external and mcp.name == "mcp__docs__search"
    tracker = ExternalContextTracker()
    for spec in specs.values():
        tracker.observe(spec.name, "{}", external=spec.external, runs_command=spec.runs_command)
    tracker.observe(mcp.name, "{}", external=mcp.external)
    assert tracker.sources() == ["web_fetch", "web_search", "mcp__docs__search"]
    # the name alone decides nothing: a tool is external because its spec says so
    assert not ExternalContextTracker().observe("mcp__docs__search", "{}", external=False)


def test_blocks_automatic_memory_only_when_guard_is_on_and_external_content_was_seen() -> None:
    tracker = ExternalContextTracker()
    assert not tracker.blocks_automatic_memory()
    assert not tracker.observe("read_file", '{"path":"a"}', external=False)
    assert not tracker.blocks_automatic_memory()
    assert tracker.observe("web_fetch", '{"url":"https://x"}', external=True)
    assert tracker.blocks_automatic_memory()
    assert tracker.sources() == ["web_fetch"]


def test_guard_defaults_on_and_can_be_disabled() -> None:
    assert ExternalContextTracker().guard_enabled
    off = tracker({"PAICLI_MEMORY_DISABLE_ON_EXTERNAL_CONTEXT": "off"})
    assert not off.guard_enabled
    off.observe("mcp__docs__search", "{}", external=True)
    assert off.sources() == ["mcp__docs__search"]  # still recorded for explicit-save metadata
    assert not off.blocks_automatic_memory()
    for value in ("false", "0", "no"):
        assert not tracker({"PAICLI_MEMORY_DISABLE_ON_EXTERNAL_CONTEXT": value}).guard_enabled


def test_invalid_guard_setting_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        tracker({"PAICLI_MEMORY_DISABLE_ON_EXTERNAL_CONTEXT": "maybe"})


@pytest.mark.parametrize(
    "command",
    [
        "curl https://x",
        "ls && wget http://a/b",
        "echo hi|curl -d @- x",
        "CURL x",
        "httpie get x",
        "lynx -dump x",
    ],
)
def test_network_commands_mark_external_content(command: str) -> None:
    tracker = ExternalContextTracker()
    import json

    assert tracker.observe(
        "execute_command", json.dumps({"command": command}), external=False, runs_command=True
    )
    assert tracker.sources() == [CURL_SOURCE]


@pytest.mark.parametrize("command", ["echo curling", "cat wget.log", "ls -la", "grep -r curl_init src"])
def test_other_commands_do_not_mark(command: str) -> None:
    import json

    tracker = ExternalContextTracker()
    assert not tracker.observe(
        "execute_command", json.dumps({"command": command}), external=False, runs_command=True
    )
    assert not tracker.has_external()


def test_unparsable_command_arguments_are_searched_as_text() -> None:
    tracker = ExternalContextTracker()
    assert tracker.observe("execute_command", "{command: curl https://x", external=False, runs_command=True)
    assert tracker.has_external()


def test_keeps_at_most_eight_distinct_sources_in_order_and_resets() -> None:
    tracker = ExternalContextTracker()
    for i in range(12):
        tracker.mark(f"mcp__s{i}__t")
        tracker.mark("mcp__s0__t")
    assert tracker.sources() == [f"mcp__s{i}__t" for i in range(MAX_SOURCES)]
    tracker.reset()
    assert tracker.sources() == []
    assert not tracker.has_external()


def test_mcp_resource_mention_in_user_input_is_recorded() -> None:
    tracker = ExternalContextTracker()
    assert not tracker.observe_user_input("普通输入")
    assert tracker.observe_user_input('看这个 <resource server="docs" uri="x">…</resource>')
    assert tracker.sources() == ["mcp_resource_mention"]


def test_explicit_memory_phrases() -> None:
    assert set(EXPLICIT_MEMORY_PHRASES) >= {
        "记一下",
        "记住",
        "记下来",
        "以后记得",
        "下次记得",
        "保存这个偏好",
        "保存到长期记忆",
        "保存到记忆",
    }
    assert explicit_memory_requested("请记住我喜欢用 tab 缩进")
    assert explicit_memory_requested("把这个保存到记忆里")
    assert not explicit_memory_requested("这个页面说了什么")
    assert not explicit_memory_requested("")
