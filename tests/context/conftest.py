from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from paicli.config.env import EnvLookup

MakeEnv = Callable[..., EnvLookup]


@pytest.fixture
def make_env(tmp_path: Path) -> MakeEnv:
    """EnvLookup over explicit values only: .env lookup points at an empty temp dir."""
    empty = tmp_path / "no-dotenv"
    empty.mkdir(exist_ok=True)

    def build(**values: str) -> EnvLookup:
        return EnvLookup(
            environ={"HOME": str(empty), "PAICLI_HOME": str(empty / ".paicli"), **values}, cwd=empty
        )

    return build
