"""One Chromium for the session, driven through Playwright's async API on a background asyncio thread.

Isolated mode (the default): Playwright launches the Chromium found on this machine, headless, in a fresh
temporary profile that is deleted when it closes; it reaches the network only through `GateProxy`, and every
request Playwright sees also passes `PageGate` first (for a refusal the model can read). Shared mode
(`connect`): Playwright attaches to the user's running browser at its DevTools address and works in one new tab
of the user's default profile (their logins); that tab's requests pass the gate, the user's other tabs are only
listed. Playwright is imported on the browser thread at first use, never on the path to the prompt; nothing
is downloaded (the browser is the system's). The browser gets an allow-listed environment without paicli's keys.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import CancelledError as FutureCancelled
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from paicli.browser.gate import PageGate
from paicli.browser.page_text import MAX_ELEMENTS, REF_ATTRIBUTE, SNAPSHOT_SCRIPT, PageView
from paicli.browser.proxy import GateProxy
from paicli.cancel import Cancelled, CancelToken

log = logging.getLogger(__name__)
Mode = Literal["off", "isolated", "shared"]
T = TypeVar("T")
ACTION_TIMEOUT = 30.0  # seconds for one navigation, click or screenshot
SETTLE_MS = 5000  # how long a page may keep loading (network idle) before it is read as it is
VIEWPORT = {"width": 1280, "height": 800}


class BrowserError(Exception):
    """An action that could not be done; the message is meant for the model and the user."""


@dataclass(frozen=True)
class PageResult:
    view: PageView
    screenshot: bytes | None
    blocked: tuple[str, ...]  # requests of the page the gate refused during this action (their reasons)


class BrowserDriver:
    def __init__(
        self, executable: str | None, env: Mapping[str, str], gate: PageGate, timeout: float = ACTION_TIMEOUT
    ) -> None:
        """`executable`: the Chromium to launch (None: none on this machine); `env`: the browser's whole
        environment (already cut to an allow-list)."""
        self.executable = executable
        self._env = dict(env)
        self._gate = gate
        self._timeout = timeout
        self._lock = threading.Lock()  # one action at a time: they share the current page
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._closed = False
        # browser-thread state
        self._playwright: Any = None
        self._browser: Any = None
        self._page: Any = None
        self._opened: list[Any] = []  # the tabs paicli opened (shared mode closes them when it detaches)
        self._blocked: list[str] = []
        self._proxy: GateProxy | None = None
        self.mode: Mode = "off"
        self.endpoint = ""  # shared mode: the user's DevTools address
        self.version = ""

    # ---- the thread -----------------------------------------------------------------------------------------

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        if self._closed:
            raise BrowserError("浏览器已关闭")
        if self._loop is None:
            ready = threading.Event()
            loop = asyncio.new_event_loop()

            def run() -> None:
                asyncio.set_event_loop(loop)
                ready.set()
                loop.run_forever()

            self._thread = threading.Thread(target=run, name="paicli-browser", daemon=True)
            self._thread.start()
            ready.wait()
            self._loop = loop
            atexit.register(self.close)  # no Chromium outlives paicli
        return self._loop

    def _run(self, make: Callable[[], Awaitable[T]], cancel: CancelToken | None, timeout: float) -> T:
        loop = self._ensure_loop()

        async def wrapped() -> T:
            return await make()

        future: Future[T] = asyncio.run_coroutine_threadsafe(wrapped(), loop)
        unregister = cancel.on_cancel(lambda: _cancel(future)) if cancel else _nothing
        try:
            return future.result(timeout=timeout)
        except FutureCancelled:
            raise Cancelled() from None
        except FutureTimeout:
            future.cancel()
            raise BrowserError(f"浏览器操作超过 {timeout:g} 秒没有完成") from None
        finally:
            unregister()

    # ---- actions (any thread) -------------------------------------------------------------------------------

    def page(
        self, url: str | None, click: int | None, shot: bool, cancel: CancelToken | None = None
    ) -> PageResult:
        """Open `url` (starting the isolated browser when none runs), click element `click` of the last listing,
        then read the page (and take a screenshot)."""
        with self._lock:
            return self._run(lambda: self._page_action(url, click, shot), cancel, self._timeout * 3)

    def connect(self, endpoint: str, cancel: CancelToken | None = None) -> list[tuple[str, str]]:
        """Attach to the user's browser at `endpoint`; its open tabs (title, URL)."""
        with self._lock:
            return self._run(lambda: self._connect(endpoint), cancel, self._timeout)

    def disconnect(self) -> bool:
        """Leave shared mode (the user's browser keeps running); False when not connected."""
        with self._lock:
            if self.mode != "shared" or self._loop is None:
                return False
            self._run(self._stop_browser, None, self._timeout)
            return True

    def tabs(self) -> list[tuple[str, str]]:
        with self._lock:
            if self.mode == "off" or self._loop is None:
                return []
            return self._run(self._tabs, None, self._timeout)

    def close(self) -> None:
        """Stop the browser (shared: only detach) and the thread; idempotent."""
        if self._closed:
            return
        self._closed = True
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(timeout=self._timeout)
        except Exception:  # a browser that will not stop still has its process group ended by Playwright
            log.exception("browser shutdown failed")
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=self._timeout)
        with contextlib.suppress(Exception):
            atexit.unregister(self.close)

    # ---- browser thread ---------------------------------------------------------------------------------------

    async def _playwright_started(self) -> Any:
        if self._playwright is None:
            from playwright.async_api import async_playwright

            self._playwright = await async_playwright().start()
        return self._playwright

    async def _launch(self) -> None:
        if self.executable is None:
            from paicli.browser.find import MISSING

            raise BrowserError(MISSING)
        playwright = await self._playwright_started()
        if self._proxy is None:
            self._proxy = GateProxy(self._gate.dial)
            await self._proxy.start()
        browser = await playwright.chromium.launch(
            executable_path=self.executable,
            headless=True,
            env=self._env,
            timeout=self._timeout * 1000,
            args=[
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                # every connection through the gate, loopback too (Chromium would otherwise bypass it there)
                f"--proxy-server=http://127.0.0.1:{self._proxy.port}",
                "--proxy-bypass-list=<-loopback>",
            ],
        )
        context = await browser.new_context(
            viewport=VIEWPORT, service_workers="block", accept_downloads=False
        )
        await context.route("**/*", self._route)
        self._browser, self.mode, self.version = browser, "isolated", browser.version
        self._page = await self._new_page(context, routed=False)

    async def _new_page(self, context: Any, *, routed: bool) -> Any:
        page = await context.new_page()
        if routed:
            await page.route("**/*", self._route)
        page.on("dialog", lambda dialog: asyncio.ensure_future(dialog.dismiss()))
        page.on("popup", lambda popup: asyncio.ensure_future(self._follow(popup, routed)))
        page.set_default_timeout(self._timeout * 1000)
        self._opened.append(page)
        return page

    async def _follow(self, popup: Any, routed: bool) -> None:
        """A link that opens a new tab: work on in that tab (shared mode gates it like our own)."""
        if routed:
            await popup.route("**/*", self._route)
        popup.on("dialog", lambda dialog: asyncio.ensure_future(dialog.dismiss()))
        self._opened.append(popup)
        self._page = popup

    async def _route(self, route: Any) -> None:
        url = route.request.url
        problem = await asyncio.get_running_loop().run_in_executor(None, self._gate.problem, url)
        if problem is None:
            await route.continue_()
            return
        self._blocked.append(problem)
        await route.abort("blockedbyclient")

    async def _page_action(self, url: str | None, click: int | None, shot: bool) -> PageResult:
        from playwright.async_api import Error as PlaywrightError

        self._blocked = []
        try:
            if self._page is None:
                await self._launch()
            page = self._page
            if url:
                response = await page.goto(url, wait_until="load")
                await self._refuse_redirects(response)
                await self._settle()
            if click is not None:
                target = page.locator(f'[{REF_ATTRIBUTE}="{click}"]')
                if await target.count() == 0:
                    raise BrowserError(f"当前页面没有编号为 {click} 的元素，请先读取页面再用列出的编号")
                await target.first.click()
                await self._settle()
            page = self._page  # a click may have opened a new tab
            view = PageView.from_script(page.url, await page.evaluate(SNAPSHOT_SCRIPT, MAX_ELEMENTS))
            image = await page.screenshot(type="png") if shot else None
        except PlaywrightError as error:
            raise BrowserError(_short(error, self._blocked)) from None
        return PageResult(view, image, tuple(dict.fromkeys(self._blocked)))

    async def _refuse_redirects(self, response: Any) -> None:
        """Shared mode has no proxy (the user's browser keeps its own network): a redirect hop of the page
        that the gate refuses drops the page before anything of it is read."""
        request = response.request if response is not None else None
        while request is not None:
            problem = await asyncio.get_running_loop().run_in_executor(None, self._gate.problem, request.url)
            if problem is not None:
                await self._page.goto("about:blank")
                raise BrowserError(problem)
            request = request.redirected_from

    async def _settle(self) -> None:
        """Let the page's scripts finish their requests (bounded: a page that polls forever is read as is)."""
        from playwright.async_api import Error as PlaywrightError

        with contextlib.suppress(PlaywrightError):
            await self._page.wait_for_load_state("networkidle", timeout=SETTLE_MS)

    async def _connect(self, endpoint: str) -> list[tuple[str, str]]:
        from playwright.async_api import Error as PlaywrightError

        await self._stop_browser()
        playwright = await self._playwright_started()
        try:
            browser = await playwright.chromium.connect_over_cdp(endpoint, timeout=self._timeout * 1000)
        except PlaywrightError as error:
            raise BrowserError(f"连接不上 {endpoint} 的浏览器：{_first_line(error)}") from None
        context = browser.contexts[0] if browser.contexts else await browser.new_context()
        self._browser, self.mode, self.endpoint, self.version = browser, "shared", endpoint, browser.version
        tabs = await self._tabs()
        self._page = await self._new_page(context, routed=True)
        return tabs

    async def _tabs(self) -> list[tuple[str, str]]:
        if self._browser is None:
            return []
        listed: list[tuple[str, str]] = []
        for context in self._browser.contexts:
            for page in context.pages:
                with contextlib.suppress(Exception):
                    listed.append((await page.title(), page.url))
        return listed

    async def _stop_browser(self) -> None:
        """Isolated: close the browser (its profile goes with it). Shared: close our tab and detach."""
        browser, opened, shared = self._browser, self._opened, self.mode == "shared"
        self._browser, self._page, self._opened, self.mode, self.endpoint = None, None, [], "off", ""
        if browser is None:
            return
        for page in opened if shared else ():
            with contextlib.suppress(Exception):
                await page.close()
        with contextlib.suppress(Exception):
            await browser.close()

    async def _shutdown(self) -> None:
        await self._stop_browser()
        if self._proxy is not None:
            await self._proxy.stop()
            self._proxy = None
        if self._playwright is not None:
            with contextlib.suppress(Exception):
                await self._playwright.stop()
            self._playwright = None


def _nothing() -> None:
    return None


def _cancel(future: Future[Any]) -> None:
    future.cancel()


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _short(error: BaseException, blocked: list[str]) -> str:
    """Playwright's message, first line only; a navigation our gate stopped says why instead."""
    text = _first_line(error)
    if "ERR_BLOCKED_BY_CLIENT" in text and blocked:
        return blocked[-1]
    if "Timeout" in type(error).__name__ or "Timeout" in text:
        return f"❌ 页面没有在限定时间内完成：{text}"
    return f"❌ 浏览器操作失败：{text}"
