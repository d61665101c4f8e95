"""The model catalog of `/model add <provider> <id>` and `/model refresh <provider>` (spec 10.2, 10.3): entries
`models["<provider>/<id>"]` of config.json in the paicli home, listed by `/model list` beside each provider's
configured model. `refresh` asks the provider's own model list; `add` takes the id as the user gives it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from paicli.cli.backend import CommandReply
from paicli.config.config_file import load_config_file
from paicli.config.env import ConfigError
from paicli.config.providers import find_provider
from paicli.config.saved import save_model_entries
from paicli.config.settings import Settings
from paicli.llm.probe import CheckResult

Lister = Callable[[str, str | None], CheckResult]
ADD_USAGE = "❌ 用法: /model add <provider> <模型 id>，例如 /model add deepseek deepseek-reasoner"
REFRESH_USAGE = "❌ 用法: /model refresh <provider>，例如 /model refresh deepseek"
_WHY = {"auth": "API Key 无权读取模型列表", "not_found": "服务不提供模型列表", "unreachable": "连不上服务"}


def config_path(settings: Settings) -> Path:
    return settings.paicli_home / "config.json"


def catalog_specs(settings: Settings) -> list[str]:
    """`provider/model` of every catalog entry whose provider this session can use."""
    try:
        models = load_config_file(config_path(settings)).models
    except ConfigError:
        return []
    usable = set(settings.available_providers)
    found: list[str] = []
    for key in models:
        head, slash, model = key.partition("/")
        spec = find_provider(head) if slash and model else None
        if spec is not None and spec.name in usable:
            found.append(f"{spec.name}/{model}")
    return found


def _provider(settings: Settings, name: str) -> Settings | CommandReply:
    spec = find_provider(name)
    if spec is None:
        return CommandReply(f"❌ 不认识的 provider: {name}", ok=False)
    if spec.name not in settings.available_providers:
        return CommandReply(
            f"❌ {spec.name} 还没有配置（没有 API Key）；先用 /config provider {spec.name} --api-key <KEY> 保存",
            ok=False,
        )
    try:
        return settings.with_model(spec.name)
    except ConfigError as exc:
        return CommandReply(f"❌ {exc}", ok=False)


def add(settings: Settings, args: list[str]) -> CommandReply:
    if len(args) != 2:
        return CommandReply(ADD_USAGE, ok=False)
    chosen = _provider(settings, args[0])
    if isinstance(chosen, CommandReply):
        return chosen
    model = args[1]
    try:
        added = save_model_entries(config_path(settings), chosen.provider, [model])
    except ConfigError as exc:
        return CommandReply(f"❌ 没有保存: {exc}", ok=False)
    head = "✅ 已加入模型目录" if added else "ℹ️ 模型目录里已经有"
    return CommandReply(f"{head}: {chosen.provider}/{model}\n   切换: /model {chosen.provider}/{model}")


def refresh(settings: Settings, args: list[str], lister: Lister) -> CommandReply:
    if len(args) != 1:
        return CommandReply(REFRESH_USAGE, ok=False)
    chosen = _provider(settings, args[0])
    if isinstance(chosen, CommandReply):
        return chosen
    result = lister(chosen.base_url, chosen.api_key)
    if not result.ok:
        why = _WHY.get(result.kind, result.detail or "读取失败")
        return CommandReply(f"❌ 无法读取 {chosen.provider} 的模型列表（{why}），模型目录没有改动", ok=False)
    if not result.models:
        return CommandReply(f"ℹ️ {chosen.provider} 没有列出任何模型，模型目录没有改动")
    try:
        added = save_model_entries(config_path(settings), chosen.provider, result.models)
    except ConfigError as exc:
        return CommandReply(f"❌ 没有保存: {exc}", ok=False)
    shown = ", ".join(result.models[:12]) + (
        f" 等 {len(result.models)} 个" if len(result.models) > 12 else ""
    )
    return CommandReply(
        f"🔄 {chosen.provider} 列出 {len(result.models)} 个模型（新加入目录 {len(added)} 个）: {shown}\n"
        "   /model list 查看，/model <provider/模型 id> 切换"
    )
