"""Issue 41 item 2, the seams: settings are parsed once in config/ (`ParsedConfig.read`) and a component gets the
values it needs. A component built without values has the knobs' defaults whatever the process environment
says; a setting changed in the environment reaches it only through the one parse; no module outside config/
takes the environment lookup, except the ones named below with their reason."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from paicli.cli.session_background import SessionBackground
from paicli.config.compaction_profiles import PAICLI, REFERENCE
from paicli.config.compaction_values import ClearingValues, CompactionValues, OffloadValues
from paicli.config.env import EnvLookup
from paicli.config.parsed import ParsedConfig
from paicli.config.tool_values import ToolValues, WebSearchValues
from paicli.context.manager import AutoCompactionManager
from paicli.context.offload import ToolResultOffloader
from paicli.context.profile import ContextProfile
from paicli.memory.extractor import AutoFactExtractor
from paicli.memory.manager import MemoryManager
from paicli.memory.retriever import MemoryRetriever
from paicli.memory.store import LongTermMemory
from paicli.session.opener import LedgerOpener
from paicli.tools.runner import ToolRunner
from paicli.tools.web import WebTools
from paicli.tools.web_search import SearchConfigError, choose_provider
from tests.sources import parsed, product_sources

SRC = Path(__file__).resolve().parents[2] / "src" / "paicli"

# Modules outside config/ that still name the environment lookup (`EnvLookup`) or the process environment
# (`process_environ`), and why. Anything else that does is a component reading its own settings: parse them in
# config/ and pass the values instead.
ALLOWED = {
    # the entry point: creates the one lookup and hands it to config/ (validation, settings, ParsedConfig.read)
    "cli/launch.py": "EnvLookup",
    # entry points beside launch that open whole sessions from a lookup (the SDK, the Runtime API, background
    # tasks): each hands it to config/ and to nothing else
    "sdk.py": "EnvLookup",
    "cli/headless.py": "EnvLookup",
    "cli/serve.py": "EnvLookup",
    "cli/runtime_runs.py": "EnvLookup",
    "cli/task_worker.py": "EnvLookup",
    # carries the lookup a session was parsed from, only so background tasks open theirs the same way
    "cli/compose.py": "EnvLookup",
    # the first-run dialogue writes the home's .env and reads the settings back through config/
    "cli/first_run.py": "EnvLookup",
    # rich's console is given the terminal's own variables (COLUMNS/LINES left out)
    "cli/printing.py": "process_environ",
    # a command's environment is built from the process's (allow-listed and scrubbed)
    "tools/shell.py": "process_environ",
    "tools/hooks.py": "process_environ",  # a hook's environment, as an approved command's
    "cli/shell_escape.py": "process_environ",  # `!command` runs with the user's own environment, keys removed
    "cli/instruction_commands.py": "process_environ",  # the editor /memory edit opens, likewise
    "tools/sandbox/executor.py": "process_environ",
    "tools/sandbox/status.py": "process_environ",
    "snapshots/git.py": "process_environ",
    # a language server gets the sandbox's allow-list of the process's variables (no key)
    "lsp/servers.py": "process_environ",
    # the read-only rule sees what the command's shell would: its HOME and CDPATH
    "tools/readonly.py": "process_environ",
    # tiktoken's own cache variables decide whether o200k can load offline
    "context/tokens.py": "process_environ",
    # the browser's environment is built from it, cut to a command's allow-list (no key of paicli's)
    "browser/session.py": "process_environ",
    # TZ is the C library's convention for the local zone
    "prompt/assembler.py": "process_environ",
}


def _named(path: Path) -> set[str]:
    tree = parsed(path)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "paicli.config.env":
            names.update(alias.name for alias in node.names if alias.name in ("EnvLookup", "process_environ"))
    return names


def test_no_component_outside_config_takes_the_environment_lookup() -> None:
    found = {}
    for path in product_sources(SRC):
        relative = str(path.relative_to(SRC))
        if relative.startswith("config/"):
            continue
        names = _named(path) - {ALLOWED.get(relative, "")}
        if names:
            found[relative] = sorted(names)
    assert found == {}


@pytest.mark.parametrize(
    "component",
    [
        AutoCompactionManager,
        ToolResultOffloader,
        ToolRunner,
        WebTools,
        LedgerOpener,
        SessionBackground,
        LongTermMemory,
        MemoryManager,
        MemoryRetriever,
        AutoFactExtractor,
    ],
)
def test_constructors_take_values_not_the_lookup(component: object) -> None:
    parameters = inspect.signature(component).parameters.values()  # type: ignore[arg-type]
    names = {p.name: str(p.annotation) for p in parameters}
    assert not any("EnvLookup" in text for text in names.values()), names


def test_a_component_built_without_values_ignores_the_process_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in {
        "PAICLI_COMPACTION_PROFILE": "reference",
        "PAICLI_AUTO_COMPACT": "off",
        "PAICLI_TOOL_OFFLOAD_ENABLED": "false",
        "PAICLI_COMMAND_TIMEOUT_SECONDS": "5",
        "SEARXNG_URL": "http://127.0.0.1:9",
    }.items():
        monkeypatch.setenv(key, value)
    manager = AutoCompactionManager(profile=ContextProfile.from_window(32_000))
    assert manager.policy == PAICLI and manager.automatic
    assert ToolResultOffloader(tmp_path).enabled
    assert ToolRunner(tmp_path, values=ToolValues(tmp_path / "home")).command_timeout == 60.0
    with pytest.raises(SearchConfigError):
        choose_provider(WebSearchValues())


def test_a_setting_in_the_environment_reaches_each_component_through_the_one_parse(tmp_path: Path) -> None:
    env = EnvLookup(
        environ={
            "HOME": str(tmp_path),
            "PAICLI_HOME": str(tmp_path / "home"),
            "PAICLI_COMPACTION_PROFILE": "reference",
            "PAICLI_AUTO_COMPACT": "off",
            "PAICLI_TOOL_RESULT_CLEARING_KEEP": "7",
            "PAICLI_TOOL_OFFLOAD_ENABLED": "false",
            "PAICLI_COMMAND_TIMEOUT_SECONDS": "5",
            "PAICLI_AUDIT_DIR": str(tmp_path / "audit"),
            "SEARXNG_URL": "http://127.0.0.1:9",
            "PAICLI_SESSION_RETENTION_DAYS": "3",
            "PAICLI_PLAN_MAX_PARALLEL": "2",
        },
        cwd=tmp_path,
    )
    config = ParsedConfig.read(env)
    values = config.values
    manager = AutoCompactionManager(None, ContextProfile.from_window(32_000), values.compaction)
    assert manager.policy == REFERENCE and not manager.automatic
    assert manager.clearer.config.keep_recent == 7
    assert not ToolResultOffloader(tmp_path, values.offload).enabled
    runner = ToolRunner(tmp_path, values=values.tools, keys=config.keys)
    assert runner.command_timeout == 5.0 and runner.audit.directory == tmp_path / "audit"
    assert choose_provider(values.tools.web) == "searxng"
    assert values.files.retention_days == 3 and values.agent.plan_max_parallel == 2
    assert config.sources.get("PAICLI_PLAN_MAX_PARALLEL") == "2"


def test_values_default_to_the_knobs_own_defaults() -> None:
    parsed = ParsedConfig.read(EnvLookup(environ={}, cwd=Path("/nonexistent-paicli-cwd"))).values
    assert parsed.compaction == CompactionValues() and parsed.offload == OffloadValues()
    assert parsed.compaction.clearing == ClearingValues()
    assert parsed.tools.web == WebSearchValues()
