"""`/model` (spec 10.3): parsing and the texts, pure. The backend supplies the configured models."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

from paicli.config.providers import find_provider, provider_for_model

ModelAction = Literal["show", "list", "info", "switch", "add", "refresh", "invalid"]


@dataclass(frozen=True)
class ModelChoice:
    provider: str
    model: str
    window: int
    current: bool = False

    @property
    def spec(self) -> str:
        return f"{self.provider}/{self.model}"


@dataclass(frozen=True)
class ModelCommand:
    action: ModelAction
    target: str = ""


def parse_model_args(args: str) -> ModelCommand:
    words = args.split()
    if not words:
        return ModelCommand("show")
    head = words[0].lower()
    if head == "list":
        return ModelCommand("list") if len(words) == 1 else ModelCommand("invalid", args.strip())
    if head == "info":
        return (
            ModelCommand("info", " ".join(words[1:2]))
            if len(words) <= 2
            else ModelCommand("invalid", args.strip())
        )
    if head == "add":
        return ModelCommand("add", " ".join(words[1:]))
    if head == "refresh":
        return ModelCommand("refresh", " ".join(words[1:]))
    if len(words) > 1:
        return ModelCommand("invalid", args.strip())
    return ModelCommand("switch", words[0])


def is_known_target(target: str, choices: list[ModelChoice]) -> bool:
    """A provider or alias, `provider/model` of a known provider, a model id with a known prefix, or one of the
    configured models: anything else is a typo, not a new model name."""
    if find_provider(target) is not None or provider_for_model(target) is not None:
        return True
    head, slash, _ = target.partition("/")
    if slash and find_provider(head) is not None:
        return True
    return any(target in (choice.model, choice.spec) for choice in choices)


def list_text(choices: list[ModelChoice], numbered: bool = False) -> str:
    lines = ["🤖 已配置的模型："]
    for number, choice in enumerate(choices, start=1):
        mark = "●" if choice.current else " "
        index = f"{number}. " if numbered else ""
        lines.append(f"  {mark} {index}{choice.spec}  · 上下文窗口 {choice.window:,}")
    lines.append("   切换: /model <provider | 模型 id | provider/模型 id>")
    return "\n".join(lines)


def rejected_text(target: str, choices: list[ModelChoice], checked: str = "") -> str:
    """`checked`: what the provider's model list said about the name (a did-you-mean, or why it could not
    be read)."""
    return (
        f"❌ 不认识的模型: {target}（没有切换）\n"
        + (f"{checked}\n" if checked else "")
        + list_text(choices).replace("🤖 已配置的模型：", "可用的模型：")
        + "\n   子命令: /model list | info | refresh <provider> | add <provider> <模型 id>"
    )


ListVerdict = Literal["listed", "unlisted", "unchecked"]


@dataclass(frozen=True)
class ListCheck:
    """What the provider's own model list says about a name: `text` is empty when it is listed."""

    verdict: ListVerdict
    text: str = ""


def check_listed(model: str, provider: str, listed: tuple[str, ...] | None, why: str = "") -> ListCheck:
    """`listed` is None when the list could not be read (`why` says so), () when the endpoint lists none."""
    if listed is None or not listed:
        reason = why or "服务没有列出任何模型"
        return ListCheck(
            "unchecked", f"ℹ️ 无法核对 {provider} 的模型列表（{reason}），没有确认 {model} 是否可用"
        )
    if model in listed:
        return ListCheck("listed")
    close = difflib.get_close_matches(model, listed, n=1, cutoff=0.5)
    shown = ", ".join(listed[:8]) + (f" 等 {len(listed)} 个" if len(listed) > 8 else "")
    hint = f"；你是不是想用 {close[0]}？" if close else ""
    return ListCheck("unlisted", f"⚠️ {provider} 的模型列表里没有 {model}（它列出的: {shown}）{hint}")


def confirm_question(model: str) -> str:
    return f"仍要切换到不在列表里的 {model} 吗？输入 y 切换，回车取消："


def refused_unlisted(model: str) -> str:
    return f"❌ 没有切换到 {model}：管道输入里无法确认不在列表里的模型；确实要用它，请在交互式 REPL 里确认，或启动时用 --model 指定"
