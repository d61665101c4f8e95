"""The session's fork server: one wrapper process started on the first sandboxed command, which forks every
later one (a fork costs a fraction of a Python start). Its child does what a wrapper does (namespaces or the
subreaper, Landlock, exec) and gets the command's stdin and stdout over the socket, so output is captured as
before. Whenever the server cannot be used (it did not start, died, or answered nonsense) `start` returns None
and the caller runs its own wrapper process, as without a server.

The server is this process's alone: its socket is not inherited by anything else, it dies with paicli
(PDEATHSIG, tied to the thread that started it, which therefore lives as long as the server; and EOF).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import threading
from pathlib import Path
from typing import IO

from paicli.tools.sandbox.launch import Launch, _policy_fd
from paicli.tools.sandbox.status import zygote_argv

REPLY_TIMEOUT_SECONDS = 30.0  # from a request to its `pid N`: only a stuck server takes this long


class ForkedCommand:
    """What execute_command needs of a Popen, for a command the server forked (our grandchild: the server
    reaps it and tells us its wait status)."""

    def __init__(self, pid: int, reply: socket.socket, stdout: IO[bytes]) -> None:
        self.pid = pid
        self.stdout: IO[bytes] | None = stdout
        self.returncode: int | None = None
        self._reply = reply
        self._done = threading.Event()
        threading.Thread(target=self._wait_exit, daemon=True, name="paicli-sbx-exit").start()

    def _wait_exit(self) -> None:
        code = -int(signal.SIGKILL)  # no status: the server died, and its PDEATHSIG took the command along
        try:
            message = self._reply.recv(64)
            if message.startswith(b"exit "):
                code = os.waitstatus_to_exitcode(int(message[5:]))
        except (OSError, ValueError):
            pass
        finally:
            self._reply.close()
        self.returncode = code
        self._done.set()

    def poll(self) -> int | None:
        return self.returncode if self._done.is_set() else None

    def wait(self, timeout: float | None = None) -> int:
        if not self._done.wait(timeout):
            raise subprocess.TimeoutExpired("sandboxed command", timeout or 0.0)
        assert self.returncode is not None
        return self.returncode


class Zygote:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._control: socket.socket | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._broken = False
        self.served = 0  # commands it forked

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def broken(self) -> bool:
        return self._broken

    def control(self) -> socket.socket | None:
        with self._lock:
            if self._control is None and not self._broken:
                self._launch()
            return self._control

    def _launch(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.settimeout(REPLY_TIMEOUT_SECONDS)  # a server that stops reading must not block a send forever
        started = threading.Event()

        def keep() -> None:  # PDEATHSIG fires when the thread that forked the server ends: this one waits
            try:
                self._process = subprocess.Popen(
                    zygote_argv(theirs.fileno(), os.getpid()),
                    pass_fds=(theirs.fileno(),),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env={},  # nothing of ours (no key) in its environment; each command brings its own
                    cwd="/",
                    start_new_session=True,  # no terminal signals
                )
            except OSError:
                self._broken = True
            finally:
                theirs.close()
                started.set()
            if self._process is not None:
                self._process.wait()
                self.stop()

        threading.Thread(target=keep, daemon=True, name="paicli-sbx-zygote").start()
        started.wait()
        if self._broken:
            ours.close()
        else:
            self._control = ours

    def stop(self) -> None:
        """For good: a server that died or misbehaved is not trusted again; commands use their own wrapper."""
        self._broken = True
        control, self._control = self._control, None
        if self._process is not None and self._process.poll() is None:
            with contextlib.suppress(OSError):
                self._process.kill()
        if control is not None:
            control.close()

    def start(self, launch: Launch, cwd: Path) -> ForkedCommand | None:
        control = self.control()
        if control is None or not launch.inner:
            return None
        request = launch.policy + _fields(cwd, launch)
        read, write = os.pipe2(os.O_CLOEXEC)
        stdin = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
        memfd = _policy_fd(request)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            pid = self._request(control, ours, [memfd, theirs.fileno(), stdin, write])
        finally:
            for fd in (memfd, stdin, write):
                os.close(fd)
            theirs.close()
        if pid is None:
            ours.close()
            os.close(read)
            return None
        with self._lock:
            self.served += 1
        return ForkedCommand(pid, ours, open(read, "rb"))

    def _request(self, control: socket.socket, reply: socket.socket, fds: list[int]) -> int | None:
        try:
            socket.send_fds(control, [b"run"], fds)
            reply.settimeout(REPLY_TIMEOUT_SECONDS)
            message = reply.recv(256)
            reply.settimeout(None)
        except OSError:  # the server is gone or stuck (a timeout is an OSError too)
            self.stop()
            return None
        if message.startswith(b"pid ") and message[4:].isdigit():
            return int(message[4:])
        if not message.startswith(b"error "):  # EOF or nonsense
            self.stop()
        return None  # a fork that failed: this command runs its own wrapper


def _fields(cwd: Path, launch: Launch) -> bytes:
    fields = [b"cwd", os.fsencode(cwd)]
    for arg in launch.inner:
        fields += [b"arg", os.fsencode(arg)]
    for name, value in launch.env.items():
        fields += [b"env", os.fsencode(f"{name}={value}")]
    return b"\0".join(fields) + b"\0"


_session: dict[int, Zygote] = {}  # by pid: a forked copy of paicli starts its own
_session_lock = threading.Lock()


def session_zygote() -> Zygote:
    with _session_lock:
        return _session.setdefault(os.getpid(), Zygote())


def start(launch: Launch, cwd: Path) -> ForkedCommand | None:
    """The command forked by this session's server, or None: run it in a wrapper process of its own."""
    return session_zygote().start(launch, cwd)
