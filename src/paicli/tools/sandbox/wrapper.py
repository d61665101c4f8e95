"""The exec wrapper: `python -I -S wrapper.py POLICY -- argv…` (POLICY: a file or `fd:N`) confines itself, then runs argv.

Run as its own program (never imported by paicli): paicli has threads, so the rules cannot be applied in a
`preexec_fn`. Standard library only and nothing slow to import (no json, no re): its start-up is the
sandbox's per-command overhead.

POLICY is a file of NUL-separated key/value pairs:
  userns 1|0    1: new user + network + PID namespaces (the command is PID 1, the namespace dies with it) and
                a mount namespace whose root holds only the `bind` paths (nsroot.py);
                0: Landlock TCP rules deny bind/connect, a seccomp filter denies the other sockets
                (seccomp.py) and a child subreaper kills every leftover descendant
  confine 0     no Landlock, no namespaces: only the subreaper (a command a human approved)
  parent PID    the process that started us: its end ends us (SIGTERM: the command's tree goes with us)
  ro PATH       read (and execute) beneath the folder PATH
  rw PATH       read and write beneath the folder PATH
  dir PATH      list the folder PATH (and its subfolders) only
  rof/rwf PATH  the same for a file
  scratch PATH  an empty folder to build the new root on; mdir/bind/link/to/proc PATH: its plan (mounts.py)
Missing paths are skipped. Any failure before exec prints `paicli-sandbox: …` and exits 125.
forkserver.py, the session's fork server, forks processes that do the same (`confine_and_run`).
"""

import _ctypes  # the bare C module: the `ctypes` package costs more start-up time than the whole rest
import _signal as signal  # type: ignore[import-not-found]  # `signal` imports enum: slower than all the rest
import os
import sys

SANDBOX_FAILED = 125
_SYS_CREATE, _SYS_ADD, _SYS_RESTRICT = 444, 445, 446  # the same number on every Linux architecture
_CLONE_NEWUSER, _CLONE_NEWNET, _CLONE_NEWPID = 0x10000000, 0x40000000, 0x20000000
_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER, _PR_SET_NO_NEW_PRIVS = 1, 36, 38
_EXECUTE, _WRITE, _READ, _READ_DIR = 1, 2, 4, 8
_FS_V1 = (1 << 13) - 1
_REFER, _TRUNCATE, _IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_FILE_RIGHTS = _EXECUTE | _WRITE | _READ | _TRUNCATE | _IOCTL_DEV
_NET_TCP = 1 | 2  # bind, connect
_SCOPES = 1 | 2  # abstract unix sockets, signals


class _Long(_ctypes._SimpleCData):  # type: ignore[type-arg]
    _type_ = "l"


class _Function(_ctypes.CFuncPtr):
    _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
    _restype_ = _Long


class _Libc:
    _handle = _ctypes.dlopen(None)  # type: ignore[arg-type]  # None: the running program and its libc


def _call(name: str, *args: int | bytes | None) -> int:
    function = _Function((name, _Libc))  # type: ignore[arg-type]  # anything with a _handle will do
    return int(function(*[_Long(arg) if isinstance(arg, int) else arg for arg in args]))


class SandboxError(Exception):
    pass


def _check(result: int, what: str) -> int:
    if result < 0:
        raise SandboxError(f"{what}: {os.strerror(_ctypes.get_errno())}")
    return result


def abi_version() -> int:
    found = _call("syscall", _SYS_CREATE, None, 0, 1)
    return found if found > 0 else 0


def handled_fs(abi: int) -> int:
    rights = _FS_V1
    if abi >= 2:
        rights |= _REFER
    if abi >= 3:
        rights |= _TRUNCATE
    if abi >= 5:
        rights |= _IOCTL_DEV
    return rights


def _u64(value: int) -> bytes:
    return value.to_bytes(8, sys.byteorder)


def landlock(rules: list[tuple[str, str]], abi: int, deny_tcp: bool) -> None:
    fs = handled_fs(abi)
    attr = _u64(fs)
    if abi >= 4:
        attr += _u64(_NET_TCP if deny_tcp else 0)
    if abi >= 6:
        attr += _u64(_SCOPES)
    ruleset = _check(_call("syscall", _SYS_CREATE, attr, len(attr), 0), "landlock_create_ruleset")
    read = _READ | _READ_DIR | _EXECUTE
    for kind, path in rules:
        wanted = {"ro": read, "rw": fs, "dir": _READ_DIR}[kind.rstrip("f")]
        _add_rule(ruleset, path, wanted, is_dir=not kind.endswith("f"))
    _check(_call("prctl", _PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(NO_NEW_PRIVS)")
    _check(_call("syscall", _SYS_RESTRICT, ruleset, 0), "landlock_restrict_self")
    os.close(ruleset)


def _add_rule(ruleset: int, path: str, wanted: int, is_dir: bool) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC | (os.O_DIRECTORY if is_dir else 0))
    except OSError:
        return  # a folder this system does not have (or a file where a folder was expected)
    try:
        allowed = wanted if is_dir else wanted & _FILE_RIGHTS
        if not allowed:
            return
        attr = _u64(allowed) + fd.to_bytes(4, sys.byteorder, signed=True)
        _check(_call("syscall", _SYS_ADD, ruleset, 1, attr, 0), f"landlock_add_rule({path})")
    finally:
        os.close(fd)


def _read_fd(fd: int) -> bytes:
    chunks = []
    try:
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_policy(source: str) -> "Request":
    """`source`: a file, or `fd:N` (an inherited memfd, closed here so the command never sees it)."""
    if source.startswith("fd:"):
        data = _read_fd(int(source[3:]))
    else:
        with open(source, "rb") as handle:
            data = handle.read()
    return parse_request(data)


class Request:
    """A policy, and for the zygote also the command: `cwd`, `arg` (repeated), `env` (repeated, `NAME=value`)."""

    def __init__(self) -> None:
        self.userns = False
        self.confine = True
        self.parent = 0
        self.rules: list[tuple[str, str]] = []
        self.scratch = ""
        self.mounts: list[tuple[str, str]] = []
        self.joined = False  # the fork server put us in the session's prepared user and mount namespaces
        self.cwd = ""
        self.argv: list[str] = []
        self.env: dict[str, str] = {}


_MOUNT_KEYS = (b"mdir", b"bind", b"link", b"to", b"proc")


def parse_request(data: bytes) -> Request:
    fields = data.split(b"\0")
    request = Request()
    for key, value in zip(fields[0::2], fields[1::2], strict=False):
        if key == b"userns":
            request.userns = value == b"1"
        elif key == b"confine":
            request.confine = value != b"0"
        elif key == b"parent":
            request.parent = int(value or b"0")
        elif key in (b"ro", b"rw", b"dir", b"rof", b"rwf"):
            request.rules.append((key.decode(), os.fsdecode(value)))
        elif key in _MOUNT_KEYS:
            request.mounts.append((key.decode(), os.fsdecode(value)))
        elif key == b"scratch":
            request.scratch = os.fsdecode(value)
        elif key == b"cwd":
            request.cwd = os.fsdecode(value)
        elif key == b"arg":
            request.argv.append(os.fsdecode(value))
        elif key == b"env":
            name, _, text = os.fsdecode(value).partition("=")
            request.env[name] = text
    return request


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def enter_namespaces(joined: bool = False, others: int = _CLONE_NEWNET | _CLONE_NEWPID) -> None:
    """New user (unless `joined` one already), network and PID namespaces; in the user namespace we keep our
    own uid and gid."""
    if joined:
        _check(_call("unshare", others), "unshare(net, pid)")
        return
    uid, gid = os.getuid(), os.getgid()
    _check(_call("unshare", _CLONE_NEWUSER | others), "unshare(user, net, pid)")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")


def _exit_like(status: int) -> None:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status) if not os.WIFSIGNALED(status) else 128 + os.WTERMSIG(status))


def _children() -> list[int]:
    found: list[int] = []
    me = os.getpid()
    try:
        for tid in os.listdir(f"/proc/{me}/task"):
            with open(f"/proc/{me}/task/{tid}/children", "rb") as handle:
                found += [int(pid) for pid in handle.read().split()]
    except OSError:
        pass
    return found


def reap_all() -> None:
    """Subreaper: kill and reap every descendant (orphans of orphans are re-parented to us) until none is left."""
    while True:
        for pid in _children():
            try:  # noqa: SIM105 -- contextlib costs start-up time here
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return
        except InterruptedError:
            continue


_STOPS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class _Stop(Exception):
    pass


class _Told:
    """The first stop signal, and whether it may interrupt us now (only while we wait for the command)."""

    signum = 0
    waiting = False


def _stop(signum: int, frame: object) -> None:
    # Only the first one counts, and only the wait is cut short: a parent with threads sends its death signal
    # again as each of its threads ends, and a second one must not cut the sweep short (descendants left).
    if not _Told.signum:
        _Told.signum = signum
    if _Told.waiting:
        _Told.waiting = False
        raise _Stop


def _wait_for(child: int) -> int | None:
    """The command's wait status, or None when told to stop first (before or while we wait)."""
    try:
        try:
            _Told.waiting = True
            if _Told.signum:
                return None
            while True:
                pid, code = os.waitpid(-1, 0)
                if pid == child:
                    return code
        finally:
            _Told.waiting = False
    except _Stop:
        return None
    except ChildProcessError:
        return 0


def supervise(child: int, userns: bool, scratch: str = "") -> None:
    """Wait for the command; outside namespaces also sweep up whatever it left behind (and on SIGTERM).
    There the stop signals were handled before the fork (`_hold_stops`), so none is missed."""
    if userns:  # our death SIGKILLs PID 1 (PDEATHSIG), which takes the whole namespace with it
        _, ended = os.waitpid(child, 0)
        if scratch:
            try:  # noqa: SIM105 -- contextlib costs start-up time here
                os.rmdir(scratch)  # the new root's mount point; its tmpfs went with the namespace
            except OSError:
                pass
        _exit_like(ended)
    status = _wait_for(child)
    reap_all()  # a stop signal now is only noted: the sweep runs to its end
    if status is None:
        signal.signal(_Told.signum, signal.SIG_DFL)
        os.kill(os.getpid(), _Told.signum)
        os._exit(128 + _Told.signum)
    _exit_like(status)


def _hold_stops() -> list[tuple[int, object]]:
    """Our handler for the stop signals; returns the ones we had, for the command to get back."""
    held = [(sig, signal.signal(sig, _stop)) for sig in _STOPS]
    return [(sig, signal.SIG_DFL if handler is None else handler) for sig, handler in held]  # None: set in C


def _which(name: str, path: str) -> str:
    if "/" in name:
        return name
    for folder in path.split(":"):
        candidate = os.path.join(folder or ".", name)
        if os.access(candidate, os.X_OK) and not os.path.isdir(candidate):
            return candidate
    raise SandboxError(f"{name}: command not found")


def _tie_to(parent: int) -> None:
    """SIGTERM (we then take the command's tree down) when `parent` ends; gone already: exit now."""
    _check(_call("prctl", _PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0), "prctl(PDEATHSIG)")
    if parent and os.getppid() != parent:
        os._exit(SANDBOX_FAILED)


def confine_and_run(request: Request, argv: list[str], env: dict[str, str]) -> None:
    """Namespaces (or the subreaper), then fork: the child confines itself and execs argv, we supervise it."""
    abi = abi_version() if request.confine else 0
    if request.confine and abi < 1:
        raise SandboxError("Landlock is not available in this kernel")
    userns = request.confine and request.userns
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    inherited = [] if userns else _hold_stops()  # before the death signal is armed: an early one is kept
    _tie_to(request.parent)
    scratch = ""
    if userns:
        import nsroot  # type: ignore[import-not-found]  # beside us on sys.path, like this module

        if request.scratch and request.mounts and not request.joined:
            scratch = f"{request.scratch}/.root-{os.getpid()}"
            os.mkdir(scratch, 0o700)
        enter_namespaces(request.joined)
    else:
        _check(_call("prctl", _PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "prctl(CHILD_SUBREAPER)")
        if request.confine:
            import seccomp  # type: ignore[import-not-found]
    supervisor = os.getpid()
    child = os.fork()
    if child:
        supervise(child, userns, scratch)
        return
    try:
        for sig, handler in inherited:
            signal.signal(sig, handler)
        _check(_call("prctl", _PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0), "prctl(PDEATHSIG)")
        if not userns and os.getppid() != supervisor:  # it ended before our death signal was armed
            os._exit(SANDBOX_FAILED)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # Python ignores it; `yes | head` needs it back
        if scratch:
            nsroot.build(request.mounts, scratch)
        program = _which(argv[0], env.get("PATH", "/usr/bin:/bin"))  # before the rules: it may import modules
        if request.confine:
            landlock(request.rules, abi, deny_tcp=not userns)
        if request.confine and not userns:
            seccomp.install()
        os.execve(program, argv, env)
    except (OSError, SandboxError) as error:
        os.write(2, f"paicli-sandbox: {error}\n".encode())
        os._exit(SANDBOX_FAILED)


def main() -> None:
    args = sys.argv[1:]
    if len(args) < 3 or args[1] != "--":
        os.write(2, b"paicli-sandbox: usage: wrapper.py POLICY -- ARGV...\n")
        os._exit(2)
    try:
        confine_and_run(read_policy(args[0]), args[2:], dict(os.environ))
    except (OSError, SandboxError) as error:
        os.write(2, f"paicli-sandbox: {error}\n".encode())
        os._exit(SANDBOX_FAILED)


if __name__ == "__main__":
    main()
