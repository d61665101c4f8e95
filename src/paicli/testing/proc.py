"""Run paicli as a real subprocess against the loopback fake server, with an isolated home."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, NamedTuple

from paicli.testing import forkrun
from paicli.testing.isolated_env import ISOLATED_PREFIXES
from paicli.testing.openai_server import FakeOpenAIServer, Responder


def paicli_env(home: Path, base_url: str | None, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(ISOLATED_PREFIXES)}
    env.update(
        {
            "HOME": str(home),
            "PAICLI_HOME": str(home / ".paicli"),
            "PAICLI_LLM_RETRY_BACKOFF": "0.01",
            "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "false",
            "PAICLI_MEMORY_JUDGE": "false",  # side requests only where a test asks for them
            "PYTHONUNBUFFERED": "1",
            "PAICLI_LOCAL_PORTS": "off",
        }
    )  # a subprocess never probes loopback ports unless a test asks
    if base_url is not None:
        env.update({"PAICLI_BASE_URL": base_url, "PAICLI_MODEL": "fake-model"})
    env.update(extra)
    return env


def paicli_command(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "paicli", *args]


def ignoring_sigint(command: list[str]) -> list[str]:
    """`command` started the way a background job in a script starts: with SIGINT ignored (inherited on exec)."""
    launcher = "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); os.execv(sys.argv[1], sys.argv[1:])"
    return [sys.executable, "-c", launcher, *command]


def run_paicli(
    args: list[str], env: dict[str, str], cwd: Path, stdin: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """`paicli args` to its end, its output captured. Forked from a server that has imported paicli already
    (testing/forkrun.py) unless the suite's environment turns that off."""
    if forkrun.enabled():
        return forkrun.forked_run(paicli_command(args), args, env, cwd, stdin, timeout)
    kwargs: dict[str, Any] = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
    return subprocess.run(
        paicli_command(args), env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, **kwargs
    )


def start_paicli(
    args: list[str],
    env: dict[str, str],
    cwd: Path,
    *,
    stdin: int = subprocess.DEVNULL,
    output: int = subprocess.PIPE,
    new_session: bool = False,
) -> subprocess.Popen[str]:
    """A paicli process the test drives or signals itself. `output`: where stdout and stderr go;
    `new_session`: its own process group (to kill what it started too)."""
    streams: dict[str, Any] = {"stdin": stdin, "stdout": output, "stderr": output}
    return subprocess.Popen(
        paicli_command(args), env=env, cwd=cwd, text=True, start_new_session=new_session, **streams
    )


def message_text(message: dict[str, Any]) -> str:
    """A request message's content as text (a list of content parts as its JSON)."""
    content = message.get("content")
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


def ledger_entries(home: Path) -> list[dict[str, Any]]:
    """The entries of the one session ledger under `home`."""
    files = sorted((home / ".paicli" / "history" / "raw").glob("*.jsonl"))
    assert len(files) == 1, files
    return [json.loads(line) for line in files[0].read_text(encoding="utf-8").splitlines()]


class ServedRun(NamedTuple):
    done: subprocess.CompletedProcess[str]
    requests: list[dict[str, Any]]
    times: list[tuple[float, float | None]]  # parallel to requests: FakeOpenAIServer.request_times


def run_served(respond: Responder, args: list[str], home: Path, stdin: str | None = None) -> ServedRun:
    """One paicli run (in `home`, also its working directory) against a fresh fake server that saw only valid
    requests."""
    with FakeOpenAIServer(responder=respond) as server:
        done = run_paicli(args, paicli_env(home, server.base_url), home, stdin=stdin)
        requests, times = server.requests, server.request_times
        server.assert_no_violations()
    return ServedRun(done, requests, times)


def killed_at_hang(
    respond: Responder, args: list[str], home: Path, hang: threading.Event, timeout: float, what: str
) -> tuple[FakeOpenAIServer, dict[str, str]]:
    """Start a server, run paicli until a request parks in a hang, SIGKILL it; `hang` is cleared and the parked
    reply released, and the server keeps running for the next run. `what`: the failure message."""
    server = FakeOpenAIServer(responder=respond)
    server.start()
    env = paicli_env(home, server.base_url)
    proc = start_paicli(args, env, home)
    try:
        assert server.wait_for_hang(timeout=timeout), what
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
    hang.clear()
    server.release()
    return server, env


def run_then_stop(
    server: FakeOpenAIServer, env: dict[str, str], args: list[str], home: Path, stdin: str | None = None
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """One more run against a running server, which is stopped afterwards: the run and the requests it sent
    (all of the server's requests were valid)."""
    try:
        before = len(server.requests)
        done = run_paicli(args, env, home, stdin=stdin)
        later = server.requests[before:]
        server.assert_no_violations()
    finally:
        server.stop()
    return done, later
