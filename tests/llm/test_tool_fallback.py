"""Models that reject `tools`: detected on the first 400, the request retried without tools, the system prompt
switched to the no-tools section, and the user told once (real client against the loopback fake)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.config.env import EnvLookup
from paicli.config.values import PromptValues
from paicli.llm.client import OpenAIChatClient
from paicli.llm.messages import Message
from paicli.llm.protocol import LLMError
from paicli.llm.tool_fallback import ToolFallbackClient, ToolSupport, rejects_tools
from paicli.prompt.assembler import PromptAssembler, PromptMode
from paicli.prompt.repository import PromptRepository
from paicli.testing.openai_server import FakeOpenAIServer, Reply

pytestmark = pytest.mark.timeout(60)
TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]


@pytest.mark.parametrize(
    ("status", "message", "expected"),
    [
        (400, "registry.ollama.ai/library/gemma:2b does not support tools", True),
        (400, "tools param requires --jinja flag", True),
        (400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', True),
        (400, "deepseek-reasoner does not support Function Calling", True),
        (422, "Unrecognized request argument supplied: tools", True),
        (
            400,
            "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'",
            False,
        ),
        (400, "context length exceeded", False),
        (500, "does not support tools", False),
        (None, "无法连接到 http://127.0.0.1:1/v1", False),
    ],
)
def test_which_errors_mean_no_tool_support(status: int | None, message: str, expected: bool) -> None:
    assert rejects_tools(LLMError(f"模型服务拒绝了请求（HTTP {status}）：{message}", status)) is expected


def _assembler(tmp_path: Path) -> PromptAssembler:
    env = EnvLookup(environ={"PAICLI_PROMPT_RUNTIME_DATE": "2026-01-02", "PAICLI_PROMPT_RUNTIME_ZONE": "UTC"})
    return PromptAssembler(PromptRepository(tmp_path, tmp_path / "home"), PromptValues.parse(env))


def test_first_rejection_retries_without_tools_and_later_calls_send_none(tmp_path: Path) -> None:
    assembler = _assembler(tmp_path)
    system = assembler.assemble(PromptMode.AGENT)
    notices: list[str] = []
    with FakeOpenAIServer(["第一次回答", "第二次回答"], reject_tools=True) as server:
        inner = OpenAIChatClient(server.base_url, None, "gemma:2b", max_retries=0)
        client = ToolFallbackClient(inner, ToolSupport(assembler.tools_disabled, notices.append))
        history = [Message.system(system), Message.user("你好")]
        assert client.chat(history, TOOLS).message.content == "第一次回答"
        assert client.chat([*history, Message.user("再来")], TOOLS).message.content == "第二次回答"
        requests = server.requests
        server.assert_no_violations()
    assert ["tools" in r for r in requests] == [True, False, False]  # one rejected request, then never again
    sent = requests[1]["messages"][0]["content"]
    assert "当前模型不支持 PaiCLI 原生工具调用" in sent and "## Tool Availability" in sent
    assert "\n## Tools\n" not in sent and "## Tool Policy" not in sent and "## Language" in sent
    assert requests[2]["messages"][0]["content"] == sent  # the same prefix every time
    assert len(notices) == 1 and "gemma:2b 不支持工具调用" in notices[0]
    assert history[0].content == system  # the caller's history is not touched


def test_other_errors_and_tool_capable_models_are_left_alone(tmp_path: Path) -> None:
    assembler = _assembler(tmp_path)
    notices: list[str] = []
    support = ToolSupport(assembler.tools_disabled, notices.append)
    with FakeOpenAIServer([Reply.error(400, "context length exceeded"), "好的"]) as server:
        client = ToolFallbackClient(OpenAIChatClient(server.base_url, None, "m", max_retries=0), support)
        history = [Message.system(assembler.assemble(PromptMode.AGENT)), Message.user("你好")]
        with pytest.raises(LLMError, match="context length"):
            client.chat(history, TOOLS)
        assert client.chat(history, TOOLS).message.content == "好的"
        assert all("tools" in r for r in server.requests)
    assert notices == []
    # a rejection is remembered per model: another model on the same endpoint still gets tools
    support.mark("m")
    other = client.with_model("m2")
    assert not support.rejected("m2") and support.rejected("m") and other.model == "m2"


def test_tools_disabled_leaves_prompts_without_tool_sections_alone(tmp_path: Path) -> None:
    assembler = _assembler(tmp_path)
    assert assembler.tools_disabled("请把下面的对话总结一下。") == "请把下面的对话总结一下。"
