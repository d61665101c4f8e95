"""Every test runs with PAICLI_HOME and HOME in a temp dir, so nothing touches the real home."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from paicli.testing.dictionary_cache import seed_dictionary_cache
from paicli.testing.isolated_env import ISOLATED_PREFIXES


def pytest_configure(config: pytest.Config) -> None:
    """A suite started as a background job inherits SIGINT ignored, and every process it started would too
    (an ignored signal survives exec). With a handler of its own here, children start with the default."""
    main = threading.current_thread() is threading.main_thread()
    if main and signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# The slow tier (`-m e2e`; `-m "not e2e"` is the quick one): tests that start paicli or other processes,
# drive a terminal or a sandbox, run MCP or language servers, wait out real timeouts or take more than about
# half a second. Whole files by name, folder or path (relative to tests/); a single test elsewhere by its own
# `@pytest.mark.e2e`. tests/test_tiers.py checks that every package of paicli keeps quick tests.
E2E_FILE_PREFIXES = ("test_e2e", "test_tmux_", "test_pty_")
E2E_FILE_SUFFIXES = ("_e2e.py",)
E2E_FOLDERS = frozenset({"adversarial", "sandbox"})
E2E_FILES = frozenset(
    {
        "cli/test_live_output.py",
        "cli/test_repl_keys.py",  # prompt_toolkit resolves Esc and Tab after real timeouts: about a second each
        "cli/test_repl_pty.py",
        "cli/test_warmup.py",
        "context/test_end_to_end.py",
        "context/test_long_session.py",
        "extractor/test_evaluation.py",
        "mcp/test_hub.py",
        "memory/test_evolution.py",
        "memory/test_prefix_dict.py",
        "memory/test_processes.py",
        "memory/test_visible_memory.py",
        "retrieval/test_exit_saves.py",
        "retrieval/test_tokenize.py",
        "security/test_hostile_terminal_e2e.py",
        "session/test_fold_property.py",
        "session/test_orchestrated_fold.py",
        "session/test_real_compaction_resume.py",
        "session/test_resume_reference.py",
        "test_packaging.py",
    }
)
_TESTS = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path = item.path
        relative = path.relative_to(_TESTS).as_posix() if path.is_relative_to(_TESTS) else ""
        named = path.name.startswith(E2E_FILE_PREFIXES) or path.name.endswith(E2E_FILE_SUFFIXES)
        if named or E2E_FOLDERS & set(path.parts) or relative in E2E_FILES:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    for key in list(os.environ):
        if key.startswith(ISOLATED_PREFIXES):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PAICLI_HOME", str(home / ".paicli"))
    monkeypatch.setenv("PAICLI_LOCAL_PORTS", "off")  # no test probes loopback ports unless it asks to
    # jieba's caches as a home holds them after its first dictionary load (built once, linked): a test of that
    # first load itself is marked `fresh_dictionary`
    if request.node.get_closest_marker("fresh_dictionary") is None:
        seed_dictionary_cache(home / ".paicli")
    yield home


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temp project root that is also the working directory."""
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    return root
