"""Writing what the first-run setup chose: `.env` in the paicli home (mode 0600, folder 0700) and `defaultProvider`.

Both writes replace the file atomically and keep every line / key they were not asked to change.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from paicli.config.env import ConfigError
from paicli.fsperm import PRIVATE_FILE, ensure_private_dir

SETUP_COMMENT = "# 由 paicli 设置向导写入（paicli --setup 可重新设置）"
_ASSIGNMENT = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=")
_PLAIN_VALUE = re.compile(r"^[A-Za-z0-9_\-.:/@+=,~%]*$")


def format_value(value: str) -> str:
    if "\n" in value or "\r" in value:
        raise ConfigError("配置值不能包含换行")
    if _PLAIN_VALUE.match(value):
        return value
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    raise ConfigError("配置值不能同时包含单引号和双引号")


def merged_dotenv(existing: str, values: Mapping[str, str], remove: Iterable[str] = ()) -> str:
    """`existing` without any assignment of the given or removed keys, then the new assignments."""
    dropped = set(values) | set(remove)
    kept: list[str] = []
    for line in existing.splitlines():
        match = _ASSIGNMENT.match(line)
        if match and match.group(1) in dropped:
            continue
        if line.strip() == SETUP_COMMENT:
            continue
        kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    block = [SETUP_COMMENT, *(f"{key}={format_value(value)}" for key, value in values.items())]
    return "\n".join([*kept, "", *block] if kept else block) + "\n"


def write_private(path: Path, text: str) -> None:
    """Atomically replace `path` with `text`, readable by the owner only (0600)."""
    ensure_private_dir(path.parent)  # atomic replace below; fsperm.write_private_text truncates in place
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp, PRIVATE_FILE)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def save_env_values(path: Path, values: Mapping[str, str], remove: Iterable[str] = ()) -> None:
    try:
        existing = path.read_text(encoding="utf-8") if path.is_file() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"无法读取 {path}：{exc}") from None
    write_private(path, merged_dotenv(existing, values, remove))


def _config_data(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"无法读取配置文件 {path}：{exc}") from None
    if not isinstance(loaded, dict):
        raise ConfigError(f"配置文件 {path} 不是 JSON 对象，没有改动它")
    return loaded


def save_default_provider(path: Path, name: str) -> None:
    """Set `defaultProvider` in config.json, keeping everything else the file holds."""
    data = _config_data(path)
    data["defaultProvider"] = name
    write_private(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def save_model_window(path: Path, provider: str, model: str, tokens: int) -> None:
    """Set `models["<provider>/<model>"].contextWindow` in config.json (what the server reported), keeping the
    rest of the file and of that model's entry."""
    data = _config_data(path)
    models = data.get("models")
    if not isinstance(models, dict):
        models = data["models"] = {}
    entry = models.get(f"{provider}/{model}")
    if not isinstance(entry, dict):
        entry = models[f"{provider}/{model}"] = {}
    entry["contextWindow"] = tokens
    write_private(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def save_model_entries(path: Path, provider: str, models: Iterable[str]) -> list[str]:
    """`models["<provider>/<model>"]` entries in config.json for each model not there yet (the `/model add` and
    `/model refresh` catalog), keeping the rest of the file; returns the models added."""
    data = _config_data(path)
    table = data.get("models")
    if not isinstance(table, dict):
        table = data["models"] = {}
    added = [model for model in dict.fromkeys(models) if f"{provider}/{model}" not in table]
    for model in added:
        table[f"{provider}/{model}"] = {}
    if added:
        write_private(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    return added


def save_provider(path: Path, name: str, values: Mapping[str, str], *, default: bool) -> None:
    """`providers.<name>` (apiKey, baseUrl, model, loraId: the given ones replace, the others stay) and, with
    `default`, `defaultProvider`; the file is written 0600 since it holds a key."""
    data = _config_data(path)
    providers = data.get("providers")
    if not isinstance(providers, dict):
        providers = data["providers"] = {}
    entry = providers.get(name)
    if not isinstance(entry, dict):
        entry = providers[name] = {}
    entry.update(values)
    if default:
        data["defaultProvider"] = name
    write_private(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")
