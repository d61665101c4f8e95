"""A cancelled web call frees its worker thread even when the server accepted and never answers (issue 25).

The read timeout is 600 s, so a thread that ignored the cancel would fail the generous joins below; no test
measures time (evals/bench_cancel.py does).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.tools.base import CANCELLED_PREFIX
from paicli.tools.web import UrlGate, WebTools

from .helpers import make_runner, run

JOIN_SECONDS = 60.0


class SilentServer:
    """Accepts connections and never sends a byte."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.accepted = threading.Event()
        self.connections: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections.append(conn)
            self.accepted.set()

    def close(self) -> None:
        self.sock.close()
        for conn in self.connections:
            conn.close()


@pytest.fixture
def silent() -> Iterator[SilentServer]:
    server = SilentServer()
    yield server
    server.close()


def _web() -> WebTools:
    return WebTools(gate=UrlGate(address_ok=lambda address: address == "127.0.0.1"), timeout=600)


def _cancel_while_waiting(
    silent: SilentServer, call: Callable[[CancelToken], object]
) -> BaseException | None:
    cancel = CancelToken()
    raised: list[BaseException] = []

    def work() -> None:
        try:
            call(cancel)
        except BaseException as error:
            raised.append(error)

    worker = threading.Thread(target=work)
    worker.start()
    assert silent.accepted.wait(JOIN_SECONDS)
    cancel.cancel()
    worker.join(JOIN_SECONDS)
    assert not worker.is_alive(), "the call kept waiting for the silent server after the cancel"
    return raised[0] if raised else None


def test_cancel_ends_a_fetch_waiting_for_headers(silent: SilentServer) -> None:
    web = _web()
    error = _cancel_while_waiting(silent, lambda cancel: web.get(silent.url + "/page", cancel))
    assert error is not None  # the shut-down socket ends the wait with an error, never with a page


def test_cancel_ends_a_search_post_waiting_for_headers(silent: SilentServer) -> None:
    web = _web()
    error = _cancel_while_waiting(
        silent, lambda cancel: web.post_json(silent.url + "/q", {"q": "x"}, {}, cancel)
    )
    assert error is not None


def test_cancelled_web_fetch_returns_cancelled_and_its_worker_thread_ends(
    project: Path, silent: SilentServer
) -> None:
    runner = make_runner(project, web=_web())
    url = silent.url + "/page"
    cancel = CancelToken()
    threading.Thread(
        target=lambda: (silent.accepted.wait(JOIN_SECONDS), cancel.cancel()), daemon=True
    ).start()
    [result] = run(runner, ("web_fetch", f'{{"url":"{url}"}}'), text=f"抓取 {url}", cancel=cancel)
    assert CANCELLED_PREFIX in result.content and not result.success
    workers = [t for t in threading.enumerate() if t.name.startswith("paicli-tool")]
    for worker in workers:
        worker.join(JOIN_SECONDS)
    assert not any(worker.is_alive() for worker in workers)
