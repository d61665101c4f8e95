"""`/context`, `/model info` and `/memory` tell the same, observed story about the prompt cache (no internal
names, no MCP line without MCP servers); `/model NAME` checks the provider's own list. A real session
(`build_components`) against the loopback server, which reports the usage each test scripts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.compose import build_components
from paicli.config.env import EnvLookup
from paicli.config.parsed import ParsedConfig
from paicli.config.settings import load_settings
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.tools.approval import AutoApprover

pytestmark = pytest.mark.timeout(60)
CACHED = {"prompt_tokens": 10_000, "completion_tokens": 20, "total_tokens": 10_020}


def session(tmp_path: Path, base_url: str) -> AppBackend:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    env = EnvLookup(
        environ={
            "HOME": str(tmp_path),
            "PAICLI_HOME": str(tmp_path / ".paicli"),
            "PAICLI_BASE_URL": base_url,
            "PAICLI_MODEL": "fake-model",
            "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "false",
        },
        cwd=project,
    )
    return AppBackend(
        build_components(load_settings(env, cwd=project), ParsedConfig.read(env), AutoApprover(), yes=True)
    )


def test_every_view_words_the_cache_from_the_usage_observed(tmp_path: Path) -> None:
    usage = {**CACHED, "prompt_tokens_details": {"cached_tokens": 8_960}}
    with FakeOpenAIServer() as server:
        server.push(Reply.text("好的。", usage=usage))
        backend = session(tmp_path, server.base_url)
        try:
            before = backend.models.command("info").text
            backend.run("看一下项目", "react", lambda e: None, CancelToken())
            context = backend.report.context().text
            info = backend.models.command("info").text
            memory = backend.report.memory("").text
        finally:
            backend.close(5)
    assert "prompt cache: 暂无数据" in before
    figures = set(re.findall(r"\d+\.\d+%", " ".join(re.findall(r"prompt cache: [^\n]*", context))))
    assert figures == {"89.6%"}  # one figure, however many times the cache is mentioned
    assert "prompt cache: 生效，本会话 89.6% 的输入 token 命中缓存（服务端报告）" in context
    assert "prompt cache: 生效（命中 89.6%）" in info and "prompt cache: 生效（命中 89.6%）" in memory
    for shown in (context, info, memory):
        assert "conversationHistory" not in shown and "prompt cache: none" not in shown
        assert "MCP" not in shown  # no MCP server configured: no MCP line
    assert "输入 10000 / 输出 20 tokens（缓存命中 8960）" in context  # the statistics agree with the ratio
    assert "预算" not in context and "/memory clear" not in context  # one window figure; no /memory help


def test_no_cached_tokens_reported_is_a_miss_not_a_mode(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push(Reply.text("好的。", usage={**CACHED, "prompt_tokens_details": {"cached_tokens": 0}}))
        backend = session(tmp_path, server.base_url)
        try:
            backend.run("看一下项目", "react", lambda e: None, CancelToken())
            context = backend.report.context().text
            info = backend.models.command("info").text
        finally:
            backend.close(5)
    assert "  prompt cache: 本会话还没有命中（服务端报告 0 个缓存 token）" in context.splitlines()
    assert "prompt cache: 未命中" in info


def test_a_name_the_provider_lists_is_taken_and_a_typo_of_it_gets_did_you_mean(tmp_path: Path) -> None:
    with FakeOpenAIServer(models=("fake-model", "local-coder-7b")) as server:
        backend = session(tmp_path, server.base_url)
        try:
            typo = backend.models.command("local-codr-7b")
            taken = backend.models.command("local-coder-7b")
            current = backend.settings.model
        finally:
            backend.close(5)
    assert not typo.ok and not typo.confirm  # a typo is not offered as a switch
    assert "❌ 不认识的模型: local-codr-7b（没有切换）" in typo.text
    assert "你是不是想用 local-coder-7b？" in typo.text
    assert taken.ok and "✅ 已切换到 local-coder-7b" in taken.text and current == "local-coder-7b"


def test_a_provider_without_a_model_list_says_it_could_not_check(tmp_path: Path) -> None:
    with FakeOpenAIServer(models_route=False) as server:
        backend = session(tmp_path, server.base_url)
        try:
            known_shape = backend.models.command("gpt-5")
            unknown_shape = backend.models.command("local-coder-7b")
            current = backend.settings.model
        finally:
            backend.close(5)
    assert known_shape.ok and "✅ 已切换到 gpt-5" in known_shape.text
    assert "ℹ️ 无法核对 paicli 的模型列表（服务不提供模型列表），没有确认 gpt-5 是否可用" in known_shape.text
    assert not unknown_shape.ok and "❌ 不认识的模型: local-coder-7b" in unknown_shape.text
    assert "无法核对 paicli 的模型列表" in unknown_shape.text and current == "gpt-5"
