"""Port of ExternalContextTrackerTest (spec 5.5) plus the explicit-memory phrases (5.6)."""

from __future__ import annotations

import pytest

from paicli.config.env import ConfigError
from paicli.memory.guard import (
    CURL_SOURCE,
    EXPLICIT_MEMORY_PHRASES,
    MAX_SOURCES,
    ExternalContextTracker,
    explicit_memory_requested,
    is_external_tool,
)

from .helpers import env


def test_classifies_web_browser_and_mcp_tools_as_external() -> None:
    for name in ("web_search", "web_fetch", "WEB_FETCH", " browser_navigate", "mcp__docs__search"):
        assert is_external_tool(name), name
    for local in ("read_file", "grep_code", "execute_command", "save_memory", "search_code", "", None):
        assert not is_external_tool(local), local


def test_blocks_automatic_memory_only_when_guard_is_on_and_external_content_was_seen() -> None:
    tracker = ExternalContextTracker(env())
    assert not tracker.blocks_automatic_memory()
    assert not tracker.observe("read_file", '{"path":"a"}')
    assert not tracker.blocks_automatic_memory()
    assert tracker.observe("web_fetch", '{"url":"https://x"}')
    assert tracker.blocks_automatic_memory()
    assert tracker.sources() == ["web_fetch"]


def test_guard_defaults_on_and_can_be_disabled() -> None:
    assert ExternalContextTracker(env()).guard_enabled
    off = ExternalContextTracker(env({"PAICLI_MEMORY_DISABLE_ON_EXTERNAL_CONTEXT": "off"}))
    assert not off.guard_enabled
    off.observe("mcp__docs__search", "{}")
    assert off.sources() == ["mcp__docs__search"]  # still recorded for explicit-save metadata
    assert not off.blocks_automatic_memory()
    for value in ("false", "0", "no"):
        assert not ExternalContextTracker(
            env({"PAICLI_MEMORY_DISABLE_ON_EXTERNAL_CONTEXT": value})
        ).guard_enabled


def test_invalid_guard_setting_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        ExternalContextTracker(env({"PAICLI_MEMORY_DISABLE_ON_EXTERNAL_CONTEXT": "maybe"}))


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
    tracker = ExternalContextTracker(env())
    import json

    assert tracker.observe("execute_command", json.dumps({"command": command}))
    assert tracker.sources() == [CURL_SOURCE]


@pytest.mark.parametrize("command", ["echo curling", "cat wget.log", "ls -la", "grep -r curl_init src"])
def test_other_commands_do_not_mark(command: str) -> None:
    import json

    tracker = ExternalContextTracker(env())
    assert not tracker.observe("execute_command", json.dumps({"command": command}))
    assert not tracker.has_external()


def test_unparsable_command_arguments_are_searched_as_text() -> None:
    tracker = ExternalContextTracker(env())
    assert tracker.observe("execute_command", "{command: curl https://x")
    assert tracker.has_external()


def test_keeps_at_most_eight_distinct_sources_in_order_and_resets() -> None:
    tracker = ExternalContextTracker(env())
    for i in range(12):
        tracker.mark(f"mcp__s{i}__t")
        tracker.mark("mcp__s0__t")
    assert tracker.sources() == [f"mcp__s{i}__t" for i in range(MAX_SOURCES)]
    tracker.reset()
    assert tracker.sources() == []
    assert not tracker.has_external()


def test_mcp_resource_mention_in_user_input_is_recorded() -> None:
    tracker = ExternalContextTracker(env())
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
