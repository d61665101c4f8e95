"""The launcher's side of the first-run setup: when it runs, the terminal IO, saving, and what it tells the user.

`-p` and piped runs never prompt: they get `no_provider_message()` (two short lines) and exit 2.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console

from paicli.cli.printing import SafeConsole
from paicli.cli.render import say
from paicli.cli.setup import Checker, SetupIO, SetupOutcome, run_setup
from paicli.config import knobs
from paicli.config.env import HOME_DOTENV, ConfigError, EnvLookup, home_dir
from paicli.config.providers import GENERIC, ProviderSpec, provider
from paicli.config.saved import save_default_provider, save_env_values, save_model_window
from paicli.config.settings import Settings, load_settings, local_server_ports
from paicli.llm.probe import LocalServer

if TYPE_CHECKING:
    from prompt_toolkit.input import Input
    from prompt_toolkit.output import Output

_BASE_URL_ENV = provider(GENERIC).base_url_envs[0]
NO_PROVIDER_LINES = (
    f"未配置模型服务：运行 paicli 按提示设置，或设置 {provider('deepseek').key_env} 等变量",
    f"  本机模型服务可设 {_BASE_URL_ENV}；全部变量见 paicli --help",
)
SETUP_ABANDONED = "设置没有完成，没有保存任何内容；下次运行 paicli 会再次引导设置。"
SETUP_KEPT = "设置没有完成，原来的配置保持不变。"
SETUP_NEEDS_TERMINAL = "--setup 需要在终端中交互运行；也可以直接设置环境变量（见 paicli --help）"


def no_provider_message() -> str:
    """What `-p` / piped runs print (after `paicli: `) when no provider is configured."""
    return "\n".join(NO_PROVIDER_LINES)


class PromptSetupIO:
    """Setup questions at a prompt_toolkit prompt (keys masked with `*`), answers printed with rich."""

    def __init__(
        self, console: Console | None = None, input: Input | None = None, output: Output | None = None
    ) -> None:
        from prompt_toolkit import PromptSession

        self.console = console or SafeConsole()
        self._session: PromptSession[str] = PromptSession(input=input, output=output)

    def say(self, text: str, style: str | None = None) -> None:
        say(self.console, text, style)

    def ask(self, question: str, *, secret: bool = False) -> str | None:
        try:
            return self._session.prompt(question, is_password=secret)
        except EOFError:
            return None


@dataclass(frozen=True)
class FirstRunResult:
    env: EnvLookup
    settings: Settings


def discover_for(env: EnvLookup, timeout: float | None = None) -> list[LocalServer]:
    """Local OpenAI-compatible servers on the configured loopback ports (none when that setting is `off`)."""
    from paicli.llm.probe import LOOPBACK, PROBE_TIMEOUT, discover_local

    ports = local_server_ports(env)
    return discover_local(ports, (LOOPBACK,), timeout or PROBE_TIMEOUT) if ports else []


def run_first_setup(
    env: EnvLookup,
    io: SetupIO,
    *,
    discover: Callable[[], Sequence[LocalServer]] | None = None,
    checker: Checker | None = None,
    env_factory: Callable[[], EnvLookup] = EnvLookup,
) -> FirstRunResult | None:
    """Run the dialogue, save the choice to the paicli home's .env, re-read the settings. None: abandoned.

    `discover` is None when a provider is already configured (`--setup`): nothing is probed then.
    """
    servers = list(discover()) if discover is not None else []

    def base_url_for(spec: ProviderSpec) -> str:
        """Where a pasted key is checked: an override as trusted as the file the key is saved to (never a
        project ./.env or ~/.env), else the provider's own address."""
        configured = next(
            (
                found.value
                for name in spec.base_url_envs
                for found in env.candidates(name)
                if found.rank <= HOME_DOTENV
            ),
            None,
        )
        return (configured or spec.default_base_url or "").rstrip("/")

    window_set = env.get(knobs.CONTEXT_WINDOW.key) is not None
    outcome = run_setup(io, servers, checker, base_url_for, window_set=window_set)
    if outcome is None:
        return None
    home = home_dir(env)
    path = home / ".env"
    try:
        save_env_values(path, outcome.values, outcome.remove)
        if outcome.window is not None:  # per model in config.json: another model keeps its own window
            save_model_window(home / "config.json", outcome.provider, outcome.model, outcome.window)
        fresh = env_factory()
        settings = load_settings(fresh)
        if outcome.provider not in (GENERIC, settings.provider) and settings.provider != GENERIC:
            save_default_provider(
                home / "config.json", outcome.provider
            )  # another key would win the auto order
            fresh = env_factory()
            settings = load_settings(fresh)
    except OSError as exc:
        raise ConfigError(f"无法保存设置到 {home}：{exc.strerror or exc}") from None
    io.say(f"💾 已保存到 {path}（只有你自己能读取）", "dim")
    for line in _shadowed(outcome, fresh, settings):
        io.say(line, "yellow")
    io.say(f"✅ 设置完成，使用 {settings.describe()}。以后运行 paicli --setup 可以重新设置。\n", "green")
    return FirstRunResult(fresh, settings)


def _shadowed(outcome: SetupOutcome, env: EnvLookup, settings: Settings) -> list[str]:
    """Saved values that a stronger source (process env, ./.env) overrides, so the user is not surprised."""
    lines = [
        f"⚠️ {key} 在环境变量或 ./.env 中另有设置，它的优先级更高，仍会使用那里的值。"
        for key, value in outcome.values.items()
        if env.get(key) != value
    ]
    if outcome.provider != settings.provider:
        lines.append(
            f"⚠️ 实际使用的是 {settings.describe()}：环境变量或另一个 .env 文件设置了 {_BASE_URL_ENV}，"
            "它优先于刚保存的选择。"
        )
    return lines
