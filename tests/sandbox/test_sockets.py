"""No sockets out, in both sandbox modes: an ssh-agent-like socket under a fake runtime folder, a docker-like
socket, a datagram socket (journald-like), an abstract socket and UDP/TCP servers on the host's loopback are
all unreachable from a sandboxed command. Each server is checked after the command has ended: a connection
or a datagram would be queued by then (loopback and Unix sockets deliver before the sender's call returns)."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from paicli.tools.sandbox.status import SandboxStatus

from .conftest import sandboxed


def _nothing_arrived(server: socket.socket) -> bool:
    server.setblocking(False)
    try:
        if server.type == socket.SOCK_DGRAM:
            server.recv(64)
        else:
            server.accept()
    except BlockingIOError:
        return True
    return False


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, socket.socket]]:
    """Sockets outside the project, where a desktop session keeps them, named by the usual variables."""
    folder = tmp_path / "run" / "user" / "1000"
    folder.mkdir(parents=True)
    servers: dict[str, socket.socket] = {}
    for name, kind in (
        ("agent.sock", socket.SOCK_STREAM),
        ("docker.sock", socket.SOCK_STREAM),
        ("log", socket.SOCK_DGRAM),
    ):
        server = socket.socket(socket.AF_UNIX, kind)
        server.bind(str(folder / name))
        if kind == socket.SOCK_STREAM:
            server.listen(5)
        servers[name] = server
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    monkeypatch.setenv("SSH_AUTH_SOCK", str(folder / "agent.sock"))
    monkeypatch.setenv("DOCKER_HOST", f"unix://{folder}/docker.sock")
    yield servers
    for server in servers.values():
        server.close()


_CLIENT = """
import os, socket, sys
folder = os.environ.get("XDG_RUNTIME_DIR") or sys.argv[1]
for name in ("agent.sock", "docker.sock"):
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(os.path.join(folder, name))
        s.sendall(b"GET /containers/json HTTP/1.0\\r\\n\\r\\n")
        print("CONNECTED", name)
    except OSError as error:
        print("refused", name, error)
for kind in (socket.SOCK_DGRAM,):
    try:
        s = socket.socket(socket.AF_UNIX, kind)
        s.sendto(b"x", os.path.join(folder, "log"))
        print("SENT log")
    except OSError as error:
        print("refused log", error)
    try:
        a, b = socket.socketpair(socket.AF_UNIX, kind)
        a.sendto(b"x", os.path.join(folder, "log"))
        print("SENT pair")
    except OSError as error:
        print("refused pair", error)
print("finished")
"""


def test_pathname_sockets_outside_the_project_are_unreachable(
    repo: Path, status: SandboxStatus, runtime: dict[str, socket.socket]
) -> None:
    (repo / "work" / "client.py").write_text(_CLIENT)
    folder = os.environ["XDG_RUNTIME_DIR"]
    through_proc = f"/proc/{os.getpid()}/root{folder}"  # another process's view of the file system
    script = (
        f"python3 work/client.py {folder}; XDG_RUNTIME_DIR={through_proc} python3 work/client.py; echo done"
    )
    out = sandboxed(repo, script, status)
    assert "finished" in out.content and "done" in out.content
    assert "CONNECTED" not in out.content and "SENT" not in out.content, out.content
    for server in runtime.values():
        assert _nothing_arrived(server)


def test_an_abstract_socket_is_unreachable(repo: Path, status: SandboxStatus) -> None:
    name = f"\0paicli-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(name)
        server.listen(5)
        script = (
            f"import socket; s = socket.socket(socket.AF_UNIX); s.connect({name!r}); print('CONN' + 'ECTED')"
        )
        (repo / "work" / "abstract.py").write_text(script)
        out = sandboxed(repo, "python3 work/abstract.py; echo finished", status)
        assert "finished" in out.content and "CONNECTED" not in out.content
        assert _nothing_arrived(server)


def test_udp_and_tcp_fast_open_do_not_leave(repo: Path, status: SandboxStatus) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp, socket.socket() as tcp:
        udp.bind(("127.0.0.1", 0))
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(5)
        udp_port, tcp_port = udp.getsockname()[1], tcp.getsockname()[1]
        script = (
            "import socket\n"
            "for send in (\n"
            f"    lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', {udp_port})),\n"
            f"    lambda: socket.socket().sendto(b'x', socket.MSG_FASTOPEN, ('127.0.0.1', {tcp_port})),\n"
            "):\n"
            "    try:\n        send(); print('SENT')\n"
            "    except OSError as error:\n        print('refused', error)\n"
            "print('finished')\n"
        )
        (repo / "work" / "out.py").write_text(script)
        out = sandboxed(repo, "python3 work/out.py", status)
        assert "finished" in out.content
        assert _nothing_arrived(udp) and _nothing_arrived(tcp)


def test_io_uring_is_not_offered_without_namespaces(repo: Path, status: SandboxStatus) -> None:
    if status.userns:
        pytest.skip("with user namespaces the network namespace holds io_uring's sockets too")
    script = (
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "params = ctypes.create_string_buffer(120)\n"
        "fd = libc.syscall(425, 8, params)\n"
        "print('io_uring', fd, os.strerror(ctypes.get_errno()))\n"
    )
    (repo / "work" / "uring.py").write_text(script)
    out = sandboxed(repo, "python3 work/uring.py", status)
    assert "io_uring -1 Function not implemented" in out.content, out.content


def test_local_ipc_inside_the_command_still_works(repo: Path, status: SandboxStatus) -> None:
    script = "import socket\na, b = socket.socketpair()\na.sendall(b'ping'); print(b.recv(4).decode())\n"
    (repo / "work" / "pair.py").write_text(script)
    out = sandboxed(repo, "python3 work/pair.py && echo hi | cat && cat <(echo sub)", status)
    assert out.content.startswith("ping\nhi\nsub\n"), out.content


def test_the_private_temp_folder_holds_no_copy_of_the_tree(
    repo: Path, tmp_path: Path, status: SandboxStatus, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = tmp_path / "tools" / "bin"
    tools.mkdir(parents=True)
    (tools / "helper").write_text("#!/bin/sh\necho helper ran\n")
    (tools / "helper").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    script = (
        'helper; find "$TMPDIR" -mindepth 1 -maxdepth 4 | sed "s|^$TMPDIR|T|";'
        f'for d in "$TMPDIR"/.root-*; do echo x > "$d{tools}/planted"; done; echo done'
    )
    out = sandboxed(repo, script, status)
    assert "helper ran" in out.content and "done" in out.content
    assert "/usr" not in out.content and "/etc" not in out.content, out.content
    assert not (tools / "planted").exists()
