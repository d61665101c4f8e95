"""The light and compaction models are resolved once, by the settings, and reach the side requests: fact
extraction asks PAICLI_LIGHT_MODEL and a summary asks PAICLI_COMPACTION_MODEL, before and after /model."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.compose import build_components
from paicli.config.env import EnvLookup
from paicli.config.parsed import ParsedConfig
from paicli.config.settings import load_settings
from paicli.testing.openai_server import FakeOpenAIServer
from paicli.tools.approval import AutoApprover

pytestmark = pytest.mark.timeout(60)

STATEMENT = "我们团队约定所有提交信息都用中文书写"


class Recorder:
    def __init__(self) -> None:
        self.extraction_models: list[str] = []
        self.extracted = threading.Event()

    def __call__(self, body: dict[str, Any]) -> str:
        text = str(body["messages"][-1].get("content", ""))
        if "=== 用户原文 ===" in text:
            self.extraction_models.append(body["model"])
            self.extracted.set()
            return json.dumps({"facts": []})
        return "好的。"


def _is_extraction(body: dict[str, Any]) -> bool:
    return "=== 用户原文 ===" in str(body["messages"][-1].get("content", ""))


def _backend(tmp_path: Path, server: FakeOpenAIServer, **extra: str) -> AppBackend:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    environ = {
        "HOME": str(tmp_path),
        "PAICLI_HOME": str(tmp_path / ".paicli"),
        "PAICLI_BASE_URL": server.base_url,
        "PAICLI_MODEL": "fake-model",
        "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "true",
        "PAICLI_LOCAL_PORTS": "off",
        **extra,
    }
    env = EnvLookup(environ=environ, cwd=project)
    return AppBackend(
        build_components(load_settings(env, cwd=project), ParsedConfig.read(env), AutoApprover(), yes=True)
    )


def _extract_once(backend: AppBackend, recorder: Recorder) -> None:
    recorder.extracted.clear()
    backend.run(f"{STATEMENT}。帮我看看 README", "react", lambda e: None, CancelToken())
    assert recorder.extracted.wait(30)
    backend.background.wait(30)  # done before the next turn, which would cut it short (issue 40)


def test_configured_side_models_are_asked_before_and_after_model_switches(tmp_path: Path) -> None:
    recorder = Recorder()
    with FakeOpenAIServer(responder=recorder, models=("fake-model", "other-model")) as server:
        backend = _backend(
            tmp_path, server, PAICLI_LIGHT_MODEL="light-model", PAICLI_COMPACTION_MODEL="summary-model"
        )
        try:
            assert (backend.settings.light_model, backend.settings.compaction_model) == (
                "light-model",
                "summary-model",
            )
            _extract_once(backend, recorder)
            for turn in range(4):
                backend.run(f"第 {turn} 轮：看看 src", "react", lambda e: None, CancelToken())
            before = len(server.requests)
            backend.agent.compact_now(None)  # the scripted reply is no valid summary: only who is asked
            # a turn's background extraction may run meanwhile (on the light model); the summary is what is checked
            asked = {body["model"] for body in server.requests[before:] if not _is_extraction(body)}
            assert asked == {"summary-model"}
            assert backend.models.command("paicli/other-model", confirmed=True).ok
            _extract_once(backend, recorder)
        finally:
            backend.close(10)
    assert len(recorder.extraction_models) >= 2
    assert set(recorder.extraction_models) == {"light-model"}  # before and after the switch
    assert server.requests[-1]["model"] in ("other-model", "light-model")


def test_without_a_light_model_extraction_follows_the_session_model(tmp_path: Path) -> None:
    recorder = Recorder()
    with FakeOpenAIServer(responder=recorder, models=("fake-model", "other-model")) as server:
        backend = _backend(tmp_path, server)
        try:
            assert backend.settings.light_model == "fake-model"
            _extract_once(backend, recorder)
            assert backend.models.command("paicli/other-model", confirmed=True).ok
            _extract_once(backend, recorder)
        finally:
            backend.close(10)
    assert recorder.extraction_models == ["fake-model", "other-model"]
