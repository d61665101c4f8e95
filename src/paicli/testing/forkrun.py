"""`paicli` runs forked from an interpreter that has already imported it, for the suite's many short runs.

Starting `python -m paicli` costs about 0.7 s of CPU in imports (openai's and pydantic's models) before paicli
does anything; a suite of a few hundred runs pays that hundreds of times. A fork server (one per test process,
started on first use) imports paicli's start-up modules once and then forks one child per run. The child is a
real process of its own: it gets the run's stdin, stdout and stderr file descriptors, environment, working
directory and argv, rebuilds the standard streams as the interpreter builds them, and calls the entry point
`paicli.cli.app.run` (signal handlers, exit path and exit code included). The server does nothing between
forks, so no state carries from one run to the next.

What a fork cannot show, that a run starts in a fresh interpreter, stays with the tests that start paicli
with `start_paicli` or a terminal; `PAICLI_TEST_FORK=off` in the suite's environment makes every run a fresh
interpreter again.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import locale
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from paicli.testing.isolated_env import ISOLATED_PREFIXES

SWITCH = "FORKED_PAICLI"  # read from the suite's own environment: "off" runs every paicli afresh
_SERVER_MODULE = "paicli.testing.forkrun"
# imported by the server besides every module of paicli itself (what a run imports lazily: its client library)
PRELOAD = ("openai", "tiktoken")


def enabled() -> bool:
    return os.environ.get(SWITCH, "on") != "off" and sys.platform.startswith("linux")


# ---------------------------------------------------------------- the test side


class _Server:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._path: Path | None = None
        self._owner = 0

    def address(self) -> Path:
        with self._lock:
            if self._proc is None or self._proc.poll() is not None or self._owner != os.getpid():
                self._start()
            assert self._path is not None
            return self._path

    def _start(self) -> None:
        folder = Path(tempfile.mkdtemp(prefix="paicli-fork-"))
        path = folder / "s"
        # no test's settings, home or folder: each child is given its own
        env = {k: v for k, v in os.environ.items() if not k.startswith(ISOLATED_PREFIXES)}
        env.pop("PYTHONUNBUFFERED", None)
        self._proc = subprocess.Popen(
            [sys.executable, "-m", _SERVER_MODULE, str(path)],
            cwd=folder,
            stdin=subprocess.PIPE,  # the server ends when this pipe closes (its test process ended)
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        assert self._proc.stdout is not None
        if self._proc.stdout.readline().strip() != b"ready":
            raise RuntimeError("the paicli fork server did not start")
        self._path, self._owner = path, os.getpid()
        atexit.register(self._stop, self._proc)

    @staticmethod
    def _stop(proc: subprocess.Popen[bytes]) -> None:
        """At the test process's end: the server ends with its stdin; waiting for it counts its runs' CPU as
        this process's children's, as fresh runs were counted."""
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=30)


_server = _Server()


def _pump_in(fd: int, data: bytes) -> None:
    with contextlib.suppress(BrokenPipeError, OSError), open(fd, "wb", closefd=True) as pipe:
        pipe.write(data)


def _pump_out(fd: int, into: list[bytes]) -> None:
    with open(fd, "rb", closefd=True) as pipe:
        into.append(pipe.read())


def forked_run(
    command: list[str], args: list[str], env: dict[str, str], cwd: Path, stdin: str | None, timeout: float
) -> subprocess.CompletedProcess[str]:
    """What `subprocess.run(command, text=True, capture_output=True, ...)` returns for `paicli args`."""
    encoding = locale.getpreferredencoding(False)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    threads: list[threading.Thread] = []
    if stdin is None:
        in_r = os.open(os.devnull, os.O_RDONLY)
    else:
        in_r, in_w = os.pipe()
        data = stdin.replace("\n", os.linesep).encode(encoding)
        threads.append(threading.Thread(target=_pump_in, args=(in_w, data), daemon=True))
    outs: list[bytes] = []
    errs: list[bytes] = []
    threads += [
        threading.Thread(target=_pump_out, args=(out_r, outs), daemon=True),
        threading.Thread(target=_pump_out, args=(err_r, errs), daemon=True),
    ]
    request = json.dumps({"args": args, "env": env, "cwd": str(cwd)}).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(str(_server.address()))
        try:
            socket.send_fds(conn, [len(request).to_bytes(8, "big") + request], [in_r, out_w, err_w])
        finally:
            for fd in (in_r, out_w, err_w):
                os.close(fd)
        for thread in threads:
            thread.start()
        reader = conn.makefile("rb")
        pid = int(reader.readline())
        conn.settimeout(timeout)
        try:
            line = reader.readline()
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            for thread in threads:
                thread.join(5)
            raise subprocess.TimeoutExpired(command, timeout, b"".join(outs), b"".join(errs)) from None
        status = int(line)
    for thread in threads:
        thread.join()
    return subprocess.CompletedProcess(
        command, os.waitstatus_to_exitcode(status), _text(outs, encoding), _text(errs, encoding)
    )


def _text(parts: list[bytes], encoding: str) -> str:
    text = b"".join(parts).decode(encoding)
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as subprocess's text mode reads it


# ---------------------------------------------------------------- the server side


def _child(
    connection: socket.socket, listener: socket.socket, request: dict[str, Any], fds: list[int]
) -> None:
    """In the forked child: become the run, then leave through paicli's own exit (never returns)."""
    code = 1
    try:
        connection.close()
        listener.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.closerange(3, 1 << 16)  # a started program holds only its standard streams
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = [
            str(Path(__file__).parents[1] / "__main__.py"),
            *request["args"],
        ]  # as `-m paicli` sets it
        _standard_streams(request["env"].get("PYTHONUNBUFFERED", "") != "")
        from paicli.cli.app import run

        run()  # paicli's own exit ends the process; an interpreter it does not know returns by SystemExit
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)


_replaced: list[object] = []  # the server's own streams, kept: finalising them would flush and close fds 0-2


def _standard_streams(unbuffered: bool) -> None:
    """sys.stdin/stdout/stderr over fds 0-2 as the interpreter makes them (same encoding and error handlers)."""
    made = []
    for fd, model in ((0, sys.__stdin__), (1, sys.__stdout__), (2, sys.__stderr__)):
        assert model is not None
        raw = io.FileIO(fd, "rb" if fd == 0 else "wb", closefd=False)
        if fd == 0:
            binary: Any = io.BufferedReader(raw)
        elif unbuffered or fd == 2:
            binary = raw if unbuffered else io.BufferedWriter(raw)
        else:
            binary = io.BufferedWriter(raw)
        stream = io.TextIOWrapper(
            binary,
            encoding=model.encoding,
            errors=model.errors,
            line_buffering=fd == 2 and not unbuffered,
            write_through=unbuffered and fd != 0,
        )
        made.append(stream)
    _replaced.extend((sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__, sys.__stderr__))
    sys.stdin, sys.stdout, sys.stderr = made
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = made  # type: ignore[misc]


def _reap(connection: socket.socket, pid: int) -> None:
    with connection:
        _, status = os.waitpid(pid, 0)
        with contextlib.suppress(OSError):
            connection.sendall(f"{status}\n".encode())


def _recv_request(connection: socket.socket) -> tuple[dict[str, Any], list[int]]:
    message, fds, _, _ = socket.recv_fds(connection, 1 << 16, 3)
    size = int.from_bytes(message[:8], "big")
    body = message[8:]
    while len(body) < size:
        more = connection.recv(size - len(body))
        if not more:
            raise ConnectionError("request cut short")
        body += more
    return json.loads(body), list(fds)


def _preload() -> None:
    """Every paicli module (but the test fakes and the entry script) and PRELOAD: what runs import, imported once."""
    import importlib
    import pkgutil

    import paicli

    for info in pkgutil.walk_packages(paicli.__path__, "paicli."):
        if not info.name.startswith(("paicli.testing", "paicli.__main__", "paicli.tools.sandbox")):
            importlib.import_module(info.name)
    for name in PRELOAD:
        importlib.import_module(name)


def serve(path: str) -> None:
    _preload()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        # the test process closes our stdin when it ends: then this server ends too (no thread watches it, so
        # that no thread holds a stream's lock when a child is forked)
        ready, _, _ = select.select([listener.fileno(), 0], [], [])
        if 0 in ready and not os.read(0, 4096):
            os._exit(0)
        if listener.fileno() not in ready:
            continue
        connection, _ = listener.accept()
        try:
            request, fds = _recv_request(connection)
        except (OSError, ValueError, ConnectionError):
            connection.close()
            continue
        pid = os.fork()
        if pid == 0:
            _child(connection, listener, request, fds)
        for fd in fds:
            os.close(fd)
        connection.sendall(f"{pid}\n".encode())
        threading.Thread(target=_reap, args=(connection, pid), daemon=True).start()


if __name__ == "__main__":
    serve(sys.argv[1])
