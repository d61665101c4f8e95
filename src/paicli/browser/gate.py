"""What the browser may load, checked like web_fetch's addresses.

Every request (the page, its redirects, scripts, frames, images, the links the model clicks) goes through
`PageGate`: http(s) only, and a host that resolves to a loopback, private, link-local or reserved address is
refused unless the user listed it (the allowed-hosts setting). The isolated browser's proxy (proxy.py) dials
only the addresses `addresses` returned; Playwright's routing asks `problem` first, for a refusal the model
can read.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass, field

from paicli.config import knobs_browser as knobs
from paicli.tools.web import WEB_DENIED, UrlGate, WebDenied, is_ip_literal

# Parts of the page itself (inline data, generated blobs, the blank page): no address is contacted.
_LOCAL_SCHEMES = frozenset({"data", "blob", "about"})


@dataclass(frozen=True)
class PageGate:
    allowed_hosts: frozenset[str] = frozenset()  # lower-case host names or addresses the user let through
    gate: UrlGate = field(default_factory=UrlGate)

    def problem(self, url: str) -> str | None:
        """None when the browser may load `url`, else the refusal (meant for the model)."""
        scheme = urllib.parse.urlsplit(url).scheme.lower()
        if scheme in _LOCAL_SCHEMES:
            return None
        if scheme not in ("http", "https"):
            return f"{WEB_DENIED}: 浏览器只打开 http/https 地址，已拒绝 {scheme or '无协议'}: 链接"
        try:
            host = self.gate.host_of(url)
        except WebDenied as denied:
            return str(denied)
        found = self.addresses(host)
        return found if isinstance(found, str) else None

    def addresses(self, host: str) -> list[str] | str:
        """The addresses the browser may connect to for `host` (resolved once), or the refusal."""
        host = host.strip("[]")
        try:
            if host.lower() in self.allowed_hosts:
                return [host] if is_ip_literal(host) else self.gate.resolver(host)
            return self.gate.addresses(host)
        except OSError as error:
            return f"❌ 无法解析主机 {host}: {error}"
        except WebDenied as denied:
            if not str(denied).startswith(WEB_DENIED):
                return str(denied)  # the name does not resolve
            return (
                f"{WEB_DENIED}: {host} 是本机、内网或保留地址，浏览器和 web_fetch 一样不打开这类地址"
                f"（用户可用 {knobs.BROWSER_ALLOW_HOSTS.key} 放行）"
            )

    def dial(self, host: str, port: int) -> list[str] | str:
        """For the proxy: the checked addresses of `host` (any port), or the refusal."""
        return self.addresses(host)
