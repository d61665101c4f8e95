"""`config.json` (config/config_file.py): a run without the file gets the empty configuration without building
its validators (issue 49), and it is the same value a validated empty file gives; a file that is read is still
validated."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.config.config_file import ConfigFile, ProviderConfig, load_config_file
from paicli.config.env import ConfigError


def test_a_missing_file_is_the_validated_empty_configuration(tmp_path: Path) -> None:
    missing = load_config_file(tmp_path / "config.json")
    (tmp_path / "empty.json").write_text("{}", encoding="utf-8")
    read = load_config_file(tmp_path / "empty.json")
    assert missing == read == ConfigFile()
    assert missing.model_dump(by_alias=True) == read.model_dump(by_alias=True)
    assert missing.provider_config("deepseek") == ProviderConfig()
    assert missing.window_override("deepseek", "deepseek-chat") is None


def test_a_file_that_is_read_is_validated(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(
        '{"providers": {"deepseek": {"apiKey": "k"}}, "models": {"m": {"contextWindow": 12}}}',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match="contextWindow"):
        load_config_file(path)
    path.write_text('{"providers": {"deepseek": {"apiKey": "k"}}, "models": {"m": {"contextWindow": 65536}}}')
    loaded = load_config_file(path)
    assert loaded.provider_config("deepseek").api_key == "k"
    assert loaded.window_override("deepseek", "m") == 65536
