"""First-run setup: choose a model service, paste the key (masked), optionally a model, check it, then save.

The flow talks to the user only through `SetupIO` and to the network only through `Checker`, so tests drive
it with the REPL's own prompt input and a loopback fake server. Saving is the caller's job (`SetupOutcome`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

from rich.cells import cell_len

from paicli.config import knobs
from paicli.config.providers import AUTO_ORDER, GENERIC, MIN_CONTEXT_WINDOW, ProviderSpec, provider
from paicli.llm.probe import CheckResult, LocalServer
from paicli.llm.window_forms import ServerWindow

_ENDPOINT = provider(GENERIC)
BASE_URL_ENV, KEY_ENV, MODEL_ENV = _ENDPOINT.base_url_envs[0], _ENDPOINT.key_env, _ENDPOINT.model_envs[0]
GENERIC_KEYS = (BASE_URL_ENV, KEY_ENV, MODEL_ENV)
MODELS_SHOWN = 20

WELCOME = "👋 欢迎使用 paicli！还没有可用的模型服务，先花一分钟完成设置（随时按 Ctrl+C 退出）。"


class SetupIO(Protocol):
    def say(self, text: str, style: str | None = None) -> None: ...

    def ask(self, question: str, *, secret: bool = False) -> str | None:
        """One answer line; `secret` masks what is typed (one `*` per character). None at end of input."""
        ...


class Checker(Protocol):
    def list_models(self, base_url: str, api_key: str | None) -> CheckResult: ...

    def one_token(self, base_url: str, api_key: str | None, model: str) -> CheckResult: ...

    def context_window(
        self, base_url: str, api_key: str | None, model: str, listing: Any
    ) -> ServerWindow | None:
        """The context size the server gives `model` (`listing`: its /models answer, when there is one)."""
        ...


class HttpChecker:
    """The real checks (llm.probe): GET /models, or a one-token completion when the endpoint lists none."""

    def list_models(self, base_url: str, api_key: str | None) -> CheckResult:
        from paicli.llm.probe import list_models

        return list_models(base_url, api_key)

    def one_token(self, base_url: str, api_key: str | None, model: str) -> CheckResult:
        from paicli.llm.probe import one_token

        return one_token(base_url, api_key, model)

    def context_window(
        self, base_url: str, api_key: str | None, model: str, listing: Any
    ) -> ServerWindow | None:
        from paicli.llm.probe import server_window

        local = (
            urlsplit(base_url).hostname in _LOOPBACK_HOSTS
        )  # native routes are asked of local servers only
        return server_window(base_url, api_key, model, listing=listing, native=local)


@dataclass(frozen=True)
class SetupOutcome:
    provider: str
    model: str
    values: dict[str, str] = field(default_factory=dict)  # KEY=value lines to save
    remove: tuple[str, ...] = ()  # lines to drop from the saved file (a previous choice)
    window: int | None = None  # the context size the server reported for the model (saved to config.json)

    def describe(self) -> str:
        return f"{self.model} ({self.provider})"


@dataclass(frozen=True)
class _Choice:
    label: str
    spec: ProviderSpec | None = None  # None with local=None: any OpenAI-compatible endpoint
    local: LocalServer | None = None


class _Back(Exception):
    """The user left a step empty: back to the service list."""


class _EndOfInput(Exception):
    pass


def _ask(io: SetupIO, question: str, secret: bool = False) -> str:
    answer = io.ask(question, secret=secret)
    if answer is None:
        raise _EndOfInput
    return answer.strip()


def run_setup(
    io: SetupIO,
    local: Sequence[LocalServer] = (),
    checker: Checker | None = None,
    base_url_for: Callable[[ProviderSpec], str] | None = None,
    *,
    window_set: bool = False,
) -> SetupOutcome | None:
    """The whole dialogue; None when input ended before a choice was made.

    `base_url_for` gives a provider's endpoint (its *_BASE_URL override, else the table's default);
    `window_set`: the context window is already configured, so the local-model hint about it is left out.
    """
    checker = checker or HttpChecker()
    endpoint = base_url_for or (lambda spec: spec.default_base_url or "")
    io.say(WELCOME, "bold")
    if local:
        found = "、".join(f"{server.name}（{len(server.models)} 个模型）" for server in local)
        io.say(f"🔎 在本机发现了正在运行的模型服务：{found}")
    choices = _choices(local)
    try:
        while True:
            choice = _pick_service(io, choices)
            try:
                if choice.local is not None:
                    return _local_flow(io, choice.local, checker, window_set)
                if choice.spec is not None:
                    return _provider_flow(io, choice.spec, endpoint(choice.spec), checker)
                return _endpoint_flow(io, checker, window_set)
            except _Back:
                io.say("↩️ 回到服务列表。", "dim")
    except _EndOfInput:
        return None


def _choices(local: Sequence[LocalServer]) -> list[_Choice]:
    found = [_Choice(f"本机 {s.name}（{s.base_url}，无需 API Key）", local=s) for s in local]
    named = [_Choice(provider(name).display_name, spec=provider(name)) for name in AUTO_ORDER]
    return [*found, *named, _Choice("其他 OpenAI 兼容接口（自定义地址，例如公司网关或本机服务）")]


def _pad(text: str, cells: int) -> str:
    return text + " " * max(1, cells - cell_len(text))


def _pick_service(io: SetupIO, choices: list[_Choice]) -> _Choice:
    io.say("请选择模型服务：")
    for number, choice in enumerate(choices, start=1):
        key = f"需要 {choice.spec.key_env}" if choice.spec is not None else ""
        io.say(f"  {number:>2}. {_pad(choice.label, 22)}{key}".rstrip())
    while True:
        answer = _ask(io, f"输入编号（直接回车选 1）[1-{len(choices)}]：")
        if not answer:
            return choices[0]
        if answer.isdigit() and 1 <= int(answer) <= len(choices):
            return choices[int(answer) - 1]
        io.say(f"❌ 没有这个选项：{answer}，请输入 1 到 {len(choices)} 之间的编号。", "red")


# ---------------------------------------------------------------- the three kinds of choice


LOCAL_WINDOW_HINT = (
    f"💡 本机模型的上下文窗口往往比云端小：请按模型实际能力设置 {knobs.CONTEXT_WINDOW.key}（例如 32768），"
    "Ollama 还需要相应调大 num_ctx，否则过长的对话会被服务端截断或直接报错。"
)


def _local_flow(io: SetupIO, server: LocalServer, checker: Checker, window_set: bool) -> SetupOutcome:
    model = _ask_model(io, None, server.models)
    window = None if window_set else _server_window(io, checker, server.base_url, None, model, server.listing)
    values = {BASE_URL_ENV: server.base_url, MODEL_ENV: model}
    return SetupOutcome(GENERIC, model, values, remove=(KEY_ENV,), window=window)


def _server_window(
    io: SetupIO, checker: Checker, base_url: str, key: str | None, model: str, listing: Any
) -> int | None:
    """What the server says its context is, told to the user; a size paicli can work with is saved."""
    try:
        found = checker.context_window(base_url, key, model, listing)
    except Exception:  # the setup goes on without it, as with a server that does not say
        found = None
    if found is None:
        io.say(LOCAL_WINDOW_HINT, "dim")
        return None
    if found.tokens < MIN_CONTEXT_WINDOW:
        io.say(
            f"⚠️ 服务端报告的上下文窗口只有 {found.tokens:,} tokens（{found.source}），低于 paicli 需要的 "
            f"{MIN_CONTEXT_WINDOW:,}：请在服务端调大上下文（例如 llama.cpp 的 -c、Ollama 的 num_ctx）。",
            "yellow",
        )
        return None
    io.say(
        f"📏 服务端报告的上下文窗口：{found.tokens:,} tokens（{found.source}），已记下，压缩阈值按它计算。"
    )
    return found.tokens


def _provider_flow(io: SetupIO, spec: ProviderSpec, base_url: str, checker: Checker) -> SetupOutcome:
    def ask_key() -> str:
        key = _ask(io, f"请粘贴 {spec.key_env}（输入显示为 *；直接回车返回上一步）：", secret=True)
        if not key:
            raise _Back
        return key

    key, model, _ = _connect(io, checker, base_url, ask_key, spec.default_model)
    model_env = spec.model_envs[0]
    values = {spec.key_env: key or ""}
    if model != spec.default_model:
        values[model_env] = model
    remove = GENERIC_KEYS if model != spec.default_model else (*GENERIC_KEYS, model_env)
    return SetupOutcome(spec.name, model, values, remove)


def _endpoint_flow(io: SetupIO, checker: Checker, window_set: bool) -> SetupOutcome:
    base_url = _ask_base_url(io)

    def ask_key() -> str:
        return _ask(io, "API Key（没有就直接回车；输入显示为 *）：", secret=True)

    key, model, listing = _connect(io, checker, base_url, ask_key, None)
    window = None
    if not window_set:
        if urlsplit(base_url).hostname in _LOOPBACK_HOSTS:
            window = _server_window(io, checker, base_url, key or None, model, listing)
        elif listing is not None:  # a remote endpoint is only read from the listing it already answered
            window = _listed_window(io, model, listing)
    values = {BASE_URL_ENV: base_url, MODEL_ENV: model}
    if key:
        values[KEY_ENV] = key
    return SetupOutcome(GENERIC, model, values, remove=() if key else (KEY_ENV,), window=window)


def _listed_window(io: SetupIO, model: str, listing: Any) -> int | None:
    from paicli.llm.window_forms import from_listing

    found = from_listing(listing, model)
    if found is None or found.tokens < MIN_CONTEXT_WINDOW:
        return None
    io.say(f"📏 服务端报告的上下文窗口：{found.tokens:,} tokens（{found.source}），已记下。")
    return found.tokens


_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def with_scheme(raw: str) -> str:
    """`localhost:8000` -> `http://localhost:8000`, `api.example.com/v1` -> `https://api.example.com/v1`: a
    local server rarely has TLS, a remote one should; an address with a scheme is returned unchanged."""
    if "://" in raw:
        return raw
    host = urlsplit(f"//{raw}").hostname
    return f"{'http' if host in _LOOPBACK_HOSTS else 'https'}://{raw}"


def normalized_base_url(raw: str) -> str | None:
    """The endpoint with its scheme and the customary `/v1` completed; None when it is not an http(s) URL."""
    url = with_scheme(raw.strip()).rstrip("/")
    try:
        parts = urlsplit(url)
        _ = parts.port  # raises ValueError for a port that is not a number
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return url if parts.path.strip("/") else url + "/v1"


def _ask_base_url(io: SetupIO) -> str:
    while True:
        raw = _ask(io, "接口地址（OpenAI 兼容，例如 http://127.0.0.1:11434/v1；直接回车返回上一步）：")
        if not raw:
            raise _Back
        url = normalized_base_url(raw)
        if url is None:
            io.say(
                "❌ 这不是可用的地址，请写成 http://主机:端口/v1 或 https://api.example.com/v1 的形式", "red"
            )
            continue
        if url != raw.rstrip("/"):
            io.say(f"   按惯例补全为 {url}", "dim")
        return url


# ---------------------------------------------------------------- checking


def _connect(
    io: SetupIO, checker: Checker, base_url: str, ask_key: Callable[[], str], default_model: str | None
) -> tuple[str, str, Any]:
    """Ask for the key until the endpoint accepts it, then the model; (key, model, the model listing)."""
    key: str | None = None
    while True:
        if key is None:
            key = ask_key()
        io.say(f"⏳ 正在连接 {base_url} …", "dim")
        listed = checker.list_models(base_url, key or None)
        if listed.kind == "auth":
            io.say(_auth_message(listed), "red")
            key = None
            continue
        if listed.kind in ("unreachable", "error"):
            io.say(_failure_message(base_url, listed), "red")
            if _retry_or_skip(io):
                continue
            return key, _ask_model(io, default_model, ()), None
        if listed.ok:
            io.say(
                f"✅ 连接成功（服务提供 {len(listed.models)} 个模型）" if listed.models else "✅ 连接成功",
                "green",
            )
        model = _ask_model(io, default_model, listed.models)
        if listed.ok:
            return key, model, listed.data
        verdict = _one_token(io, checker, base_url, key, model)  # the endpoint does not list its models
        if verdict is None:
            return key, model, None
        if verdict == "auth":
            key = None


def _one_token(io: SetupIO, checker: Checker, base_url: str, key: str, model: str) -> str | None:
    """None when the model answered (or the user saves anyway); "auth" when the key was refused."""
    while True:
        io.say(f"⏳ 服务没有提供模型列表，正在用 {model} 试一次最小的请求 …", "dim")
        result = checker.one_token(base_url, key or None, model)
        if result.ok:
            io.say("✅ 连接成功", "green")
            return None
        if result.kind == "auth":
            io.say(_auth_message(result), "red")
            return "auth"
        io.say(_failure_message(base_url, result), "red")
        if not _retry_or_skip(io):
            return None


def _retry_or_skip(io: SetupIO) -> bool:
    """True: try again. False: save without a check. Empty answer: back to the service list."""
    while True:
        answer = _ask(io, "输入 r 重试，s 不验证直接保存，直接回车返回服务列表：").lower()
        if answer == "r":
            return True
        if answer == "s":
            io.say("⚠️ 未经验证保存；如果之后调用失败，请检查地址、Key 和网络（代理）设置。", "yellow")
            return False
        if not answer:
            raise _Back


def _auth_message(result: CheckResult) -> str:
    detail = f"：{result.detail}" if result.detail else ""
    return f"❌ API Key 无效或没有权限（HTTP {result.status}）{detail}。请重新输入。"


def _failure_message(base_url: str, result: CheckResult) -> str:
    if result.kind == "unreachable":
        return (
            f"❌ 无法连接到 {base_url}：{result.detail}。"
            "如果需要代理，请先设置 HTTPS_PROXY（本机服务请确认它已启动）。"
        )
    status = f"HTTP {result.status}" if result.status else "无法识别的响应"
    return f"❌ 服务返回错误（{status}）：{result.detail or '没有详细信息'}"


def _ask_model(io: SetupIO, default: str | None, models: Sequence[str]) -> str:
    """The model: Enter takes the default (or the first listed one); a listed number or any name."""
    listed = list(models)
    numbered = listed[:MODELS_SHOWN] if listed and (default is None or default not in listed) else []
    if numbered:
        io.say("可用的模型：")
        for number, name in enumerate(numbered, start=1):
            io.say(f"  {number:>2}. {name}")
        if len(listed) > MODELS_SHOWN:
            io.say(f"  …… 另有 {len(listed) - MODELS_SHOWN} 个，可以直接输入名称", "dim")
    fallback = default or (listed[0] if listed else None)
    hint = f"（直接回车使用 {fallback}）" if fallback else ""
    question = f"选择模型：编号或名称{hint}：" if numbered else f"模型{hint}："
    while True:
        answer = _ask(io, question)
        if not answer and fallback:
            return fallback
        if answer.isdigit() and 1 <= int(answer) <= len(numbered):
            return numbered[int(answer) - 1]
        if answer:
            if listed and answer not in listed:
                io.say(
                    f"⚠️ 服务的模型列表里没有 {answer}；如果调用失败，可以用 /model 或 paicli --setup 更换。",
                    "yellow",
                )
            return answer
        io.say("❌ 需要一个模型名称。", "red")
