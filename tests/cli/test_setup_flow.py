"""The first-run setup driven through the REPL's prompt input (keys typed into a prompt_toolkit pipe), against
the loopback fake server: choices, hidden key, model, the check, and the saved file."""

from __future__ import annotations

import io
import json
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from paicli.cli.first_run import FirstRunResult, PromptSetupIO, discover_for, run_first_setup
from paicli.config.env import EnvLookup, parse_dotenv
from paicli.llm.probe import discover_local
from paicli.testing.openai_server import FakeOpenAIServer

pytestmark = pytest.mark.timeout(60)
ENTER = "\r"


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as inp:
        yield inp


class Dialogue:
    """Runs the setup on this thread while the answers are already queued in the prompt's input."""

    def __init__(self, pipe: PipeInput, tmp_path: Path, **environ: str) -> None:
        self.pipe = pipe
        self.home = tmp_path / "home" / ".paicli"
        self.environ = {"HOME": str(tmp_path / "home"), "PAICLI_HOME": str(self.home), **environ}
        self.cwd = tmp_path / "project"
        self.cwd.mkdir(exist_ok=True)
        self.buffer = io.StringIO()
        self.io = PromptSetupIO(Console(file=self.buffer, width=200), input=pipe, output=DummyOutput())

    def env(self) -> EnvLookup:
        return EnvLookup(environ=self.environ, cwd=self.cwd)

    def run(self, *answers: str, servers: list[object] | None = None) -> FirstRunResult | None:
        for answer in answers:
            self.pipe.send_text(answer + ENTER)
        found = servers
        discover = (lambda: found) if found is not None else None
        return run_first_setup(self.env(), self.io, discover=discover, env_factory=self.env)  # type: ignore[arg-type]

    @property
    def text(self) -> str:
        return self.buffer.getvalue()

    @property
    def saved(self) -> dict[str, str]:
        return parse_dotenv((self.home / ".env").read_text(encoding="utf-8"))


def test_wrong_key_is_reported_and_asked_again_then_saved_0600(pipe: PipeInput, tmp_path: Path) -> None:
    with FakeOpenAIServer(api_key="sk-right-key-123") as server:
        dialogue = Dialogue(pipe, tmp_path, DEEPSEEK_BASE_URL=server.base_url)
        # 1 = DeepSeek (no local server offered), a wrong key, the right one, Enter = the default model
        result = dialogue.run("1", "sk-wrong", "sk-right-key-123", "")
        assert result is not None
        assert "API Key 无效或没有权限（HTTP 401）" in dialogue.text
        assert "请重新输入" in dialogue.text
        assert server.gets == ["/v1/models", "/v1/models"]  # one cheap check per key, no completion spent
    assert dialogue.saved == {"DEEPSEEK_API_KEY": "sk-right-key-123"}
    assert stat.S_IMODE((dialogue.home / ".env").stat().st_mode) == 0o600
    assert stat.S_IMODE(dialogue.home.stat().st_mode) == 0o700
    settings = result.settings
    assert (settings.provider, settings.model, settings.api_key) == (
        "deepseek",
        "deepseek-flash",
        "sk-right-key-123",
    )
    assert settings.base_url == dialogue.environ["DEEPSEEK_BASE_URL"]
    assert "sk-right-key-123" not in dialogue.text and "sk-wrong" not in dialogue.text


def test_any_openai_compatible_endpoint_lists_its_models_to_choose_from(
    pipe: PipeInput, tmp_path: Path
) -> None:
    with FakeOpenAIServer(models=("qwen-small", "qwen-large")) as server:
        dialogue = Dialogue(pipe, tmp_path)
        last, url = "10", server.base_url  # nine providers, then "any OpenAI-compatible endpoint"
        result = dialogue.run(last, url + "/", "", "2")
        assert result is not None
    assert "其他 OpenAI 兼容接口" in dialogue.text and "2. qwen-large" in dialogue.text
    assert dialogue.saved == {"PAICLI_BASE_URL": url, "PAICLI_MODEL": "qwen-large"}
    assert result.settings.describe() == "qwen-large (paicli)"


def test_an_endpoint_without_a_model_list_is_checked_with_one_token(pipe: PipeInput, tmp_path: Path) -> None:
    with FakeOpenAIServer(models_route=False, default_reply="ok") as server:
        dialogue = Dialogue(pipe, tmp_path)
        url = server.base_url
        result = dialogue.run("10", url, "sk-endpoint-key", "my-model")
        assert result is not None
        assert len(server.requests) == 1
        request = server.requests[0]
        assert (request["model"], request["max_tokens"], request.get("stream")) == ("my-model", 1, False)
        assert server.request_headers[0]["authorization"] == "Bearer sk-endpoint-key"
    assert dialogue.saved == {
        "PAICLI_BASE_URL": url,
        "PAICLI_MODEL": "my-model",
        "PAICLI_API_KEY": "sk-endpoint-key",
    }


def test_a_discovered_local_server_is_offered_first_with_its_models(pipe: PipeInput, tmp_path: Path) -> None:
    with FakeOpenAIServer(models=("llama3.1:8b", "qwen2.5-coder:7b")) as server:
        found, url = discover_local([("Ollama", server.port)], timeout=30), server.base_url
        dialogue = Dialogue(pipe, tmp_path)
        result = dialogue.run("", "2", servers=list(found))  # Enter = 1 = the local server
        assert result is not None
    assert "在本机发现了正在运行的模型服务：Ollama（2 个模型）" in dialogue.text
    assert f"1. 本机 Ollama（{url}" in dialogue.text
    assert dialogue.saved == {"PAICLI_BASE_URL": url, "PAICLI_MODEL": "qwen2.5-coder:7b"}
    assert result.settings.api_key is None


def test_setup_keeps_other_lines_and_replaces_an_earlier_choice(pipe: PipeInput, tmp_path: Path) -> None:
    with FakeOpenAIServer(api_key="sk-kimi-000001") as server:
        dialogue = Dialogue(pipe, tmp_path, KIMI_BASE_URL=server.base_url)
        dialogue.home.mkdir(parents=True)
        (dialogue.home / ".env").write_text(
            "# mine\nSEARXNG_URL=http://search.local\nPAICLI_BASE_URL=http://old/v1\nPAICLI_MODEL=old\n",
            encoding="utf-8",
        )
        result = dialogue.run("5", "sk-kimi-000001", "kimi-other")
        assert result is not None
    text = (dialogue.home / ".env").read_text(encoding="utf-8")
    assert text.startswith("# mine\nSEARXNG_URL=http://search.local\n")
    assert dialogue.saved == {
        "SEARXNG_URL": "http://search.local",
        "KIMI_API_KEY": "sk-kimi-000001",
        "KIMI_MODEL": "kimi-other",
    }
    assert result.settings.describe() == "kimi-other (kimi)"
    assert "服务的模型列表里没有 kimi-other" in dialogue.text  # the fake lists only fake-model


def test_a_choice_behind_another_configured_key_becomes_the_default_provider(
    pipe: PipeInput, tmp_path: Path
) -> None:
    with FakeOpenAIServer() as server:
        dialogue = Dialogue(pipe, tmp_path, DEEPSEEK_API_KEY="sk-already-there", GLM_BASE_URL=server.base_url)
        result = dialogue.run(
            "2", "sk-glm-key-0001", ""
        )  # GLM, although DeepSeek comes first in the auto order
        assert result is not None
    assert result.settings.provider == "glm"
    config = (dialogue.home / "config.json").read_text(encoding="utf-8")
    assert '"defaultProvider": "glm"' in config


def test_bad_answers_are_asked_again_and_empty_steps_go_back(pipe: PipeInput, tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        dialogue = Dialogue(pipe, tmp_path, STEP_BASE_URL=server.base_url)
        # 99: no such option; 4 = Step, Enter at the key goes back; 10 = endpoint, not an http(s) URL, back
        result = dialogue.run("99", "4", "", "10", "ftp://localhost:1234", "", "4", "sk-step-key-01", "")
        assert result is not None
    assert "没有这个选项：99" in dialogue.text
    assert "这不是可用的地址" in dialogue.text
    assert dialogue.text.count("回到服务列表") == 2
    assert dialogue.saved == {"STEP_API_KEY": "sk-step-key-01"}


def test_unreachable_endpoint_offers_retry_or_saving_unchecked(pipe: PipeInput, tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        dead = server.base_url
    dialogue = Dialogue(pipe, tmp_path, OPENAI_BASE_URL=dead)
    result = dialogue.run("9", "sk-openai-key-1", "r", "s", "")
    assert result is not None
    assert dialogue.text.count(f"无法连接到 {dead}") == 2 and "HTTPS_PROXY" in dialogue.text
    assert "未经验证保存" in dialogue.text
    assert dialogue.saved == {"OPENAI_API_KEY": "sk-openai-key-1"}


def test_end_of_input_abandons_the_setup_and_saves_nothing(pipe: PipeInput, tmp_path: Path) -> None:
    dialogue = Dialogue(pipe, tmp_path)
    pipe.send_text("1" + ENTER)
    closer = threading.Timer(0, pipe.close)  # EOF once the first answer is queued
    closer.start()
    closer.join()
    assert run_first_setup(dialogue.env(), dialogue.io, env_factory=dialogue.env) is None
    assert not (dialogue.home / ".env").exists()


def test_discovery_probes_the_ports_of_paicli_local_ports_only() -> None:
    with FakeOpenAIServer(models=("m-a",)) as first, FakeOpenAIServer(models=("m-b",)) as other:
        env = EnvLookup(environ={"PAICLI_LOCAL_PORTS": str(first.port)})
        found = discover_for(env, timeout=30)
        assert [(s.port, s.models) for s in found] == [(first.port, ("m-a",))]
        assert first.gets == ["/v1/models"] and other.gets == []
        assert discover_for(EnvLookup(environ={"PAICLI_LOCAL_PORTS": "off"})) == []


def test_an_address_without_a_scheme_gets_one_and_v1_and_the_window_hint_respects_the_setting(
    pipe: PipeInput, tmp_path: Path
) -> None:
    with FakeOpenAIServer(models=("local-model",)) as server:
        port = server.port
        dialogue = Dialogue(pipe, tmp_path)
        result = dialogue.run("10", f"127.0.0.1:{server.port}", "", "")  # endpoint, no key, the listed model
        assert result is not None
        (tmp_path / "told").mkdir()
        with create_pipe_input() as other:
            told = Dialogue(other, tmp_path / "told", PAICLI_CONTEXT_WINDOW="32768")
            assert told.run("10", f"127.0.0.1:{server.port}", "", "") is not None
    url = f"http://127.0.0.1:{port}/v1"
    assert f"按惯例补全为 {url}" in dialogue.text
    assert dialogue.saved == {"PAICLI_BASE_URL": url, "PAICLI_MODEL": "local-model"}
    assert "本机模型的上下文窗口往往比云端小" in dialogue.text
    assert "本机模型的上下文窗口往往比云端小" not in told.text  # the window is already set


def test_a_remote_address_without_a_scheme_is_completed_with_https() -> None:
    from paicli.cli.setup import normalized_base_url

    assert normalized_base_url("api.example.com") == "https://api.example.com/v1"
    assert normalized_base_url("localhost:8000") == "http://localhost:8000/v1"
    assert normalized_base_url("https://gw.example.com/openai/") == "https://gw.example.com/openai"
    assert normalized_base_url("localhost:port") is None and normalized_base_url("ftp://x") is None


def test_a_local_endpoint_that_reports_its_context_has_it_saved_for_that_model(
    pipe: PipeInput, tmp_path: Path
) -> None:
    from paicli.testing.server_limits import ServerLimits

    with FakeOpenAIServer(models=("local-model",), limits=ServerLimits(n_ctx=16_384)) as server:
        url = server.base_url
        dialogue = Dialogue(pipe, tmp_path)
        result = dialogue.run("10", url, "", "")  # any endpoint, no key, the listed model
        assert result is not None
        assert server.gets == ["/v1/models"]  # the window came with the listing: no second request
    assert "服务端报告的上下文窗口：16,384 tokens（llama.cpp meta.n_ctx）" in dialogue.text
    assert "本机模型的上下文窗口往往比云端小" not in dialogue.text
    saved = json.loads((dialogue.home / "config.json").read_text(encoding="utf-8"))
    assert saved["models"] == {"paicli/local-model": {"contextWindow": 16384}}
    assert result.settings.context_window == 16_384 and result.settings.window_source == "configured"
    assert dialogue.saved == {"PAICLI_BASE_URL": url, "PAICLI_MODEL": "local-model"}


def test_a_discovered_server_too_small_for_paicli_is_named_and_nothing_is_saved(
    pipe: PipeInput, tmp_path: Path
) -> None:
    from paicli.testing.server_limits import ServerLimits

    with FakeOpenAIServer(models=("tiny",), limits=ServerLimits(n_ctx=4096)) as server:
        found = discover_local([("llama.cpp", server.port)], timeout=30)
        dialogue = Dialogue(pipe, tmp_path)
        assert dialogue.run("", "", servers=list(found)) is not None
    assert "服务端报告的上下文窗口只有 4,096 tokens" in dialogue.text and "-c" in dialogue.text
    assert not (dialogue.home / "config.json").exists()
