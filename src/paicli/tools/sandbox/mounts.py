"""The file tree a command sees where user namespaces allow one: only what its policy lets it read.

In its own mount namespace the wrapper builds a fresh root (a small tmpfs) and binds into it, at the same
paths, just the folders and files the Landlock rules name: the project, the system folders, PATH, `/etc`,
a few devices and the private temp folder. Everything else (`$XDG_RUNTIME_DIR`, `/run/user/…`, `/tmp/.X11-unix`,
the ssh-agent's folder, docker's and D-Bus's sockets, the rest of `$HOME`) does not exist there, so a
pathname Unix socket outside the fence cannot be reached: Landlock does not mediate `connect()` on one.
Symlinks on the way to an exposed path are recreated, so `/bin -> usr/bin` or a PATH entry through a link
still resolves. This module only plans (pure but for reading links); `wrapper.py` carries the plan out.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable

MountOp = tuple[str, str]  # (bind | mdir | link | to | proc, path)
_MAX_LINKS = 40
# process substitution and /dev/std* go through /proc/self/fd (the wrapper mounts a fresh /proc there)
DEV_LINKS = (
    ("/dev/fd", "/proc/self/fd"),
    ("/dev/stdin", "/proc/self/fd/0"),
    ("/dev/stdout", "/proc/self/fd/1"),
    ("/dev/stderr", "/proc/self/fd/2"),
)


def _expose(path: str, binds: set[str], links: dict[str, str], depth: int = 0) -> None:
    """Walk `path` from `/`: each symlink met is recorded (and its target exposed in turn); the real end is
    bound. Paths that do not exist are left out."""
    if depth > _MAX_LINKS:
        return
    parts = [part for part in path.split("/") if part]
    current = "/"
    for index, part in enumerate(parts):
        step = os.path.join(current, part)
        if os.path.islink(step):
            try:
                target = os.readlink(step)
            except OSError:
                return
            links.setdefault(step, target)
            rest = os.path.join(current, target, *parts[index + 1 :])
            _expose(os.path.normpath(rest), binds, links, depth + 1)
            return
        if not os.path.lexists(step):
            return
        current = step
    binds.add(current)


def _under(path: str, folders: Iterable[str]) -> bool:
    return any(path != folder and path.startswith(folder.rstrip("/") + "/") for folder in folders)


def mount_plan(exposed: Iterable[str], folders: Iterable[str] = ()) -> tuple[MountOp, ...]:
    """The wrapper's steps: `folders` become empty folders of the new root (HOME, so `cd ~` works), each path
    of `exposed` is bound (or reached through recreated links), and /proc is mounted afresh. The same paths
    give the same plan for the whole session (a path gone since is skipped by the wrapper)."""
    return _plan(tuple(exposed), tuple(folders))


@functools.lru_cache(maxsize=8)
def _plan(exposed: tuple[str, ...], folders: tuple[str, ...]) -> tuple[MountOp, ...]:
    binds: set[str] = set()
    links: dict[str, str] = dict(DEV_LINKS)
    for path in exposed:
        if path.startswith("/"):
            _expose(os.path.normpath(path), binds, links)
    kept = sorted(path for path in binds if not _under(path, binds))
    plan: list[MountOp] = [("mdir", "/dev"), ("mdir", "/tmp")]
    plan += [
        ("mdir", path) for path in sorted(set(folders)) if path.startswith("/") and not _covered(path, kept)
    ]
    plan += [("bind", path) for path in kept]
    for place, target in sorted(links.items()):
        if not _covered(place, kept):
            plan += [("link", place), ("to", target)]
    plan.append(("proc", "/proc"))
    return tuple(plan)


def _covered(path: str, binds: Iterable[str]) -> bool:
    return any(path == bound or path.startswith(bound.rstrip("/") + "/") for bound in binds)
