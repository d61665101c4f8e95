"""`/browser [status|connect [<地址>]|disconnect]`: the session's browser, and switching to the user's own
one (shared mode) or back. Connecting says first what the model will see and asks at a terminal."""

from __future__ import annotations

from paicli.browser.driver import BrowserError
from paicli.browser.tools import DISCONNECTED, BrowserTools, connected_text
from paicli.cli.backend import CommandReply
from paicli.cli.command_forms import Form
from paicli.cli.commands import CommandContext, is_yes
from paicli.cli.render import say
from paicli.config.knob_types import debug_endpoint
from paicli.tools.browser_specs import consent_text

BROWSER_FORMS = (
    Form("status", "浏览器的模式、版本和标签页"),
    Form("connect [<地址>]", "改用你自己的浏览器（先用 --remote-debugging-port 启动它；默认 9222）"),
    Form("disconnect", "断开你的浏览器，回到隔离的无头浏览器"),
)
NO_BROWSER = "浏览器工具不可用。"


def browser_args(args: str) -> bool:
    words = args.split()
    if not words:
        return True
    word = words[0].lower()
    return (word in ("status", "disconnect") and len(words) == 1) or (word == "connect" and len(words) <= 2)


def browser(ctx: CommandContext, args: str) -> None:
    if ctx.session.parts.browser is None:
        ctx.reply(CommandReply(NO_BROWSER, ok=False))
        return
    tools = ctx.session.parts.browser.get()
    words = args.split()
    word = words[0].lower() if words else "status"
    if word == "connect":
        _connect(ctx, tools, words[1] if len(words) > 1 else None)
    elif word == "disconnect":
        done = tools.driver.disconnect()
        ctx.reply(CommandReply(DISCONNECTED if done else "当前没有连接你的浏览器。"))
    else:
        ctx.reply(CommandReply(status_text(tools)))


def status_text(tools: BrowserTools) -> str:
    lines = [tools.mode_line(), f"你的浏览器的调试地址: {tools.endpoint}（/browser connect 连接）"]
    if tools.driver.mode == "shared":
        tabs = tools.driver.tabs()
        lines.append(f"标签页 {len(tabs)} 个:")
        lines += [f"  - {title or '(无标题)'} — {url}" for title, url in tabs[:30]]
    return "\n".join(lines)


def _connect(ctx: CommandContext, tools: BrowserTools, given: str | None) -> None:
    try:
        endpoint = debug_endpoint(given) if given else tools.endpoint
    except ValueError as error:
        ctx.reply(CommandReply(f"❌ {error}", ok=False))
        return
    if ctx.io.interactive:
        say(ctx.io.console, consent_text(endpoint), "yellow")
        if not is_yes(ctx.io.ask("确认连接？(y/N) ") or ""):
            say(ctx.io.console, "↩️ 没有连接", "dim")
            return
    try:
        tabs = tools.driver.connect(endpoint)
    except BrowserError as error:
        ctx.reply(
            CommandReply(f"{error}\n先用 --remote-debugging-port=<端口> 启动你的浏览器再连接。", ok=False)
        )
        return
    tools.endpoint = endpoint
    ctx.reply(CommandReply(connected_text(endpoint, tabs)))
