"""Settings parsed once into typed values (issue 41 item 2): the composition root parses `SessionValues` and
hands each component the values it needs; a setting in the environment reaches the component that way, and
none of these components is given the environment lookup any more."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from paicli.config.env import ConfigError, EnvLookup
from paicli.config.values import PromptValues, SandboxValues, SessionValues
from paicli.context.tokens import TokenCounter
from paicli.memory.guard import ExternalContextTracker
from paicli.prompt.assembler import PromptAssembler
from paicli.tools.sandbox.status import SandboxGate
from paicli.tools.skill_load import LoadSkillTool
from tests.cli.served_session import served_parts


def test_a_setting_reaches_its_component_as_a_value(tmp_path: Path) -> None:
    parts = served_parts(
        tmp_path,
        "http://127.0.0.1:9/v1",
        PAICLI_COMMAND_SANDBOX="off",
        PAICLI_COMMAND_ENV_ALLOW="GH_TOKEN",
        PAICLI_TOKENIZER="heuristic",
        PAICLI_MEMORY_DISABLE_ON_EXTERNAL_CONTEXT="false",
        PAICLI_PROMPT_RUNTIME_DATE="2026-01-02",
        PAICLI_PROMPT_RUNTIME_ZONE="UTC",
    )
    gate = parts.approval.sandbox
    assert gate is not None and (gate.mode, gate.env_allow) == ("off", ("gh_token",))
    assert parts.counter.mode == "heuristic"
    assert not parts.tracker.guard_enabled
    assert "- 当前日期: 2026-01-02\n- 当前时区: UTC" in parts.prompt.build()
    parts.ledger.close()


def test_values_are_parsed_once_with_the_knobs_errors() -> None:
    values = SessionValues.parse(EnvLookup(environ={"PAICLI_SKILL_BODY_BUDGET": "2048"}))
    assert values.skill_body_budget == 2048 and values.exact_tokens and values.external_guard
    assert values.sandbox == SandboxValues() and values.prompt == PromptValues()
    for bad in ({"PAICLI_PROMPT_RUNTIME_ZONE": "Mars/Base"}, {"PAICLI_PROMPT_RUNTIME_DATE": "明天"}):
        with pytest.raises(ConfigError):
            SessionValues.parse(EnvLookup(environ=bad))


@pytest.mark.parametrize(
    "component",
    [SandboxGate, PromptAssembler, ExternalContextTracker, LoadSkillTool, TokenCounter.configured],
)
def test_these_components_take_no_environment_lookup(component: object) -> None:
    annotations = [str(p.annotation) for p in inspect.signature(component).parameters.values()]  # type: ignore[arg-type]
    assert not any("EnvLookup" in text for text in annotations), annotations
