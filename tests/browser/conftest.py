"""The browser tests need a Chromium on this machine; without one they skip, and every run's header says why."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from paicli.browser.find import find_browser

BROWSER = find_browser(None, os.environ)
NO_BROWSER = "no Chromium on PATH: the real-browser tests skip (Debian: apt-get install chromium)"
needs_browser = pytest.mark.skipif(BROWSER is None, reason=NO_BROWSER)


def pytest_report_header() -> str:
    return f"browser tests: {BROWSER}" if BROWSER else f"browser tests: {NO_BROWSER}"


def descendants(root: int) -> dict[int, str]:
    """Every living process under `root`, with its command line (from /proc)."""
    parents: dict[int, int] = {}
    commands: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] == "Z":  # exited, not yet reaped
            continue
        parents[int(entry.name)] = int(fields[1])
        commands[int(entry.name)] = cmdline
    found: dict[int, str] = {}
    for pid in parents:
        at = pid
        while at in parents and at > 1:
            at = parents[at]
            if at == root:
                found[pid] = commands[pid]
                break
    return found


def browser_processes() -> dict[int, str]:
    """Chromium and Playwright's driver among this test process's descendants."""
    return {
        pid: cmd
        for pid, cmd in descendants(os.getpid()).items()
        if "chrom" in cmd.lower() or "playwright" in cmd.lower()
    }


def wait_until(condition: Callable[[], bool], timeout: float = 60.0) -> bool:
    """Polls for an event the system gives no notice of (a process gone), for at most `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


@pytest.fixture
def no_stray_browser() -> Iterator[None]:
    """The test leaves no Chromium or Playwright driver behind (checked once the session is closed)."""
    yield
    assert wait_until(lambda: not browser_processes()), browser_processes()
