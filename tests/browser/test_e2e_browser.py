"""The browser tools on a real Chromium (issue 48), through the real session, the loopback model server and the
real openai client: a scripted model opens a loopback page whose text only its script writes, clicks a
button, takes a screenshot (an image part for a model that takes images), and its saves after reading need
a person; shared mode attaches to a separately started browser and leaves it running. Every test ends with
no Chromium or Playwright driver left."""

from __future__ import annotations

import base64
import json
import subprocess
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_env, run_paicli
from paicli.tools.policy import MEMORY_EXTERNAL_CONTEXT
from tests.browser.conftest import BROWSER, browser_processes, needs_browser, wait_until
from tests.browser.pages import CLICKED, RENDERED, loopback_site
from tests.cli.served_session import command, served_parts

pytestmark = [needs_browser, pytest.mark.usefixtures("no_stray_browser")]
SECRET = "sk-browsertest0123456789abcdef"


def tool_texts(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def image_urls(body: dict[str, Any]) -> list[str]:
    urls: list[str] = []
    for message in body["messages"]:
        if message["role"] == "user" and isinstance(message["content"], list):
            urls += [p["image_url"]["url"] for p in message["content"] if p.get("type") == "image_url"]
    return urls


def call(**args: object) -> Reply:
    return Reply.tool_calls(("browser_status", json.dumps(args)))


def environments(pids: list[int]) -> list[str]:
    found = []
    for pid in pids:
        try:
            found.append((Path(f"/proc/{pid}/environ")).read_bytes().decode(errors="replace"))
        except OSError:
            continue
    return found


def test_the_model_reads_rendered_text_clicks_and_sees_a_screenshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", SECRET)  # a key in paicli's environment, and a copy under a
    monkeypatch.setenv("LC_PAICLI_COPY", SECRET)  # name the allow-list keeps: neither reaches the browser
    with loopback_site() as site, FakeOpenAIServer(default_reply="好的") as server:
        server.push(
            call(url=site),
            call(click=1, shot=True),
            Reply.tool_calls(("save_memory", json.dumps({"fact": "口令是 LANTERN-42"}, ensure_ascii=False))),
            "页面上写着口令。",
        )
        parts = served_parts(
            tmp_path,
            server.base_url,
            PAICLI_VISION="on",
            PAICLI_BROWSER_ALLOW_HOSTS="127.0.0.1",
            DEEPSEEK_API_KEY=SECRET,
        )
        backend = AppBackend(parts)
        try:
            finished = backend.run(f"打开 {site} 看看页面上写了什么", "react", lambda _: None, CancelToken())
            assert finished.status == "done", finished.error
            chromium = [pid for pid, cmd in browser_processes().items() if "chrom" in cmd.split(" ")[0]]
            seen = environments(chromium)
            assert seen and not [env for env in seen if SECRET in env]
        finally:
            backend.close()
    opened = tool_texts(server.requests[1])[-1]
    assert opened.startswith('<tool_result tool="browser_status" trust="untrusted-data">')
    assert RENDERED in opened and "（加载中）" not in opened  # the script's words, not the page source
    assert "[1] 按钮 显示更多" in opened and "隔离的无头 Chromium" in opened
    clicked = tool_texts(server.requests[2])[-1]
    assert CLICKED in clicked and "截图: PNG" in clicked
    (shot,) = image_urls(server.requests[2])
    assert base64.b64decode(shot.split(",", 1)[1]).startswith(b"\x89PNG\r\n\x1a\n")
    refused = tool_texts(server.requests[3])[-1]  # the page was outside content, as a web result is
    assert MEMORY_EXTERNAL_CONTEXT in refused and "网页或搜索结果" in parts.tracker.read_kinds()
    assert server.violations == []


def test_an_address_web_fetch_would_refuse_is_refused_before_any_browser_starts(tmp_path: Path) -> None:
    with loopback_site() as site, FakeOpenAIServer(default_reply="好的") as server:
        server.push(call(url=site), call(url="http://127.0.0.1:9/other"), "没打开")
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        try:
            backend.run(f"打开 {site}", "react", lambda _: None, CancelToken())
            assert backend.parts.browser is not None and backend.parts.browser.get().driver.mode == "off"
            assert not browser_processes()
        finally:
            backend.close()
    private, unsourced = tool_texts(server.requests[1])[-1], tool_texts(server.requests[2])[-1]
    assert "🛡️ 策略拒绝" in private and "PAICLI_BROWSER_ALLOW_HOSTS" in private
    assert "WEB_FETCH_URL_NOT_ALLOWED" in unsourced  # a URL the user never gave is not opened either


def test_a_redirect_to_an_address_not_let_through_is_never_followed(tmp_path: Path) -> None:
    """Playwright's routing never sees redirect hops: the proxy every isolated connection goes through does."""
    paths: list[str] = []
    with loopback_site(paths) as site, FakeOpenAIServer(default_reply="好的") as server:
        away = site.replace("127.0.0.1", "localhost") + "away"
        server.push(call(url=away), "没打开")
        backend = AppBackend(served_parts(tmp_path, server.base_url, PAICLI_BROWSER_ALLOW_HOSTS="localhost"))
        try:
            backend.run(f"打开 {away}", "react", lambda _: None, CancelToken())
        finally:
            backend.close()
    assert paths == ["/away"]  # the hop to 127.0.0.1 never reached the server
    assert "🛡️ 策略拒绝: 127.0.0.1" in tool_texts(server.requests[1])[-1]


def test_shared_mode_attaches_to_the_users_browser_and_leaves_it_running(tmp_path: Path) -> None:
    assert BROWSER is not None
    profile = tmp_path / "users-profile"
    flags = ["--headless=new", "--no-sandbox", "--remote-debugging-port=0", "--no-first-run"]
    users = subprocess.Popen(
        [BROWSER, *flags, f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port_file = profile / "DevToolsActivePort"
        assert wait_until(lambda: port_file.exists() and bool(port_file.read_text().strip()))
        port = port_file.read_text().split()[0]
        with loopback_site() as site, FakeOpenAIServer(default_reply="好的") as server:
            server.push(Reply.tool_calls(("browser_connect", "{}")), call(url=site))
            server.push(Reply.tool_calls(("browser_disconnect", "{}")), "完成")
            parts = served_parts(
                tmp_path,
                server.base_url,
                PAICLI_BROWSER_ALLOW_HOSTS="127.0.0.1",
                PAICLI_BROWSER_DEBUG_ADDRESS=port,
            )
            backend = AppBackend(parts)
            try:
                backend.run(f"用我的浏览器打开 {site}", "react", lambda _: None, CancelToken())
                status = command(backend, "/browser status")
            finally:
                backend.close()
        connected, opened, left = (tool_texts(server.requests[i])[-1] for i in (1, 2, 3))
        assert f"已连接用户的浏览器（http://127.0.0.1:{port}）" in connected and "about:blank" in connected
        assert RENDERED in opened and "用户自己的浏览器（共享" in opened
        assert "已断开用户的浏览器" in left
        assert "未启动" in status  # back to isolated mode, which starts at its next use
        assert users.poll() is None  # the user's browser is still running, without the tab paicli opened
        listing = urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30).read()
        assert [tab["url"] for tab in json.loads(listing) if tab["type"] == "page"] == ["about:blank"]
    finally:
        users.kill()
        users.wait()


def test_a_one_shot_run_leaves_no_browser_behind(tmp_path: Path) -> None:
    """-p opens a page and exits: the browser (children of Playwright's driver, not of this test) is gone too,
    found by the temporary folder its profile lives in."""
    # a short folder: Chromium's profile holds a unix socket, and socket paths are limited to 107 bytes
    with tempfile.TemporaryDirectory(prefix="pwtmp") as short:
        check_exit(tmp_path, Path(short))


def check_exit(tmp_path: Path, scratch: Path) -> None:
    with loopback_site() as site, FakeOpenAIServer(default_reply="好的") as server:
        server.push(call(url=site), "读完了")
        env = paicli_env(
            tmp_path, server.base_url, TMPDIR=str(scratch), PAICLI_BROWSER_ALLOW_HOSTS="127.0.0.1"
        )
        (tmp_path / "project").mkdir()
        done = run_paicli(["-p", f"打开 {site}", "--yes"], env, tmp_path / "project", timeout=120)
    assert done.returncode == 0, done.stderr
    assert RENDERED in tool_texts(server.requests[1])[-1]
    assert wait_until(lambda: not processes_mentioning(str(scratch))), processes_mentioning(str(scratch))


def processes_mentioning(text: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in cmdline:
                found.append(cmdline)
    return found
