"""Issue 13: the first request stays small (system prompt + today's 10 built-in tools + a short task <= 3,300
tokens, counted like the loopback server counts usage) and no sentence of the prompt or the tool schemas is
said twice."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paicli.config.env import EnvLookup
from paicli.config.values import PromptValues
from paicli.prompt.assembler import PromptAssembler, PromptMode
from paicli.prompt.repository import PromptRepository
from paicli.testing.openai_server import count_tokens, prompt_text
from paicli.tools.registry import builtin_tools
from paicli.tools.web import WebTools

FIXED = {"PAICLI_PROMPT_RUNTIME_DATE": "2026-11-30", "PAICLI_PROMPT_RUNTIME_ZONE": "UTC"}
BUILTIN = [
    "read_file",
    "write_file",
    "edit_file",
    "list_dir",
    "glob_files",
    "grep_code",
    "execute_command",
    "web_fetch",
    "web_search",
    "save_memory",
]
_SENTENCE = re.compile(r"[^。；！？\n]+")


def _system_prompt(tmp_path: Path) -> str:
    (tmp_path / "proj").mkdir()
    (tmp_path / "home").mkdir()
    repository = PromptRepository(tmp_path / "proj", tmp_path / "home")
    return PromptAssembler(repository, PromptValues.parse(EnvLookup(environ=FIXED))).assemble(
        PromptMode.AGENT
    )


def _definitions() -> list[dict[str, object]]:
    tools = builtin_tools(WebTools(), lambda *args: "")
    return [tools[name].spec.definition() for name in BUILTIN]


def test_the_first_request_fits_in_3300_tokens(tmp_path: Path) -> None:
    body = {
        "tools": _definitions(),
        "messages": [
            {"role": "system", "content": _system_prompt(tmp_path)},
            {"role": "user", "content": "你好"},
        ],
    }
    assert count_tokens(prompt_text(body)) <= 3300


def _sentences(text: str) -> list[str]:
    return [s.strip(" -`*：:，,") for s in _SENTENCE.findall(text) if len(s.strip()) >= 12]


@pytest.mark.parametrize("where", ["system prompt", "tool schemas"])
def test_no_sentence_is_said_twice(tmp_path: Path, where: str) -> None:
    text = _system_prompt(tmp_path) if where == "system prompt" else "\n".join(_texts(_definitions()))
    sentences = _sentences(text)
    repeated = sorted({s for s in sentences if sentences.count(s) > 1})
    assert repeated == []


def _texts(value: object) -> list[str]:
    if isinstance(value, dict):
        return [t for key, item in value.items() for t in (_texts(item) if key != "name" else [])]
    if isinstance(value, list):
        return [t for item in value for t in _texts(item)]
    return [value] if isinstance(value, str) else []
