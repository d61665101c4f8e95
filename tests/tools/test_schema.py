"""Argument validation: malformed JSON, missing or wrong-typed arguments become clear errors, never exceptions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli.config import knobs
from paicli.tools.registry import (
    DEFAULT_COMMAND_TIMEOUT,
    EDIT_FILE,
    EXECUTE_COMMAND,
    GREP_CODE,
    READ_FILE,
    SAVE_MEMORY,
)
from paicli.tools.runner import ToolRunner
from paicli.tools.schema import ArgumentError, parse_arguments

from .helpers import make_runner, run, unwrap


def test_valid_arguments_are_parsed_with_defaults() -> None:
    assert parse_arguments(GREP_CODE, '{"pattern":"x"}') == {
        "pattern": "x",
        "path": ".",
        "context_lines": 2,
        "head_limit": 20,
        "max_chars": 24000,
    }
    assert parse_arguments(READ_FILE, '{"path":"a","offset":"3","limit":10.0}') == {
        "path": "a",
        "offset": 3,
        "limit": 10,
    }
    assert (
        parse_arguments(EDIT_FILE, '{"path":"a","old_text":"x","new_text":"","replace_all":"true"}')[
            "replace_all"
        ]
        is True
    )


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ("{bad json", "不是合法的 JSON"),
        ("[1, 2]", "必须是 JSON 对象"),
        ("{}", "缺少必填参数 path"),
        ('{"path": null}', "缺少必填参数 path"),
        ('{"path": ["a"]}', "应为字符串"),
        ('{"path": "a", "offset": "ten"}', "应为整数"),
        ('{"path": "a", "offset": true}', "应为整数"),
        ('{"path": "a", "limit": 0}', "不能小于 1"),
        ('{"file": "a"}', "缺少必填参数 path"),
    ],
)
def test_bad_arguments_are_rejected_with_a_reason(raw: str, fragment: str) -> None:
    with pytest.raises(ArgumentError) as error:
        parse_arguments(READ_FILE, raw)
    assert fragment in str(error.value)


def test_double_encoded_arguments_are_accepted() -> None:
    assert parse_arguments(READ_FILE, '"{\\"path\\": \\"a.txt\\"}"') == {"path": "a.txt"}
    with pytest.raises(ArgumentError, match="必须是 JSON 对象"):
        parse_arguments(READ_FILE, '"just text"')


def test_enum_and_boolean_checks() -> None:
    with pytest.raises(ArgumentError, match="project / global"):
        parse_arguments(SAVE_MEMORY, '{"fact":"x","scope":"everywhere"}')
    with pytest.raises(ArgumentError, match="布尔值"):
        parse_arguments(EDIT_FILE, '{"path":"a","old_text":"x","new_text":"y","replace_all":"yes please"}')


def test_unknown_keys_alone_are_an_error_but_extra_keys_are_ignored() -> None:
    with pytest.raises(ArgumentError, match="缺少必填参数 pattern（收到不认识的参数 dir）"):
        parse_arguments(GREP_CODE, '{"dir":"src"}')
    assert parse_arguments(READ_FILE, '{"path":"a","why":"because"}') == {"path": "a"}
    from paicli.tools.registry import LIST_DIR

    with pytest.raises(ArgumentError, match="不认识的参数 dir"):
        parse_arguments(LIST_DIR, '{"dir":"src"}')


def test_empty_arguments_mean_no_arguments() -> None:
    from paicli.tools.registry import LIST_DIR

    assert parse_arguments(LIST_DIR, "") == {"path": "."}
    assert parse_arguments(LIST_DIR, "  ") == {"path": "."}


def test_runner_turns_bad_arguments_into_results(project: Path) -> None:
    results = run(
        make_runner(project),
        ("read_file", "{oops"),
        ("execute_command", '{"cmd":"ls"}'),
        ("nope_tool", "{}"),
        ("grep_code", '{"pattern":"(unclosed"}'),
    )
    assert [r.success for r in results] == [False, False, False, False]
    assert [r.blocked for r in results] == [False, False, False, False]
    texts = [unwrap(r) for r in results]
    assert texts[0].startswith("❌ 参数错误（read_file）")
    assert "path (string，必填)" in texts[0]
    assert "缺少必填参数 command" in texts[1] or "不认识的参数 cmd" in texts[1]
    assert texts[2].startswith("❌ 未知工具: nope_tool") and "read_file" in texts[2]
    assert "正则表达式无效" in texts[3]


def test_definitions_match_the_spec_names_and_parameters(project: Path) -> None:
    runner = make_runner(project)
    params = {
        d["function"]["name"]: set(d["function"]["parameters"]["properties"]) for d in runner.definitions()
    }
    assert params == {
        "read_file": {"path", "offset", "limit"},
        "write_file": {"path", "content"},
        "edit_file": {"path", "old_text", "new_text", "replace_all"},
        "list_dir": {"path"},
        "glob_files": {"pattern", "path", "max_results"},
        "grep_code": {"pattern", "glob", "path", "context_lines", "head_limit", "max_chars"},
        "execute_command": {"command"},
        "web_fetch": {"url", "max_chars"},
        "web_search": {"query", "top_k"},
        "save_memory": {"fact", "scope", "replace_id", "keep_both"},
        "create_project": {"name", "type"},
    }
    for definition in runner.definitions():
        assert definition["type"] == "function"
        assert definition["function"]["parameters"]["type"] == "object"


def _command_description(runner: ToolRunner) -> str:
    [description] = [
        d["function"]["description"]
        for d in runner.definitions()
        if d["function"]["name"] == "execute_command"
    ]
    return str(description)


def test_the_command_tool_states_the_time_limit_it_runs_under(project: Path) -> None:
    """Issue 44 item 9: PAICLI_COMMAND_TIMEOUT_SECONDS=300 is what the model reads; the default's text (and so
    the default session's definitions, byte for byte) is unchanged, and a runner's text stays put."""
    default = make_runner(project)
    assert knobs.COMMAND_TIMEOUT_SECONDS.default == DEFAULT_COMMAND_TIMEOUT
    assert _command_description(default) == EXECUTE_COMMAND.description
    assert "；60 秒超时即终止整个进程组；" in EXECUTE_COMMAND.description
    longer = make_runner(project, values={"PAICLI_COMMAND_TIMEOUT_SECONDS": "300"})
    text = _command_description(longer)
    assert text == EXECUTE_COMMAND.description.replace("60 秒超时", "300 秒超时")
    assert longer.command_timeout == 300
    assert json.dumps(longer.definitions()) == json.dumps(longer.for_turn("再跑一次").definitions())
