"""`<paicli home>/config.json` (spec 10.2): per-provider keys, endpoints and models, the default provider, and
per-model context windows; read with one-line errors (the CLI exits 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from paicli.config.env import ConfigError
from paicli.config.providers import MAX_CONTEXT_WINDOW, MIN_CONTEXT_WINDOW, find_provider


class ProviderConfig(BaseModel):
    # built when a config.json names a provider; a run without one constructs the empty value (issue 49)
    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)

    api_key: str | None = Field(default=None, alias="apiKey")
    base_url: str | None = Field(default=None, alias="baseUrl")
    model: str | None = None
    lora_id: str | None = Field(default=None, alias="loraId")


class ModelConfig(BaseModel):
    # built inside ConfigFile's schema; its own validator only if something validates it alone (issue 49)
    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)

    context_window: int | None = Field(default=None, alias="contextWindow")

    @field_validator("context_window")
    @classmethod
    def _window_in_range(cls, value: int | None) -> int | None:
        if value is not None and not MIN_CONTEXT_WINDOW <= value <= MAX_CONTEXT_WINDOW:
            raise ValueError(f"contextWindow must lie in {MIN_CONTEXT_WINDOW}..{MAX_CONTEXT_WINDOW}")
        return value


class ConfigFile(BaseModel):
    """`<paicli home>/config.json`; unknown keys are kept so a file the Java PaiCLI wrote still loads."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)

    default_provider: str | None = Field(default=None, alias="defaultProvider")
    providers: dict[str, ProviderConfig] = Field(default_factory=dict)
    models: dict[str, ModelConfig] = Field(default_factory=dict)

    def provider_config(self, name: str) -> ProviderConfig:
        for key, value in self.providers.items():
            found = find_provider(key)
            if found is not None and found.name == name:
                return value
        return ProviderConfig.model_construct()  # the defaults: nothing to validate

    def window_override(self, provider_name: str, model: str) -> int | None:
        for key in (f"{provider_name}/{model}", model):
            entry = self.models.get(key)
            if entry is not None and entry.context_window is not None:
                return entry.context_window
        return None


def load_config_file(path: Path) -> ConfigFile:
    if not path.is_file():
        return ConfigFile.model_construct()  # the defaults: nothing to validate
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        return ConfigFile.model_validate(data)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"无法读取配置文件 {path}：{_one_line(str(exc))}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ())) or "(根)"
        raise ConfigError(f"配置文件 {path} 无效：{where}：{_one_line(str(first.get('msg', '')))}") from None


def _one_line(text: str) -> str:
    return " ".join(text.split())[:200]
