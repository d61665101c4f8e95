"""`-p --input-format stream-json` and `-p --json-schema FILE`: the parsing and checking in-process (the real
session over the loopback fake), the flags' wiring through a paicli process."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest

from paicli.cli.app_backend import AppBackend
from paicli.cli.stream_input import InputProblem, parse_message, run_stream_input
from paicli.cli.structured import load_schema, problems_of, run_structured
from paicli.config.env import ConfigError
from paicli.testing.openai_server import FakeOpenAIServer
from paicli.testing.proc import message_text, paicli_env, run_paicli, start_paicli
from tests.cli.served_session import served_parts

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "stars": {"type": "integer", "minimum": 0}},
    "required": ["name", "stars"],
    "additionalProperties": False,
}


def user_line(text: str) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": text}}, ensure_ascii=False)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (user_line("你好"), "你好"),
        ('{"type": "user", "content": "短格式"}', "短格式"),
        (
            '{"type": "user", "message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}',
            "a\nb",
        ),
    ],
)
def test_a_user_message_line_gives_its_text(line: str, expected: str) -> None:
    assert parse_message(1, line) == expected


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("{oops", "不是有效的 JSON"),
        ('{"type": "assistant", "content": "x"}', '"type": "user"'),
        ('{"type": "user", "content": [{"type": "image", "url": "x"}]}', "content 必须"),
        ('{"type": "user", "content": "  "}', "为空"),
        ("[1, 2]", '"type": "user"'),
    ],
)
def test_a_line_that_is_not_a_user_message_is_named(line: str, words: str) -> None:
    problem = parse_message(7, line)
    assert isinstance(problem, InputProblem) and problem.line == 7 and words in problem.message


def backend(tmp_path: Path, server: FakeOpenAIServer) -> AppBackend:
    return AppBackend(served_parts(tmp_path, server.base_url), count_context=False)


def test_each_message_is_a_turn_of_one_session(tmp_path: Path) -> None:
    with FakeOpenAIServer(["一号", "二号"]) as server:
        out, err = io.StringIO(), io.StringIO()
        lines = [user_line("第一条"), "not json\n", "", user_line("第二条")]
        code = run_stream_input(backend(tmp_path, server), "", "react", "stream-json", lines, out, err)
        said = [message_text(m) for m in server.requests[-1]["messages"]]
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    results = [r for r in records if r["type"] == "result"]
    assert [r["result"] for r in results] == ["一号", "二号"]
    assert results[0]["session_id"] == results[1]["session_id"]
    assert {"type": "input_error", "line": 2, "message": "不是有效的 JSON: Expecting value"} in records
    assert "第 2 行已跳过" in err.getvalue()
    assert "第一条" in said and "一号" in said and "第二条" in said
    assert code == 2  # every turn done, one line refused


def test_a_schema_answer_is_checked_and_repaired_once(tmp_path: Path) -> None:
    with FakeOpenAIServer(['{"name": "paicli"}', '```json\n{"name": "paicli", "stars": 5}\n```']) as server:
        out, err = io.StringIO(), io.StringIO()
        code = run_structured(backend(tmp_path, server), "介绍项目", "react", "json", SCHEMA, out, err)
        asked = message_text(server.requests[0]["messages"][-1])
        repair = message_text(server.requests[1]["messages"][-1])
    record = json.loads(out.getvalue())
    assert code == 0 and record["structured_output"] == {"name": "paicli", "stars": 5}
    assert record["result"] == '{"name": "paicli", "stars": 5}' and not record["is_error"]
    assert '"required"' in asked and "介绍项目" in asked
    assert "stars" in repair and "required" in repair


def test_a_schema_answer_that_stays_wrong_fails_with_exit_1(tmp_path: Path) -> None:
    with FakeOpenAIServer(['{"name": 1, "stars": 2}', "不是 JSON"]) as server:
        out, err = io.StringIO(), io.StringIO()
        code = run_structured(backend(tmp_path, server), "介绍项目", "react", "text", SCHEMA, out, err)
        assert len(server.requests) == 2  # one repair request, no more
    assert code == 1 and out.getvalue() == ""
    assert "不符合 JSON Schema" in err.getvalue() and "回答不是 JSON" in err.getvalue()


def test_problems_name_where_the_value_breaks_the_schema() -> None:
    value, problems = problems_of('{"name": "x", "stars": -1, "extra": true}', SCHEMA)
    assert value["stars"] == -1
    assert any(p.startswith("- /stars:") for p in problems) and any(p.startswith("- 根:") for p in problems)
    assert problems_of('{"name": "x", "stars": 3}', SCHEMA)[1] == []


def test_an_unusable_schema_file_is_a_config_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"type": "no-such-type"}', encoding="utf-8")
    with pytest.raises(ConfigError, match="不是有效的 JSON Schema"):
        load_schema(str(bad))
    with pytest.raises(ConfigError, match="无法读取"):
        load_schema(str(tmp_path / "missing.json"))


@pytest.mark.e2e  # a paicli process
def test_stream_json_input_through_paicli_answers_each_message_before_the_next(
    project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer(["一号", "二号"]) as server:
        args = ["-p", "--input-format", "stream-json", "--output-format", "stream-json"]
        proc = start_paicli(args, paicli_env(isolated_home, server.base_url), project, stdin=subprocess.PIPE)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(user_line("第一条") + "\n")
        proc.stdin.flush()
        first = next(json.loads(line) for line in proc.stdout if json.loads(line)["type"] == "result")
        assert first["result"] == "一号" and len(server.requests) == 1  # the second was not written yet
        proc.stdin.write(user_line("第二条") + "\n")
        proc.stdin.close()
        rest = [json.loads(line) for line in proc.stdout]
        assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
    assert rest[-1]["type"] == "result" and rest[-1]["result"] == "二号"
    assert rest[-1]["session_id"] == first["session_id"]


@pytest.mark.e2e  # a paicli process
def test_json_schema_through_paicli(project: Path, isolated_home: Path) -> None:
    schema = project / "schema.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    with FakeOpenAIServer(['{"name": "paicli", "stars": 7}']) as server:
        env = paicli_env(isolated_home, server.base_url)
        proc = run_paicli(["-p", "介绍项目", "--json-schema", str(schema)], env, project)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"name": "paicli", "stars": 7}
    bad = run_paicli(["-p", "x", "--json-schema", str(project / "nope.json")], env, project)
    assert bad.returncode == 2 and "--json-schema" in bad.stderr
    both = run_paicli(["-p", "--input-format", "stream-json", "--json-schema", str(schema)], env, project)
    assert both.returncode == 2
