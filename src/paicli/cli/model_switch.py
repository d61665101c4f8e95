"""`/model` on a running session: the models it can switch to, the command's replies, and the switch itself
(the session is rebuilt for the chosen settings by the SessionFactory; the conversation stays)."""

from __future__ import annotations

from collections.abc import Callable

from paicli.cli import model_catalog, models
from paicli.cli.backend import CommandReply
from paicli.cli.compose import Components
from paicli.cli.models import ModelChoice
from paicli.config import knobs
from paicli.config.env import ConfigError
from paicli.config.providers import find_provider
from paicli.config.settings import Settings
from paicli.llm.probe import CheckResult, list_models
from paicli.llm.window_forms import ServerWindow


def _ask_window(settings: Settings) -> ServerWindow | None:
    from paicli.llm.endpoints import is_local_endpoint
    from paicli.llm.probe import server_window

    native = is_local_endpoint(settings.base_url)
    return server_window(settings.base_url, settings.api_key, settings.model, native=native, timeout=5.0)


Lister = Callable[[str, str | None], CheckResult]
WindowProbe = Callable[[Settings], ServerWindow | None]
WINDOW_SOURCES = {
    "configured": "已配置",
    "model": "按模型推导",
    "server": "服务端报告",
    "default": "默认值，服务端没有报告",
}
WHY_UNCHECKED = {
    "auth": "API Key 无权读取模型列表",
    "not_found": "服务不提供模型列表",
    "unreachable": "连不上服务",
}


class ModelSwitch:
    def __init__(
        self,
        parts: Callable[[], Components],
        switch: Callable[[Settings], None],
        cache: Callable[[], str],
        lister: Lister = lambda url, key: list_models(url, key, timeout=5.0),
        window_probe: WindowProbe = _ask_window,
    ) -> None:
        self.lister = lister
        self.window_probe = window_probe
        self.cache = cache  # the prompt cache as observed this session (SessionReport.cache)
        self._parts = parts
        self.switch = switch  # rebuilds the session for the chosen settings

    @property
    def parts(self) -> Components:
        """The running session's (a switch replaces them)."""
        return self._parts()

    def choices(self) -> list[ModelChoice]:
        """The current model first, then each configured provider's model."""
        current = self.parts.settings
        found = [ModelChoice(current.provider, current.model, self.parts.profile.window, current=True)]
        for name in current.available_providers:
            try:
                other = current.with_model(name)
            except ConfigError:
                continue
            choice = ModelChoice(other.provider, other.model, other.context_window)
            if all(item.spec != choice.spec for item in found):
                found.append(choice)
        for spec in model_catalog.catalog_specs(current):  # /model add and /model refresh entries
            if all(item.spec != spec for item in found):
                try:
                    other = current.with_model(spec)
                except ConfigError:
                    continue
                found.append(ModelChoice(other.provider, other.model, other.context_window))
        return found

    def command(self, args: str, confirmed: bool = False) -> CommandReply:
        command = models.parse_model_args(args)
        choices = self.choices()
        settings = self.parts.settings
        if command.action in ("show", "list"):
            head = f"🤖 正在使用的模型: {settings.describe()}\n" if command.action == "show" else ""
            return CommandReply(head + models.list_text(choices))
        if command.action == "info":
            return CommandReply(self._info(settings))
        if command.action == "add":
            return model_catalog.add(settings, command.target.split())
        if command.action == "refresh":
            return model_catalog.refresh(settings, command.target.split(), self.lister)
        if command.action == "invalid":
            return CommandReply(models.rejected_text(command.target, choices), ok=False)
        try:
            chosen = settings.with_model(command.target)
        except ConfigError as exc:
            return CommandReply(f"❌ 无法切换模型: {exc}", ok=False)
        check = self._check(chosen, command.target)
        if check.verdict != "listed" and not models.is_known_target(command.target, choices):
            # a name of no known shape is taken only from the provider's own list: else a typo
            return CommandReply(models.rejected_text(command.target, choices, check.text), ok=False)
        if check.verdict == "unlisted" and not confirmed:
            return CommandReply(check.text, ok=False, confirm=models.confirm_question(chosen.model))
        self.switch(chosen)
        done = f"✅ 已切换到 {chosen.describe()}，上下文窗口 {self.parts.profile.window:,} tokens"
        return CommandReply(done + (f"\n{check.text}" if check.verdict == "unchecked" else ""))

    def _info(self, settings: Settings) -> str:
        """The model, its window and where that came from, and what the server itself says now."""
        source = WINDOW_SOURCES.get(settings.window_source, settings.window_source)
        line = (
            f"🤖 {settings.describe()} · 上下文窗口 {self.parts.profile.window:,} tokens（{source}）"
            f" · prompt cache: {self.cache()} · {settings.base_url}"
        )
        try:
            found = self.window_probe(settings)
        except Exception:  # an answer about the server must never fail the command
            found = None
        if found is None:
            return f"{line}\n   服务端没有报告上下文窗口"
        said = f"   服务端报告的上下文窗口：{found.tokens:,} tokens（{found.source}）"
        if found.tokens < self.parts.profile.window:
            said += f"；比当前设置小，请把 {knobs.CONTEXT_WINDOW.key} 设为 {found.tokens}"
        return f"{line}\n{said}"

    def _check(self, chosen: Settings, target: str) -> models.ListCheck:
        """A named model is looked up in its provider's list; a bare provider name keeps its configured one."""
        if find_provider(target) is not None:
            return models.ListCheck("listed")
        result = self.lister(chosen.base_url, chosen.api_key)
        why = WHY_UNCHECKED.get(result.kind, result.detail or "读取失败")
        return models.check_listed(chosen.model, chosen.provider, result.models if result.ok else None, why)
