"""With user namespaces: a mount namespace whose root holds only what the plan names.

Standard library only (it runs inside the wrapper, see wrapper.py). The plan (mounts.py) lists `mdir`
folders, `bind` paths (bound at the same place), `link`/`to` pairs and where `proc` goes. The new root is a
tmpfs mounted on a scratch folder (in the private temp folder), entered with pivot_root; the old root is
detached, so nothing outside the plan can be named, opened or connected to. Landlock (applied afterwards)
forbids the command every mount, unmount and pivot_root, so it cannot undo this.

Making and tearing down a mount namespace costs milliseconds per command (mostly waiting for RCU grace
periods), so the fork server builds one per plan in a helper process (`prepare`) and keeps its user and
mount namespaces as file descriptors; each command's child joins them (`join`) and makes only its own network
and PID namespaces. In that shared tree /proc is the host's (a new one needs a PID namespace of the tree's
user namespace); Landlock leaves the command nothing there but its own file descriptors' links. A wrapper
process of its own (the fallback) builds the tree itself, with a /proc of its own PID namespace.
"""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from paicli.tools.sandbox import wrapper
else:
    try:
        import wrapper  # the wrapper's own copy (the boot line puts this folder on sys.path)
    except ImportError:
        from paicli.tools.sandbox import wrapper

_CLONE_NEWNS, _CLONE_NEWUSER = 0x00020000, 0x10000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_BIND, _MS_REC, _MS_PRIVATE = 2, 4, 8, 4096, 16384, 1 << 18
_MNT_DETACH = 2
_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "loongarch64": 41, "ppc64le": 203, "s390x": 217}


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    encoded = [None if text is None else os.fsencode(text) for text in (source, target, fstype, data)]
    result = wrapper._call("mount", encoded[0], encoded[1], encoded[2], flags, encoded[3])
    wrapper._check(result, f"mount({target})")


def _pivot_root() -> None:
    try:
        result = wrapper._call("pivot_root", b".", b".")
    except AttributeError:  # a libc without the wrapper function
        number = _PIVOT_ROOT.get(os.uname().machine)
        if number is None:
            raise wrapper.SandboxError(f"pivot_root: unknown architecture {os.uname().machine}") from None
        result = wrapper._call("syscall", number, b".", b".")
    wrapper._check(result, "pivot_root")


def _place(source: str, target: str) -> bool:
    """A mount point of the source's kind at `target`; False when the source is gone."""
    try:
        is_dir = os.path.isdir(source)
        if not is_dir and not os.path.exists(source):
            return False
        if is_dir:
            os.makedirs(target, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600))
    except OSError:
        return False
    return True


def _bind(path: str, target: str, scratch: str) -> None:
    """One mount where nothing is mounted beneath `path` (cheaper to make and to tear down); the whole subtree
    where something is (a container's /etc/hosts: the kernel refuses less). Never recursively for the folder
    holding the scratch (the private temp folder): a copy of the tree under construction would be reachable,
    and writable, through it."""
    try:
        _mount(path, target, None, _MS_BIND)
    except wrapper.SandboxError:
        if scratch.startswith(path.rstrip("/") + "/"):
            raise
        _mount(path, target, None, _MS_BIND | _MS_REC)


def _proc(target: str) -> None:
    os.makedirs(target, exist_ok=True)
    try:  # this PID namespace's own /proc: no other process is visible in it
        _mount("proc", target, "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
    except wrapper.SandboxError:  # a container that masks parts of /proc forbids a new one: the host's
        _mount("/proc", target, None, _MS_BIND | _MS_REC)


def build(plan: list[tuple[str, str]], scratch: str) -> None:
    """Enter a new mount namespace whose root is built from `plan` on the empty folder `scratch`."""
    cwd = os.getcwd()
    wrapper._check(wrapper._call("unshare", _CLONE_NEWNS), "unshare(mount)")
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
    _mount("tmpfs", scratch, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755")
    place = ""
    for kind, path in plan:
        target = scratch + path
        if kind == "mdir":
            os.makedirs(target, exist_ok=True)
        elif kind == "bind" and _place(path, target):
            _bind(path, target, scratch)
        elif kind == "link":
            place = target
        elif kind == "to" and place:
            os.makedirs(os.path.dirname(place), exist_ok=True)
            if not os.path.lexists(place):
                os.symlink(path, place)
        elif kind == "proc":
            _proc(target)
    os.chdir(scratch)
    _pivot_root()
    wrapper._check(wrapper._call("umount2", b".", _MNT_DETACH), "umount2(old root)")
    os.chdir("/")
    os.chdir(cwd)  # the same path, now in the new tree (the project is bound where it was)


def prepare(plan: list[tuple[str, str]], scratch_parent: str) -> tuple[int, int] | None:
    """In the fork server: build the tree once in a helper process and keep its user and mount namespaces
    (close-on-exec descriptors); None when that failed (each command then builds its own)."""
    ready_read, ready_write = os.pipe()
    hold_read, hold_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            os.close(ready_read)
            os.close(hold_write)
            scratch = f"{scratch_parent}/.root-{os.getpid()}"
            os.mkdir(scratch, 0o700)
            wrapper.enter_namespaces(others=0)
            build(plan, scratch)
            os.write(ready_write, b"1")
            os.read(hold_read, 1)  # until the server has taken hold of the namespaces (or died)
            status = 0
        finally:
            os._exit(status)
    os.close(ready_write)
    os.close(hold_read)
    try:
        built = os.read(ready_read, 1) == b"1"
        fds = _open_namespaces(pid) if built else None
    finally:
        os.close(ready_read)
        os.close(hold_write)
        os.waitpid(pid, 0)
        try:  # noqa: SIM105 -- contextlib costs start-up time here
            os.rmdir(f"{scratch_parent}/.root-{pid}")  # the helper's mount point, empty in our own tree
        except OSError:
            pass
    return fds


def _open_namespaces(pid: int) -> tuple[int, int] | None:
    opened: list[int] = []
    try:
        for name in ("user", "mnt"):
            opened.append(os.open(f"/proc/{pid}/ns/{name}", os.O_RDONLY | os.O_CLOEXEC))
    except OSError:
        for fd in opened:
            os.close(fd)
        return None
    return opened[0], opened[1]


def join(namespaces: tuple[int, int]) -> None:
    """In a command's child of the fork server (single-threaded): enter the prepared namespaces."""
    user, mnt = namespaces
    wrapper._check(wrapper._call("setns", user, _CLONE_NEWUSER), "setns(user)")
    wrapper._check(wrapper._call("setns", mnt, _CLONE_NEWNS), "setns(mount)")
