"""The browser's parts that need no browser: which addresses a page may reach (the same check as web_fetch, with
the user's allow-list), the user's DevTools address (this machine only), finding Chromium, what the model reads
of a page, the tools' facts for the policies, and a session on a machine without Chromium (one line, nothing
started, the rest unaffected)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from paicli.browser.driver import BrowserDriver
from paicli.browser.find import MISSING, find_browser
from paicli.browser.gate import PageGate
from paicli.browser.page_text import PageView
from paicli.browser.tools import BROWSER_CONNECT, BROWSER_DISCONNECT, BROWSER_STATUS, BrowserTools
from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.config import knobs_browser as knobs
from paicli.config.env import ConfigError, EnvLookup
from paicli.config.knob_types import debug_endpoint
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.tools.approval import ApprovalState
from paicli.tools.context import ToolContext
from paicli.tools.guards import PathGuard
from paicli.tools.policy import content_kind
from paicli.tools.web import UrlGate
from tests.cli.served_session import command, served_parts

HOSTS = {
    "example.com": ["93.184.216.34"],
    "intranet.corp": ["10.1.2.3"],
    "mixed.example": ["8.8.8.8", "127.0.0.1"],
}


def resolve(host: str) -> list[str]:
    if host not in HOSTS:
        raise OSError("no such host")
    return HOSTS[host]


def gate(*allowed: str) -> PageGate:
    return PageGate(frozenset(allowed), UrlGate(resolver=resolve))


def test_a_page_reaches_public_addresses_and_its_own_data_only() -> None:
    assert gate().problem("https://example.com/docs?q=1") is None
    for local in ("data:text/html,<p>x</p>", "blob:https://example.com/1234", "about:blank"):
        assert gate().problem(local) is None
    for private in (
        "http://intranet.corp/",
        "http://127.0.0.1:8080/",
        "http://[::1]/",
        "http://mixed.example/",
    ):
        refused = gate().problem(private)
        assert (
            refused is not None
            and refused.startswith("🛡️ 策略拒绝")
            and "PAICLI_BROWSER_ALLOW_HOSTS" in refused
        )
    for scheme in ("file:///etc/passwd", "chrome://settings", "javascript:alert(1)", "ftp://example.com/"):
        refused = gate().problem(scheme)
        assert refused is not None and "只打开 http/https" in refused
    unknown = gate().problem("http://nowhere.invalid/")
    assert unknown is not None and "无法解析" in unknown


def test_the_user_lets_named_hosts_through_and_no_others() -> None:
    allowed = gate("127.0.0.1", "intranet.corp")
    assert allowed.problem("http://127.0.0.1:8080/app") is None
    assert allowed.problem("http://INTRANET.corp/wiki") is None
    assert allowed.problem("http://10.1.2.3/") is not None  # the address itself was not listed


def test_the_users_browser_is_reached_on_this_machine_only() -> None:
    assert debug_endpoint(None) == "http://127.0.0.1:9222"
    assert debug_endpoint("9333") == "http://127.0.0.1:9333"
    assert debug_endpoint("localhost:9444") == "http://localhost:9444"
    assert debug_endpoint("http://[::1]:9222") == "http://[::1]:9222"
    for bad in ("10.0.0.8:9222", "example.com:9222", "chrome", "127.0.0.1"):
        with pytest.raises(ValueError):
            debug_endpoint(bad)
    env = EnvLookup({"PAICLI_BROWSER_DEBUG_ADDRESS": "192.168.1.5:9222"})
    with pytest.raises(ConfigError, match="不是本机地址"):
        knobs.BROWSER_DEBUG_ADDRESS.read(env)


def executable(folder: Path, name: str) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_chromium_is_found_by_setting_or_on_path(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    chrome = executable(bin_dir, "google-chrome")
    assert find_browser(None, {"PATH": str(bin_dir)}) == str(chrome)
    chromium = executable(bin_dir, "chromium")  # the first known name wins
    assert find_browser(None, {"PATH": str(bin_dir)}) == str(chromium)
    mine = executable(tmp_path / "opt", "my-chrome")
    assert find_browser(str(mine), {"PATH": str(bin_dir)}) == str(mine)
    assert find_browser(str(tmp_path / "gone"), {"PATH": str(bin_dir)}) is None
    assert find_browser(None, {"PATH": str(tmp_path / "empty")}) is None


def test_the_model_reads_text_and_numbered_elements_within_a_limit() -> None:
    raw = {
        "title": "登录",
        "text": "欢迎\n\n   \n" + "字" * 50,
        "elements": [
            {"ref": 1, "tag": "a", "label": "首页"},
            {"ref": 2, "tag": "input", "type": "submit", "label": "登录"},
            {"ref": 3, "tag": "input", "type": "password", "label": ""},
            {"ref": "x", "tag": "button"},  # not a listing the page script makes: dropped
        ],
    }
    view = PageView.from_script("https://example.com/login", raw)
    text = view.render("浏览器: 测试", max_chars=20)
    assert text.splitlines()[:3] == ["浏览器: 测试", "URL: https://example.com/login", "标题: 登录"]
    assert "欢迎\n" + "字" * 17 + "\n...(正文已截断，共 53 字符)" in text
    assert text.endswith("[1] 链接 首页\n[2] 按钮 登录\n[3] 输入框(password)")
    assert "(页面没有文字)" in PageView.from_script("about:blank", None).render("m")


def test_the_tools_state_what_the_policies_need() -> None:
    for spec in (BROWSER_STATUS, BROWSER_CONNECT, BROWSER_DISCONNECT):
        assert spec.external and not spec.snapshot_first  # outside content; files untouched
    assert BROWSER_STATUS.url_param == "url" and BROWSER_STATUS.web and BROWSER_CONNECT.web
    assert content_kind(BROWSER_STATUS) == "网页或搜索结果"  # the memory guard names it like a web result
    tools = BrowserTools(BrowserDriver(None, {}, PageGate()), PageGate(), "http://127.0.0.1:9222")
    connect = next(tool.spec for tool in tools.tools() if tool.spec.name == "browser_connect")
    need = ApprovalState("auto").needs_approval(connect, {})
    assert need is not None and "http://127.0.0.1:9222" in need.reason and "所有标签页" in need.reason
    assert ApprovalState("auto").needs_approval(BROWSER_STATUS, {"url": "https://example.com"}) is None


def test_without_chromium_the_tools_say_how_to_get_one_and_start_nothing(tmp_path: Path) -> None:
    driver = BrowserDriver(None, {}, PageGate())
    tools = BrowserTools(driver, PageGate(), "http://127.0.0.1:9222")
    ctx = ToolContext(tmp_path, PathGuard(tmp_path), CancelToken())
    out = tools.status({"url": "https://example.com"}, ctx)
    assert (out.content, out.success, out.outside_content) == (MISSING, False, False)
    assert len(MISSING.splitlines()) == 1 and "apt-get install chromium" in MISSING
    assert tools.disconnect({}, ctx).content == "当前没有连接用户的浏览器。"
    assert driver.mode == "off" and driver._thread is None  # no thread, no process
    driver.close()


def test_a_session_without_chromium_goes_on_and_says_so(tmp_path: Path) -> None:
    with FakeOpenAIServer(default_reply="好的") as server:
        server.push(
            Reply.tool_calls(("browser_status", json.dumps({"url": "https://example.com/"}))), "没有浏览器"
        )
        parts = served_parts(tmp_path, server.base_url, PAICLI_BROWSER=str(tmp_path / "no-chrome"))
        backend = AppBackend(parts)
        try:
            finished = backend.run("打开 https://example.com/ 看看", "react", lambda _: None, CancelToken())
            status = command(backend, "/browser")
            refused = command(backend, "/browser connect 10.0.0.1:9222")
        finally:
            backend.close()
    assert finished.status == "done" and server.violations == []
    tool = next(m for m in server.requests[1]["messages"] if m["role"] == "tool")
    assert MISSING in tool["content"]
    assert MISSING in status and "http://127.0.0.1:9222" in status
    assert "不是本机地址" in refused
    assert parts.tracker.read_kinds() == []  # paicli's own words: nothing from outside was read
