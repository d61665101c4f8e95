"""The proxy the isolated browser goes through (no browser needed): it forwards plain http and tunnels CONNECT to
checked addresses only, and answers a refusal with the gate's words."""

from __future__ import annotations

import asyncio

from paicli.browser.proxy import GateProxy
from tests.browser.pages import RENDERED, loopback_site


def check(host: str, port: int) -> list[str] | str:
    return ["127.0.0.1"] if host == "site.test" else f"🛡️ 策略拒绝: {host}"


async def exchange(port: int, request: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    data = await reader.read()
    writer.close()
    return data


async def scenario(site_port: int) -> tuple[bytes, bytes, bytes]:
    proxy = GateProxy(check)
    port = await proxy.start()
    try:
        forwarded = await exchange(
            port,
            f"GET http://site.test:{site_port}/api/words HTTP/1.1\r\nHost: site.test\r\n"
            "Proxy-Connection: keep-alive\r\nConnection: close\r\n\r\n".encode(),
        )
        refused = await exchange(
            port, b"CONNECT intranet.corp:443 HTTP/1.1\r\nHost: intranet.corp:443\r\n\r\n"
        )
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"CONNECT site.test:{site_port} HTTP/1.1\r\n\r\n".encode())
        await reader.readuntil(b"\r\n\r\n")  # the tunnel is up; what follows is the site's own traffic
        writer.write(b"GET /api/words HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n")
        tunnelled = await reader.read()
        writer.close()
        return forwarded, refused, tunnelled
    finally:
        await proxy.stop()


def test_only_checked_addresses_are_reached() -> None:
    paths: list[str] = []
    with loopback_site(paths) as site:
        site_port = int(site.rsplit(":", 1)[1].strip("/"))
        forwarded, refused, tunnelled = asyncio.run(scenario(site_port))
    assert forwarded.startswith(b"HTTP/1.0 200") and RENDERED.encode() in forwarded
    assert refused.startswith(b"HTTP/1.1 403") and "🛡️ 策略拒绝: intranet.corp".encode() in refused
    assert RENDERED.encode() in tunnelled
    assert paths == [
        "/api/words",
        "/api/words",
    ]  # forwarded once, tunnelled once; the refusal dialled nothing
