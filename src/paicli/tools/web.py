"""web_fetch and web_search (spec 9.1). Only http(s) to public addresses; every redirect is checked again.

Each hop (the first URL and every redirect) resolves its host once, checks every address, and connects to a
checked address, with the name kept for the Host header, SNI and certificate check: a DNS answer that changes
after the check (rebinding to 127.0.0.1) is never used. Through a configured proxy the proxy connects, so
there only the name is checked.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import json
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any, Protocol

from paicli.cancel import CancelToken
from paicli.config.tool_values import WebSearchValues
from paicli.tools.context import ToolContext
from paicli.tools.handlers import HTML_READER, WEB_SEARCH
from paicli.tools.schema import Args, ToolOutput

MAX_BYTES = 5 * 1024 * 1024
TIMEOUT_SECONDS = 30.0
FETCHES_PER_MINUTE = 30
USER_AGENT = "paicli/0.1 (+terminal coding agent)"
WEB_DENIED = "🛡️ 策略拒绝"

AddressCheck = Callable[[str], bool]


class Resolver(Protocol):
    """Host name -> its addresses (the system resolver; a test passes a scripted one)."""

    def __call__(self, host: str, /) -> list[str]: ...


class WebDenied(Exception):
    """The URL may not be fetched; the message is the tool result text."""


def resolve_host(host: str) -> list[str]:
    infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    return sorted({str(info[4][0]) for info in infos})


def is_public_address(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_reserved
        or ip.is_multicast
        or ip.is_unspecified
        or not ip.is_global
    )


@dataclass(frozen=True)
class UrlGate:
    resolver: Resolver = resolve_host
    address_ok: AddressCheck = is_public_address

    def check(self, url: str) -> list[str]:
        """The checked addresses of `url`'s host (resolved once); WebDenied when any is not public."""
        return self.addresses(self.host_of(url))

    def host_of(self, url: str) -> str:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme.lower() not in ("http", "https"):
            raise WebDenied(
                f"{WEB_DENIED}: web_fetch 只支持 http/https 地址，已拒绝 {parts.scheme or '无协议'}:// 链接"
            )
        host = parts.hostname
        if not host:
            raise WebDenied(f"{WEB_DENIED}: URL 缺少主机名: {url}")
        return host

    def addresses(self, host: str) -> list[str]:
        try:
            addresses = [host] if is_ip_literal(host) else self.resolver(host)
        except OSError as error:
            raise WebDenied(f"❌ 无法解析主机 {host}: {error}") from None
        if not addresses:
            raise WebDenied(f"❌ 无法解析主机 {host}")
        blocked = [a for a in addresses if not self.address_ok(a)]
        if blocked:
            raise WebDenied(
                f"{WEB_DENIED}: {host} 解析到本机、内网或保留地址（{', '.join(blocked)}），web_fetch 不访问这类地址"
            )
        return addresses


def is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


class _CheckedRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect must be http(s) with a host; its addresses are checked when its connection opens."""

    def __init__(self, gate: UrlGate) -> None:
        self._gate = gate

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
        self._gate.host_of(newurl)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


Connect = Callable[..., socket.socket]


def _pinned(gate: UrlGate, req: urllib.request.Request) -> Connect | None:
    """A connect function for http.client that only dials the addresses just checked for `req`'s host."""
    if getattr(req, "_tunnel_host", None) or req.has_proxy():
        gate.check(req.full_url)  # the proxy connects: the name is what can be checked here
        return None
    checked = gate.addresses(gate.host_of(req.full_url))

    def connect(where: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        error: OSError | None = None
        for address in checked:  # like socket.create_connection over getaddrinfo, but over checked ones
            try:
                return socket.create_connection((address, where[1]), *args, **kwargs)
            except OSError as failed:
                error = failed
        raise error or OSError(f"no address for {where[0]}")

    return connect


def _cancellable(connect: Connect | None, cancel: CancelToken) -> Connect:
    """The call's cancel shuts the socket down: a worker thread waiting for a server that accepted and never
    answers (headers, TLS handshake) ends at once instead of after the read timeout."""
    dial: Connect = connect or socket.create_connection

    def connect_and_watch(*args: Any, **kwargs: Any) -> socket.socket:
        cancel.raise_if_cancelled()
        sock = dial(*args, **kwargs)
        cancel.on_cancel(lambda: sock.shutdown(socket.SHUT_RDWR))  # a closed socket's OSError is ignored
        return sock

    return connect_and_watch


@contextlib.contextmanager
def _cancel_wins(cancel: CancelToken) -> Iterator[None]:
    """The error a cancel causes (the shut-down socket) reports as the cancel, never as a failed fetch."""
    try:
        yield
    except OSError:
        cancel.raise_if_cancelled()
        raise


def _connection(base: type[Any], connect: Connect | None) -> Callable[..., Any]:
    def build(*args: Any, **kwargs: Any) -> Any:
        conn = base(*args, **kwargs)
        if connect is not None:
            conn._create_connection = connect  # http.client's own seam for opening the socket
        return conn

    return build


def _dialer(gate: UrlGate | None, cancel: CancelToken | None, req: urllib.request.Request) -> Connect | None:
    connect = _pinned(gate, req) if gate is not None else None
    return _cancellable(connect, cancel) if cancel is not None else connect


class _PinnedHTTP(urllib.request.HTTPHandler):
    """`gate` None: any address (configured search endpoints); `cancel`: the socket closes on cancel."""

    def __init__(self, gate: UrlGate | None, cancel: CancelToken | None = None) -> None:
        super().__init__()
        self._gate = gate
        self._cancel = cancel

    def http_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(
            _connection(http.client.HTTPConnection, _dialer(self._gate, self._cancel, req)), req
        )


class _PinnedHTTPS(urllib.request.HTTPSHandler):
    """TLS still names the host (SNI, certificate check against the name), only the socket is pinned."""

    def __init__(self, gate: UrlGate | None, cancel: CancelToken | None = None) -> None:
        super().__init__()
        self._gate = gate
        self._cancel = cancel

    def https_open(self, req: urllib.request.Request) -> Any:
        build = _connection(http.client.HTTPSConnection, _dialer(self._gate, self._cancel, req))
        return self.do_open(build, req, context=getattr(self, "_context", None))


@dataclass(frozen=True)
class Page:
    url: str
    content_type: str
    body: bytes
    truncated: bool


def read_limited(
    response: IO[bytes],
    cancel: CancelToken,
    limit: int = MAX_BYTES,
    clock: Callable[[], float] | None = None,
    deadline: float | None = None,
) -> tuple[bytes, bool]:
    """Up to `limit` bytes; a server that trickles slower than `deadline` (per-read timeouts alone would
    let it run for hours) ends the read with TimeoutError."""
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        cancel.raise_if_cancelled()
        if clock is not None and deadline is not None and clock() > deadline:
            raise TimeoutError("页面没有在限定时间内读完")
        chunk = response.read(65536)
        if not chunk:
            return b"".join(chunks), False
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)[:limit], True


class WebTools:
    """Holds the gate, the rate limit and the search configuration shared by the two web tools."""

    def __init__(
        self,
        search: WebSearchValues | None = None,
        gate: UrlGate | None = None,
        clock: Callable[[], float] = time.monotonic,
        timeout: float = TIMEOUT_SECONDS,
    ) -> None:
        self._search = search or WebSearchValues()
        self._gate = gate or UrlGate()
        self._clock = clock
        self._timeout = timeout
        self._recent: deque[float] = deque()
        self._lock = threading.Lock()

    def _take_slot(self) -> bool:
        now = self._clock()
        with self._lock:
            while self._recent and now - self._recent[0] >= 60.0:
                self._recent.popleft()
            if len(self._recent) >= FETCHES_PER_MINUTE:
                return False
            self._recent.append(now)
            return True

    def get(self, url: str, cancel: CancelToken, check: bool = True) -> Page:
        deadline = self._clock() + self._timeout
        gate = self._gate if check else None
        handlers: list[Any] = [_PinnedHTTP(gate, cancel), _PinnedHTTPS(gate, cancel)]
        if gate is not None:
            gate.host_of(url)
            handlers.append(_CheckedRedirects(gate))
        opener = urllib.request.build_opener(*handlers)
        request = urllib.request.Request(
            url, headers={"User-Agent": USER_AGENT, "Accept": "text/html,*/*;q=0.8"}
        )
        with _cancel_wins(cancel), opener.open(request, timeout=self._timeout) as response:
            unregister = cancel.on_cancel(response.close)
            try:
                body, truncated = read_limited(response, cancel, MAX_BYTES, self._clock, deadline)
            finally:
                unregister()
            return Page(response.geturl(), response.headers.get("Content-Type", ""), body, truncated)

    def web_fetch(self, args: Args, ctx: ToolContext) -> ToolOutput:
        url = str(args["url"]).strip()
        max_chars = max(int(args.get("max_chars", 8000)), 200)
        if not self._take_slot():
            return ToolOutput(
                f"❌ web_fetch 调用过于频繁（每分钟最多 {FETCHES_PER_MINUTE} 次），请稍后再试",
                success=False,
                outside_content=False,
            )
        try:
            page = self.get(url, ctx.cancel)
        except WebDenied as denied:
            text = str(denied)
            return ToolOutput(text, success=False, blocked=text.startswith(WEB_DENIED), outside_content=False)
        except urllib.error.HTTPError as error:
            return ToolOutput(f"❌ 抓取失败: HTTP {error.code} {error.reason}（{url}）", success=False)
        except (urllib.error.URLError, OSError, ValueError) as error:
            reason = getattr(error, "reason", error)
            return ToolOutput(f"❌ 抓取失败: {reason}（{url}）", success=False, outside_content=False)
        return ToolOutput(render_page(page, max_chars), metadata={"url": page.url})

    def web_search(self, args: Args, ctx: ToolContext) -> ToolOutput:
        query = str(args["query"]).strip()
        top_k = min(max(int(args.get("top_k", 5)), 1), 10)
        search = WEB_SEARCH.get()
        try:
            provider = search.choose_provider(self._search)
        except search.SearchConfigError as error:
            return ToolOutput(f"❌ 未配置搜索服务: {error}", success=False, outside_content=False)
        try:
            hits = search.provider_search(self._search, provider)(self, query, top_k, ctx.cancel)
        except urllib.error.HTTPError as error:
            failure = f"❌ 搜索失败: {provider} 返回 HTTP {error.code} {error.reason}"
            return ToolOutput(failure, success=False, outside_content=False)  # the configured API's status
        except (urllib.error.URLError, OSError, ValueError) as error:
            failure = f"❌ 搜索失败（{provider}）: {getattr(error, 'reason', error)}"
            return ToolOutput(failure, success=False, outside_content=False)
        return render_results(query, [(h.title, h.url, h.snippet) for h in hits])

    # Search APIs are configured endpoints, not model-chosen URLs: they skip the public-address gate.
    def get_json(self, url: str, cancel: CancelToken) -> Any:
        return WEB_SEARCH.get().decode_json(self.get(url, cancel, check=False).body)

    def post_json(
        self, url: str, payload: dict[str, Any], headers: dict[str, str], cancel: CancelToken
    ) -> Any:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        request = urllib.request.Request(
            url,
            data=data,
            method="POST",
            headers={
                "User-Agent": USER_AGENT,
                "Content-Type": "application/json",
                "Accept": "application/json",
                **headers,
            },
        )
        deadline = self._clock() + self._timeout
        opener = urllib.request.build_opener(_PinnedHTTP(None, cancel), _PinnedHTTPS(None, cancel))
        with _cancel_wins(cancel), opener.open(request, timeout=self._timeout) as response:
            unregister = cancel.on_cancel(response.close)
            try:
                body, _ = read_limited(response, cancel, MAX_BYTES, self._clock, deadline)
            finally:
                unregister()
        return WEB_SEARCH.get().decode_json(body)


def render_results(query: str, results: list[tuple[str, str, str]]) -> ToolOutput:
    urls = [url for _, url, _ in results if url.startswith(("http://", "https://"))]
    if not results:
        return ToolOutput(f"没有找到与 {query!r} 相关的搜索结果", metadata={"discovered_urls": []})
    lines = [f"搜索结果: {query}"]
    for index, (title, url, snippet) in enumerate(results, 1):
        lines.append(
            f"{index}. {title.strip() or '(无标题)'}\n   {url}\n   {' '.join(snippet.split())[:300]}"
        )
    return ToolOutput("\n".join(lines), metadata={"discovered_urls": urls})


def render_page(page: Page, max_chars: int) -> str:
    charset = "utf-8"
    if "charset=" in page.content_type:
        charset = page.content_type.split("charset=", 1)[1].split(";")[0].strip() or "utf-8"
    try:
        raw = page.body.decode(charset, errors="replace")
    except LookupError:
        raw = page.body.decode("utf-8", errors="replace")
    is_html = "html" in page.content_type.lower() or raw.lstrip()[:200].lower().startswith(
        ("<!doctype", "<html")
    )
    title, text = HTML_READER.get()(raw) if is_html else ("", raw)
    header = [f"URL: {page.url}"] + ([f"标题: {title}"] if title else [])
    if len(text) > max_chars:
        text = text[:max_chars] + f"\n...(内容已截断，共 {len(text)} 字符；可调大 max_chars)"
    elif page.truncated:
        text += "\n...(页面超过 5MB，只读取了前 5MB)"
    return "\n".join(header) + "\n\n" + text
