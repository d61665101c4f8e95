"""`/model add`, `/model refresh` and `/config provider` (issue 45) on a real session against the loopback
server: the catalog and provider entries land in config.json, the key is never shown, and what was added can be
switched to at once (the next request goes out with it)."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.testing.openai_server import FakeOpenAIServer
from tests.cli.served_session import command, served_parts

KEY = "sk-test-0123456789abcdef"


def config(tmp_path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((tmp_path / ".paicli" / "config.json").read_text(encoding="utf-8"))
    return loaded


def test_model_add_puts_a_model_in_the_catalog_to_switch_to(tmp_path: Path) -> None:
    with FakeOpenAIServer(default_reply="好", models=("fake-model", "other-model")) as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        try:
            reply = command(backend, "/model add paicli other-model")
            assert "✅ 已加入模型目录: paicli/other-model" in reply
            assert config(tmp_path)["models"] == {"paicli/other-model": {}}
            assert "ℹ️ 模型目录里已经有" in command(backend, "/model add paicli other-model")
            assert "paicli/other-model" in command(backend, "/model list")
            assert "已切换到" in command(backend, "/model paicli/other-model")
            backend.run("你好", "react", lambda e: None, CancelToken())
            assert server.requests[-1]["model"] == "other-model"
            assert "用法: /model add" in command(backend, "/model add paicli")
            assert "不认识的 provider: nosuch" in command(backend, "/model add nosuch m")
            assert "kimi 还没有配置" in command(backend, "/model add kimi kimi-k2.6")
        finally:
            backend.close()


def test_model_refresh_reads_the_providers_list_into_the_catalog(tmp_path: Path) -> None:
    with FakeOpenAIServer(models=("fake-model", "m-two", "m-three")) as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        try:
            reply = command(backend, "/model refresh paicli")
            assert "🔄 paicli 列出 3 个模型（新加入目录 3 个）: fake-model, m-two, m-three" in reply
            assert set(config(tmp_path)["models"]) == {"paicli/fake-model", "paicli/m-two", "paicli/m-three"}
            listed = command(backend, "/model list")
            assert "paicli/m-two" in listed and "paicli/m-three" in listed
            assert "新加入目录 0 个" in command(backend, "/model refresh paicli")
        finally:
            backend.close()
    (tmp_path / "other").mkdir()
    with FakeOpenAIServer(models_route=False) as server:
        backend = AppBackend(served_parts(tmp_path / "other", server.base_url))
        try:
            assert "❌ 无法读取 paicli 的模型列表" in command(backend, "/model refresh paicli")
        finally:
            backend.close()


def test_config_provider_saves_privately_never_shows_the_key_and_is_switchable(tmp_path: Path) -> None:
    with FakeOpenAIServer(default_reply="好") as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        try:
            line = f"/config provider deepseek --api-key {KEY} --base-url {server.base_url} --model deepseek-chat --default"
            reply = command(backend, line)
            assert KEY not in reply
            assert "✅ 已保存 provider 配置: deepseek" in reply and "立即切换: /model deepseek" in reply
            assert "sk-***cdef" in reply and "已设为默认 provider" in reply
            path = tmp_path / ".paicli" / "config.json"
            assert stat.S_IMODE(path.stat().st_mode) == 0o600
            saved = config(tmp_path)
            assert saved["defaultProvider"] == "deepseek"
            assert saved["providers"]["deepseek"] == {
                "apiKey": KEY,
                "baseUrl": server.base_url,
                "model": "deepseek-chat",
            }
            assert "已切换到" in command(backend, "/model deepseek")
            backend.run("你好", "react", lambda e: None, CancelToken())
            assert server.requests[-1]["model"] == "deepseek-chat"
            assert "用法: /config provider" in command(backend, "/config provider deepseek --api-key")
            assert "不认识的选项: --colour" in command(backend, "/config provider deepseek --colour red")
        finally:
            backend.close()
