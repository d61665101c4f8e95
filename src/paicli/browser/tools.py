"""The handlers of the three browser tools (their specs, which every request carries, live in
tools/browser_specs.py so that offering them imports nothing of this package). Addresses pass the same checks as
web_fetch's; everything a page shows is outside content."""

from __future__ import annotations

from paicli.browser.driver import BrowserDriver, BrowserError
from paicli.browser.find import MISSING
from paicli.browser.gate import PageGate
from paicli.llm.content_parts import ImagePart
from paicli.tools.browser_specs import BROWSER_CONNECT as BROWSER_CONNECT
from paicli.tools.browser_specs import BROWSER_DISCONNECT as BROWSER_DISCONNECT
from paicli.tools.browser_specs import BROWSER_STATUS, browser_tools
from paicli.tools.browser_specs import consent_text as consent_text
from paicli.tools.context import ToolContext
from paicli.tools.registry import Tool
from paicli.tools.schema import Args, ToolOutput
from paicli.tools.web import WEB_DENIED


class BrowserTools:
    """The handlers over one driver; `endpoint`: the user's browser (its setting, or the
    address last given to /browser connect)."""

    def __init__(self, driver: BrowserDriver, gate: PageGate, endpoint: str) -> None:
        self.driver = driver
        self.gate = gate
        self.endpoint = endpoint

    def tools(self) -> list[Tool]:
        return browser_tools(lambda: self, self.endpoint)

    def mode_line(self) -> str:
        driver = self.driver
        if driver.mode == "shared":
            return f"浏览器: 用户自己的浏览器（共享，{driver.endpoint}，Chromium {driver.version}）"
        if driver.mode == "isolated":
            return f"浏览器: 隔离的无头 Chromium {driver.version}（临时配置，没有登录状态）"
        if driver.executable is None:
            return MISSING
        return f"浏览器: 未启动（{driver.executable}；打开网页时启动隔离的无头浏览器）"

    def status(self, args: Args, ctx: ToolContext) -> ToolOutput:
        url = str(args.get("url") or "").strip() or None
        click = args.get("click")
        shot = bool(args.get("shot"))
        if self.driver.mode == "off":
            if self.driver.executable is None:
                return ToolOutput(MISSING, success=False, outside_content=False)
            if url is None:
                return ToolOutput(f"{self.mode_line()}\n给 url 打开网页。", outside_content=False)
        if url is not None:
            problem = self.gate.problem(url)
            if problem is not None:
                refused = problem.startswith(WEB_DENIED)
                return ToolOutput(problem, success=False, blocked=refused, outside_content=False)
        try:
            result = self.driver.page(url, int(click) if click is not None else None, shot, ctx.cancel)
        except BrowserError as error:
            return ToolOutput(str(error), success=False, outside_content=False)
        text = result.view.render(self.mode_line())
        if result.blocked:
            text += "\n\n页面的这些请求被拦截了:\n" + "\n".join(f"- {reason}" for reason in result.blocked)
        images: tuple[ImagePart, ...] = ()
        if result.screenshot is not None:
            images = (ImagePart.from_bytes(result.screenshot, "image/png", BROWSER_STATUS.name),)
            text += f"\n\n截图: PNG，{len(result.screenshot) // 1024 + 1} KB（模型能看图时随后附上）"
        return ToolOutput(text, images=images, metadata={"url": result.view.url})

    def connect(self, args: Args, ctx: ToolContext) -> ToolOutput:
        try:
            tabs = self.driver.connect(self.endpoint, ctx.cancel)
        except BrowserError as error:
            hint = "请用户先用 --remote-debugging-port 启动自己的浏览器，或用 /browser connect 9222 这样的端口号指定地址"
            return ToolOutput(f"{error}\n{hint}", success=False, outside_content=False)
        return ToolOutput(connected_text(self.endpoint, tabs))

    def disconnect(self, args: Args, ctx: ToolContext) -> ToolOutput:
        if not self.driver.disconnect():
            return ToolOutput("当前没有连接用户的浏览器。", outside_content=False)
        return ToolOutput(DISCONNECTED, outside_content=False)


DISCONNECTED = "已断开用户的浏览器（它继续运行）；之后 browser_status 使用隔离的无头浏览器。"


def connected_text(endpoint: str, tabs: list[tuple[str, str]]) -> str:
    lines = [f"已连接用户的浏览器（{endpoint}）。它打开着 {len(tabs)} 个标签页（只列出，不读内容）:"]
    lines += [f"- {title or '(无标题)'} — {url}" for title, url in tabs[:30]]
    lines.append("browser_status 会在新标签页里用用户的登录身份打开网页；用完请 browser_disconnect。")
    return "\n".join(lines)
