"""Every test runs with PAICLI_HOME and HOME in a temp dir, so nothing touches the real home."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.isolated_env import ISOLATED_PREFIXES


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
