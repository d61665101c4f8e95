"""The isolated browser reaches the network only through this loopback proxy, which applies `PageGate` to every
connection: the page, each redirect hop (Playwright's routing never sees those), frames in other processes,
workers and sockets alike. It dials the addresses it checked, never a second DNS answer, so a name that
rebinds to 127.0.0.1 after the check is not followed (the pinning web_fetch does). Plain http requests are
forwarded with their absolute URL rewritten; https and WebSockets pass as CONNECT tunnels (TLS stays between
Chromium and the site). Whatever bytes a connection carries, they only ever go to a checked address."""

from __future__ import annotations

import asyncio
import contextlib
import urllib.parse
from collections.abc import Callable

Check = Callable[[str, int], "list[str] | str"]  # host, port -> checked addresses, or the refusal text
_HEADER_LIMIT = 64 * 1024


class GateProxy:
    def __init__(self, check: Check) -> None:
        self._check = check
        self._server: asyncio.AbstractServer | None = None
        self.port = 0

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self.port

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._one(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        if len(head) > _HEADER_LIMIT:
            return
        first, _, rest = head.partition(b"\r\n")
        method, target, version = first.decode("latin-1").split(" ", 2)
        if method.upper() == "CONNECT":
            host, _, port_text = target.rpartition(":")
            host, port, forward = host.strip("[]"), int(port_text), b""
        else:
            parts = urllib.parse.urlsplit(target)
            if parts.scheme != "http" or not parts.hostname:
                await _refuse(writer, "只转发 http 请求")
                return
            host, port = parts.hostname, parts.port or 80
            path = urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, ""))
            forward = f"{method} {path} {version}\r\n".encode("latin-1") + _without_proxy_headers(rest)
        checked = await asyncio.get_running_loop().run_in_executor(None, self._check, host, port)
        if isinstance(checked, str):
            await _refuse(writer, checked)
            return
        upstream = await _dial(checked, port)
        if upstream is None:
            await _refuse(writer, f"连接不上 {host}:{port}", status=b"502 Bad Gateway")
            return
        up_reader, up_writer = upstream
        if forward:
            up_writer.write(forward)
        else:
            writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))


def _without_proxy_headers(rest: bytes) -> bytes:
    lines = [line for line in rest.split(b"\r\n") if not line.lower().startswith(b"proxy-")]
    return b"\r\n".join(lines)


async def _dial(addresses: list[str], port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
    for address in addresses:
        with contextlib.suppress(OSError):
            return await asyncio.open_connection(address, port)
    return None


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while chunk := await source.read(65536):
            sink.write(chunk)
            await sink.drain()
    except OSError:
        pass
    finally:
        with contextlib.suppress(Exception):
            sink.close()


async def _refuse(writer: asyncio.StreamWriter, reason: str, status: bytes = b"403 Forbidden") -> None:
    body = reason.encode("utf-8")
    writer.write(
        b"HTTP/1.1 " + status + b"\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    with contextlib.suppress(Exception):
        await writer.drain()
