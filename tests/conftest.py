"""Every test runs with PAICLI_HOME and HOME in a temp dir, so nothing touches the real home."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from paicli.testing.isolated_env import ISOLATED_PREFIXES


def pytest_configure(config: pytest.Config) -> None:
    """A suite started as a background job inherits SIGINT ignored, and every process it started would too
    (an ignored signal survives exec). With a handler of its own here, children start with the default."""
    main = threading.current_thread() is threading.main_thread()
    if main and signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# The slow tier (`-m e2e`; `-m "not e2e"` leaves it out): whole files by name or folder, the rest by a
# `pytestmark = pytest.mark.e2e` of their own.
E2E_FILE_PREFIXES = ("test_e2e", "test_tmux_")
E2E_FOLDERS = frozenset({"adversarial"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path = item.path
        if path.name.startswith(E2E_FILE_PREFIXES) or E2E_FOLDERS & set(path.parts):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    for key in list(os.environ):
        if key.startswith(ISOLATED_PREFIXES):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PAICLI_HOME", str(home / ".paicli"))
    monkeypatch.setenv("PAICLI_LOCAL_PORTS", "off")  # no test probes loopback ports unless it asks to
    yield home


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temp project root that is also the working directory."""
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    return root
