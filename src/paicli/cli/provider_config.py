"""`/config provider <name> --api-key K [--base-url U] [--model M] [--lora-id X] [--default]` (spec 10.3): the
provider's entry in config.json (written 0600), the values shown masked, never the key itself."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from paicli.cli.backend import CommandReply
from paicli.config.env import ConfigError
from paicli.config.providers import find_provider
from paicli.config.saved import save_provider
from paicli.config.settings import mask_key

USAGE = "❌ 用法: /config provider <名称> --api-key <KEY> [--base-url <URL>] [--model <模型>] [--lora-id <ID>] [--default]"
_FLAGS = {"--api-key": "apiKey", "--base-url": "baseUrl", "--model": "model", "--lora-id": "loraId"}


@dataclass(frozen=True)
class ProviderArgs:
    name: str
    values: dict[str, str]
    default: bool


def parse_provider_args(args: str) -> ProviderArgs | str:
    """`provider <name> flags…` -> what to save; else the reason (a usage line)."""
    words = args.split()
    if len(words) < 2 or words[0].lower() != "provider":
        return USAGE
    spec = find_provider(words[1])
    if spec is None:
        return f"❌ 不认识的 provider: {words[1]}\n{USAGE}"
    values: dict[str, str] = {}
    default = False
    rest = words[2:]
    while rest:
        flag, *rest = rest
        key = flag.split("=", 1)[0].lower()
        if key == "--default" and "=" not in flag:
            default = True
            continue
        if key not in _FLAGS:
            return f"❌ 不认识的选项: {key}\n{USAGE}"
        if "=" in flag:
            value = flag.split("=", 1)[1]
        elif rest:
            value, *rest = rest
        else:
            return f"❌ {key} 后面缺少值\n{USAGE}"
        values[_FLAGS[key]] = value
    if not values and not default:
        return USAGE
    return ProviderArgs(spec.name, values, default)


def saved_text(parsed: ProviderArgs) -> str:
    lines = [f"✅ 已保存 provider 配置: {parsed.name}"]
    for key, value in parsed.values.items():
        lines.append(f"   {key}: {mask_key(value) if key == 'apiKey' else value}")
    if parsed.default:
        lines.append("   已设为默认 provider（下次启动时使用）")
    lines.append(f"   立即切换: /model {parsed.name}")
    return "\n".join(lines)


def save(parsed: ProviderArgs, config_path: Path) -> CommandReply:
    try:
        save_provider(config_path, parsed.name, parsed.values, default=parsed.default)
    except ConfigError as exc:
        return CommandReply(f"❌ 没有保存: {exc}", ok=False)
    return CommandReply(saved_text(parsed))
