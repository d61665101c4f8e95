"""The three browser tools as the model sees them (spec 9.1), apart from their implementation: the tool table
offers them on every run, while the browser package is imported only when one of them is first called.

`browser_status` opens a URL, clicks a listed element, takes a screenshot and reads the current page;
`browser_connect` / `browser_disconnect` switch to the user's own browser and back. Everything a page shows is
outside content; the URL the model opens must come from the user or this turn's search (`url_param`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

from paicli.tools.context import ToolContext
from paicli.tools.registry import Tool
from paicli.tools.schema import Args, Param, ToolOutput, ToolSpec

PAGE_KIND = "浏览器页面"
BROWSER_STATUS = ToolSpec(
    "browser_status",
    "url 打开网页（能跑 JS），click 点编号，shot 截图",
    (Param("url", "string", ""), Param("click", "integer", ""), Param("shot", "boolean", "")),
    auto_approve=True,  # like web_fetch in an empty profile; shared mode was agreed to at browser_connect
    snapshot_first=False,
    external=True,
    web=True,
    url_param="url",
    content_kind=PAGE_KIND,
    summary="浏览器 {url}",
)
BROWSER_CONNECT = ToolSpec(
    "browser_connect",
    "",  # the Browser Policy section says what it is for (every token of the first request counts)
    snapshot_first=False,
    external=True,
    web=True,
    content_kind=PAGE_KIND,
    summary="连接你自己的浏览器",
)
BROWSER_DISCONNECT = ToolSpec(
    "browser_disconnect",
    "",
    read_only=True,  # it only gives access back
    parallel_safe=False,
    snapshot_first=False,
    external=True,
    content_kind=PAGE_KIND,
)


def consent_text(endpoint: str) -> str:
    """What the person is asked before shared mode: what the model will see and be able to do."""
    return (
        f"模型要连接你自己正在用的浏览器（调试地址 {endpoint}）：连上后它能看到你所有标签页的标题和地址，"
        "并在一个新标签页里用你的登录身份打开网页、读取内容、点击和截图；/browser disconnect 随时断开"
    )


class BrowserHandlers(Protocol):
    def status(self, args: Args, ctx: ToolContext) -> ToolOutput: ...

    def connect(self, args: Args, ctx: ToolContext) -> ToolOutput: ...

    def disconnect(self, args: Args, ctx: ToolContext) -> ToolOutput: ...


def browser_tools(handlers: Callable[[], BrowserHandlers], endpoint: str) -> list[Tool]:
    """The three tools; `handlers` is asked for the implementation at each call (it may load it then)."""

    def status(args: Args, ctx: ToolContext) -> ToolOutput:
        return handlers().status(args, ctx)

    def connect(args: Args, ctx: ToolContext) -> ToolOutput:
        return handlers().connect(args, ctx)

    def disconnect(args: Args, ctx: ToolContext) -> ToolOutput:
        return handlers().disconnect(args, ctx)

    return [
        Tool(BROWSER_STATUS, status),
        Tool(replace(BROWSER_CONNECT, ask_reason=consent_text(endpoint)), connect),
        Tool(BROWSER_DISCONNECT, disconnect),
    ]
