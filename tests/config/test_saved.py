"""What the setup writes: merged .env text that parse_dotenv reads back exactly, private modes, config.json."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from paicli.config.env import ConfigError, parse_dotenv
from paicli.config.saved import merged_dotenv, save_default_provider, save_env_values


@pytest.mark.parametrize("value", ["sk-abc_123", "a b", "x#y", "has 'single'", 'has "double"', "", "k=v=w"])
def test_values_read_back_exactly(value: str) -> None:
    assert parse_dotenv(merged_dotenv("", {"KEY": value})) == {"KEY": value}


def test_unquotable_or_multiline_values_are_refused() -> None:
    for value in ("a\nb", "both ' and \""):
        with pytest.raises(ConfigError):
            merged_dotenv("", {"KEY": value})


def test_merge_replaces_assignments_and_keeps_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "home" / ".env"
    path.parent.mkdir()
    path.write_text("# comment\nexport GLM_API_KEY=old\nOTHER=1\n\n", encoding="utf-8")
    save_env_values(path, {"GLM_API_KEY": "new"}, remove=("OTHER", "NOT_THERE"))
    save_env_values(path, {"GLM_MODEL": "glm-x"})
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# comment\n") and text.count("设置向导写入") == 1
    assert parse_dotenv(text) == {"GLM_API_KEY": "new", "GLM_MODEL": "glm-x"}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == [".env"]  # no temp file left behind


def test_default_provider_keeps_the_rest_of_config_json(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"providers": {"kimi": {"model": "k"}}, "other": [1]}), encoding="utf-8")
    save_default_provider(path, "glm")
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "providers": {"kimi": {"model": "k"}},
        "other": [1],
        "defaultProvider": "glm",
    }
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ConfigError, match="不是 JSON 对象"):
        save_default_provider(path, "glm")
    assert path.read_text(encoding="utf-8") == "[1, 2]"
