"""A server whose chat template drops `tools` without a word (issue 40): its prompt count cannot hold the tool
definitions; one request without tools confirms it, one line says so, and the session goes on without tools."""

from __future__ import annotations

from paicli.context.tokens import TokenCounter
from paicli.llm.client import ClientOptions, OpenAIChatClient
from paicli.llm.dropped import same_prompt, suspicious
from paicli.llm.messages import Message
from paicli.llm.tool_fallback import ToolFallbackClient, ToolSupport
from paicli.testing.openai_server import FakeOpenAIServer
from paicli.testing.server_limits import ServerLimits

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": f"tool_{n}",
            "description": "读取项目里的一个文件并返回它的内容，可以指定起止行号，适合先定位再细读。" * 3,
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string", "description": "相对项目根目录的路径"}},
                "required": ["path"],
            },
        },
    }
    for n in range(8)
]
SYSTEM = "## Tools\n\n`tool_0`\n\n## Tool Policy\n\n- 先读后改"


def session(server: FakeOpenAIServer) -> tuple[ToolFallbackClient, list[str]]:
    said: list[str] = []
    estimate, exact = TokenCounter("heuristic"), TokenCounter("exact", model="fake-model")
    support = ToolSupport(lambda prompt: "没有工具可用", said.append, estimate, exact)
    options = ClientOptions(server.base_url, None, backoff_base=0.001)
    return ToolFallbackClient(OpenAIChatClient.from_options(options, "fake-model"), support), said


def test_a_server_that_drops_tools_is_found_once_and_the_session_goes_on_without_them() -> None:
    with FakeOpenAIServer(limits=ServerLimits(drop_tools=True), default_reply="好的") as server:
        llm, said = session(server)
        messages = [Message.system(SYSTEM), Message.user("读一下 a.txt")]
        assert llm.chat(messages, TOOLS).message.content == "好的"
        assert len(said) == 1 and "聊天模板" in said[0] and "--jinja" in said[0]
        check = server.requests[1]  # the same request without tools, one output token
        assert (
            "tools" not in check
            and check["max_tokens"] == 1
            and check["messages"] == server.requests[0]["messages"]
        )
        llm.chat([*messages, Message.assistant("好的"), Message.user("再读 b.txt")], TOOLS)
        later = server.requests[2]
        assert "tools" not in later and later["messages"][0]["content"] == "没有工具可用"
        assert len(said) == 1 and len(server.requests) == 3
        server.assert_no_violations()


def test_a_server_that_renders_tools_is_checked_once_and_costs_no_request() -> None:
    with FakeOpenAIServer(default_reply="好的") as server:
        llm, said = session(server)
        for turn in range(2):
            llm.chat([Message.system(SYSTEM), Message.user(f"第 {turn} 轮")], TOOLS)
        assert said == [] and len(server.requests) == 2 and all("tools" in r for r in server.requests)


def test_the_decisions() -> None:
    assert suspicious(119, 60, 1332)  # issue 40: llama.cpp with the model's own template
    assert suspicious(1654, 1654, 1588)  # paicli's first request there: system prompt and tools alike
    assert not suspicious(1445, 60, 1332)  # the same request with a template that renders the tools
    assert not suspicious(100, 60, 0)  # no tools sent: nothing to check
    assert not suspicious(2520, 3000, 600)  # a tokenizer counting 0.7x of the local one, tools rendered
    assert same_prompt(119, 119) and same_prompt(1200, 1207) and not same_prompt(119, 1445)
