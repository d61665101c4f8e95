"""One table of session modes: the setting, /mode, its completions, Shift+Tab and what an input runs as all
derive from `MODES`, so a mode cannot be listed in one place and forgotten in another (team was, twice)."""

from __future__ import annotations

import pytest

from paicli.cli.command_table import BUILTIN
from paicli.config import knobs
from paicli.config.env import ConfigError, EnvLookup
from paicli.config.modes import (
    MODE_NAMES,
    MODES,
    ORCHESTRATED,
    ORCHESTRATED_RUNS,
    mode_named,
    next_mode,
    orchestrated,
)
from paicli.tools.approval import ApprovalState, start_mode


def test_every_mode_is_a_setting_a_command_word_and_a_completion() -> None:
    for mode in MODES:
        assert knobs.APPROVAL_MODE.read(EnvLookup(environ={"PAICLI_APPROVAL_MODE": mode.name})) == mode.name
        assert start_mode(mode.name) == mode.name
        spec = BUILTIN.find("mode")
        assert spec is not None and mode.name in spec.usage
        assert (mode.name, mode.hint) in spec.completions
    with pytest.raises(ConfigError):
        knobs.APPROVAL_MODE.read(EnvLookup(environ={"PAICLI_APPROVAL_MODE": "yolo"}))
    assert start_mode("yolo") == "auto"


def test_mode_switches_through_the_table() -> None:
    state = ApprovalState()
    for mode in MODES:
        assert state.set_mode(mode.name.upper()) == f"已切换到 {mode.text}"
        assert state.mode == mode.name
    assert "未知模式" in state.set_mode("yolo") and state.mode == MODES[-1].name
    assert all(name in state.set_mode("") for name in MODE_NAMES)


def test_what_a_plain_input_runs_as() -> None:
    runs = {mode.name: mode.runs for mode in MODES}
    assert runs == {"auto": "react", "plan": "plan", "team": "team", "ask": "react"}
    assert [mode.name for mode in MODES if mode.asks_every_change] == ["ask"]
    assert mode_named(" Team ") is not None and mode_named("react") is None


def test_shift_tab_visits_every_mode() -> None:
    seen, current = [], "auto"
    for _ in MODES:
        current = next_mode(current)
        seen.append(current)
    assert seen == ["plan", "team", "ask", "auto"]
    assert next_mode("hitl") == "auto"


def test_every_orchestrated_run_mode_has_one_row_that_names_it_to_the_user() -> None:
    assert tuple(run.mode for run in ORCHESTRATED_RUNS) == ORCHESTRATED
    assert orchestrated("team").what == "团队任务" and orchestrated("team").unit == "步骤"
    assert orchestrated("plan").flag == "--plan" and orchestrated("unknown") == orchestrated("plan")
