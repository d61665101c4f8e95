"""`paicli -p --json-schema FILE`: the final answer must be JSON valid against the schema. The task says so (with
the schema); an answer that fails gets one repair request in the same session; if it still fails the run is
an error (exit 1) that names what is wrong.

Validation is the `jsonschema` package (every JSON Schema draft, with `$ref`s and formats as the schema
declares them); pydantic validates models of its own, not arbitrary schema documents."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from paicli.agent.events import RunFinished
from paicli.cli.backend import SessionPort
from paicli.cli.oneshot import finish_turn, run_turn
from paicli.config.env import ConfigError
from paicli.config.modes import RunMode
from paicli.prompt.repository import load_bundled

MAX_PROBLEMS = 5
_FENCE = re.compile(r"^```[A-Za-z0-9_-]*\n(.*)\n```$", re.S)


def load_schema(path: str) -> dict[str, Any]:
    """The schema in `path`; ConfigError (exit 2) when it cannot be read, is not JSON or is not a schema."""
    from jsonschema import SchemaError, validators

    try:
        schema = json.loads(Path(path).expanduser().read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"--json-schema: 无法读取 {path}: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"--json-schema: {path} 不是有效的 JSON: {exc}") from exc
    if not isinstance(schema, dict):
        raise ConfigError(f"--json-schema: {path} 必须是一个 JSON 对象（JSON Schema）")
    try:
        validators.validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        raise ConfigError(f"--json-schema: {path} 不是有效的 JSON Schema: {exc.message}") from exc
    return schema


def problems_of(answer: str, schema: dict[str, Any]) -> tuple[Any, list[str]]:
    """The answer's JSON value and what in it breaks the schema (empty: valid)."""
    from jsonschema import validators

    text = answer.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, [f"回答不是 JSON（{exc.msg}，第 {exc.lineno} 行第 {exc.colno} 列）"]
    validator = validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    return value, [_describe(e.absolute_path, e.message) for e in errors[:MAX_PROBLEMS]]


def _describe(path: Any, message: str) -> str:
    where = "/".join(str(part) for part in path)
    return f"- {'/' + where if where else '根'}: {message}"


def schema_instruction(schema: dict[str, Any]) -> str:
    template = load_bundled("headless/schema.md") or "\n{schema}"
    return template.replace("{schema}", json.dumps(schema, ensure_ascii=False, indent=2))


def repair_request(problems: list[str], schema: dict[str, Any]) -> str:
    template = load_bundled("headless/schema-repair.md") or "{problems}\n{schema}"
    text = template.replace("{problems}", "\n".join(problems))
    return text.replace("{schema}", json.dumps(schema, ensure_ascii=False, indent=2))


def run_structured(
    backend: SessionPort,
    task: str,
    mode: RunMode,
    output_format: str,
    schema: dict[str, Any],
    out: TextIO,
    err: TextIO,
) -> int:
    finished = run_turn(backend, task + "\n" + schema_instruction(schema), mode, output_format, out, err)
    checked, value = _checked(finished, schema)
    if checked.status == "error" and finished.status in ("done", "partial"):
        problems = checked.error or ""
        err.write("paicli: 回答不符合 JSON Schema，已请模型修正一次\n")
        again = run_turn(
            backend, repair_request(problems.splitlines()[1:], schema), "react", output_format, out, err
        )
        checked, value = _checked(again, schema)
    extra = {"structured_output": value} if checked.status in ("done", "partial") else {}
    return finish_turn(backend, checked, output_format, out, err, extra=extra)


def _checked(finished: RunFinished, schema: dict[str, Any]) -> tuple[RunFinished, Any]:
    """The run with its answer as the valid JSON (compact, one line), or as an error naming the problems."""
    if finished.status not in ("done", "partial"):
        return finished, None
    value, problems = problems_of(finished.answer, schema)
    if problems:
        error = "最终回答不符合 JSON Schema：\n" + "\n".join(problems)
        return replace(finished, status="error", error=error), None
    return replace(finished, answer=json.dumps(value, ensure_ascii=False)), value
