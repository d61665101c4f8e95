"""The session's fork server: `python -I -S -c BOOT FD PARENT` (paicli's zygote.py starts it, once).

Unconfined and single-threaded (only a single-threaded process may enter a user namespace). Per request on
the socket FD (its fds: a memfd with the policy and the command in the wrapper's format, a reply socket, the
command's stdin and stdout) it forks a child that does what the wrapper does, replies `pid N`, and later
`exit STATUS` (the raw wait status). It ends with paicli (PDEATHSIG for PARENT's death) or at EOF.
"""

import _signal as signal  # type: ignore[import-not-found]
import contextlib
import os
import select
import socket
import sys

TYPE_CHECKING = False  # mypy's name for "only while type-checking"
if TYPE_CHECKING:
    from paicli.tools.sandbox import nsroot, wrapper
else:
    import nsroot  # beside us on sys.path (the boot line puts it there): no package to import
    import wrapper

_trees: dict[tuple[tuple[str, str], ...], tuple[int, int] | None] = {}  # plan -> prepared namespaces


def serve(control_fd: int, parent: int) -> None:
    """The session's fork server: unconfined, single-threaded (only such a process may enter a user namespace).
    Per request (fds: a memfd with the policy and the command, a reply socket, stdin, stdout) it forks a child
    that does what the wrapper does, replies `pid N`, then `exit STATUS`. Ends with paicli or at EOF."""
    _die_with(parent)
    if os.getppid() != parent:
        os._exit(0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    control = socket.socket(fileno=control_fd)
    poller = select.poll()
    poller.register(control_fd, select.POLLIN)
    running: dict[int, tuple[int, socket.socket]] = {}
    while True:
        for fd, _ in poller.poll():
            if fd != control_fd:
                pid, reply = running.pop(fd)
                poller.unregister(fd)
                os.close(fd)
                status = os.waitpid(pid, 0)[1]
                _reply(reply, b"exit %d" % status)
                reply.close()
            elif not _accept(control, poller, running):
                os._exit(0)


def _die_with(parent: int) -> None:
    """SIGKILL when the parent (its forking thread) ends; the caller checks it has not ended already."""
    prctl = wrapper._call("prctl", wrapper._PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    wrapper._check(prctl, "prctl(PDEATHSIG)")


def _reply(reply: socket.socket, message: bytes) -> None:
    with contextlib.suppress(OSError):  # paicli gave up on this command
        reply.send(message)


def _accept(
    control: socket.socket, poller: select.poll, running: dict[int, tuple[int, socket.socket]]
) -> bool:
    message, ancillary, _, _ = control.recvmsg(16, socket.CMSG_SPACE(4 * 4))
    fds: list[int] = []
    for _, _, data in ancillary:  # SCM_RIGHTS: all that paicli sends
        fds += [int.from_bytes(data[i : i + 4], sys.byteorder) for i in range(0, len(data) - 3, 4)]
    if not message or len(fds) != 4:
        for fd in fds:
            os.close(fd)
        return bool(message)
    memfd, reply_fd, stdin, stdout = fds
    reply = socket.socket(fileno=reply_fd)
    try:
        data = wrapper._read_fd(memfd)  # paicli left the offset at 0
        tree = _tree(wrapper.parse_request(data))
        pid = os.fork()
    except OSError as error:
        _reply(reply, f"error {error}".encode())
        pid = -1
    if pid == 0:
        _child(os.getppid(), data, stdin, stdout, tree)
    os.close(stdin)
    os.close(stdout)
    if pid < 0:
        reply.close()
        return True
    with contextlib.suppress(OSError):  # its own group before paicli knows the pid (the child does it too)
        os.setpgid(pid, pid)
    pidfd = os.pidfd_open(pid)
    running[pidfd] = (pid, reply)
    poller.register(pidfd, select.POLLIN)
    _reply(reply, b"pid %d" % pid)
    return True


def _tree(request: wrapper.Request) -> tuple[int, int] | None:
    """The prepared namespaces for this request's file tree, made on first use (None: build per command)."""
    if not (request.confine and request.userns and request.scratch and request.mounts):
        return None
    key = tuple(request.mounts)
    if key not in _trees:
        for stale in _trees.values():  # one tree at a time: another plan means the session's paths moved
            for fd in stale or ():
                os.close(fd)
        _trees.clear()
        try:
            _trees[key] = nsroot.prepare(request.mounts, request.scratch)
        except (OSError, wrapper.SandboxError):
            _trees[key] = None
    return _trees[key]


def _child(zygote: int, data: bytes, stdin: int, stdout: int, tree: tuple[int, int] | None = None) -> None:
    """In the forked child: never returns to the zygote's loop, whatever happens."""
    try:
        _die_with(zygote)
        if os.getppid() != zygote:
            os._exit(wrapper.SANDBOX_FAILED)
        if tree is not None:
            nsroot.join(tree)  # before anything else is closed: the descriptors are the zygote's
        os.setpgid(0, 0)  # its own group for paicli's killpg, as start_new_session gives a wrapper
        for fd, target in ((stdin, 0), (stdout, 1), (stdout, 2)):
            os.dup2(fd, target)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # the zygote's sockets and other commands' pipes
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL)
        request = wrapper.parse_request(data)
        request.parent = 0  # ours is the server (checked above), not the paicli a wrapper process has
        request.joined = tree is not None
        os.chdir(request.cwd)
        wrapper.confine_and_run(request, request.argv, request.env)
    except (OSError, wrapper.SandboxError) as error:
        os.write(2, f"paicli-sandbox: {error}\n".encode())
    except BaseException:
        os.write(2, b"paicli-sandbox: internal error\n")
    os._exit(wrapper.SANDBOX_FAILED)


def main() -> None:
    try:
        serve(int(sys.argv[1]), int(sys.argv[2]))
    except BaseException:
        os._exit(wrapper.SANDBOX_FAILED)
