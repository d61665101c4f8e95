"""Which paths a sandboxed command may read and write: pure functions of the file tree and the environment.

Landlock only ever adds rights and a rule on a folder covers everything beneath it, so "write the project but
not its `.git/`" is expressed by splitting: a folder holding a protected entry gets no rule of its own beyond
listing, and each of its other entries gets the full right. Rules are placed on real places only: a symlink in
the project gets no rule (Landlock would put it on the link's target, wherever that is), so a link can neither
move the fence nor lend its name to a target. Limits that follow: a split folder (the project root, any folder
holding `.git`, `.env`, `PAI.md`, …) accepts no new entries, and dependency/cache folders (node_modules, .venv,
…) are read-only as a whole without being walked (README, "Command sandbox"). Protected entries a command
creates in writable folders are found afterwards from the walk kept here (`aftercheck.py`).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from paicli.skipdirs import SKIPPED_DIRS
from paicli.tools.gitrepo import git_dir_shaped

Rule = tuple[str, str]  # (ro | rw | dir, absolute path; rof | rwf: the path is a file)
WALK_BUDGET = 5_000  # folders visited per command; past it the rest of the project is read-only
SYSTEM_READ = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/nix/store")
DEVICES_RW = ("/dev/null", "/dev/zero", "/dev/full")
DEVICES_RO = ("/dev/random", "/dev/urandom")
ETC_SECRETS = frozenset(
    {
        "shadow",
        "shadow-",
        "gshadow",
        "gshadow-",
        "sudoers",
        "sudoers.d",
        "ssh",
        "ssl/private",
        "security/opasswd",
        "krb5.keytab",
        "NetworkManager/system-connections",
        "wireguard",
    }
)
HOME_SECRETS = (
    ".ssh",
    ".aws",
    ".azure",
    ".gnupg",
    ".git-credentials",
    ".netrc",
    ".config",
    ".docker",
    ".kube",
    ".pypirc",
    ".npmrc",
    ".password-store",
    ".local/share/keyrings",
    ".cargo/credentials.toml",
    ".cargo/credentials",
)
# Tool installs whose launchers on PATH need their whole folder (pyenv shims, rustup proxies).
TOOL_ROOTS = frozenset({".pyenv", ".rustup", ".nvm", ".rbenv", ".volta", ".deno", ".bun", ".sdkman"})
PROTECTED_DIR_NAMES = frozenset({".git", ".paicli"})
PROTECTED_FILE_NAMES = frozenset({".envrc", ".gitmodules"})


def protected_name(name: str) -> bool:
    """What configures paicli, git or the shell: never written by a sandboxed command."""
    lowered = name.lower()
    if lowered in PROTECTED_DIR_NAMES or lowered in PROTECTED_FILE_NAMES or lowered.startswith(".env"):
        return True
    return lowered.startswith("pai") and lowered.endswith(".md")


@dataclass
class ProjectWalk:
    """The project as the walk before a command saw it: `special` maps protected entries and folders that are
    read-only as a whole to "ro" (or "none"); `folders` maps every other folder walked (the writable ones) to
    its (inode, change time), so the check after the command re-lists only folders that changed."""

    root: str
    special: dict[str, str] = field(default_factory=dict)
    folders: dict[str, tuple[int, int]] = field(default_factory=dict)
    started_ns: int = 0
    budget: int = 0


def walk_project(root: str, budget: int = WALK_BUDGET) -> ProjectWalk:
    walk = ProjectWalk(root, budget=budget, started_ns=time.time_ns())
    _visit(root, walk)
    return walk


def find_special(root: str, budget: int = WALK_BUDGET) -> dict[str, str]:
    """Every protected entry under `root` (→ "ro"); once the budget is spent, unvisited folders (→ "ro")."""
    return walk_project(root, budget).special


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_ino, info.st_ctime_ns


def _visit(folder: str, walk: ProjectWalk) -> None:
    if walk.budget <= 0:
        walk.special[folder] = "ro"
        return
    walk.budget -= 1
    stamp = _stamp(folder)
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    if stamp is not None:
        walk.folders[folder] = stamp
    for entry in entries:
        if protected_name(entry.name):
            walk.special[entry.path] = "ro"  # a link too: its folder is split, so it cannot be replaced
            continue
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if not is_dir:
            continue
        if entry.name in SKIPPED_DIRS or git_dir_shaped(entry.path):
            walk.special[entry.path] = "ro"  # not walked: read-only as a whole
        else:
            _visit(entry.path, walk)


def split_rules(
    top: str, special: Mapping[str, str], kind: str, is_dir: bool = True, *, links: bool = False
) -> list[Rule]:
    """Rules giving `kind` beneath `top` except at `special` paths, which get their own kind ("none": nothing).
    A file's rule says so (`rof`, `rwf`): the wrapper then need not look. A symlink beneath `top` gets no rule
    unless `links` (a trusted tree such as /etc): Landlock would grant its target, wherever that lies."""
    suffix = "" if is_dir else "f"
    if top in special:
        return [] if special[top] == "none" else [(special[top] + suffix, top)]
    prefix = top.rstrip("/") + "/"
    if not is_dir or not any(path.startswith(prefix) for path in special):
        return [(kind + suffix, top)]
    rules: list[Rule] = [("dir", top)]
    try:
        entries = sorted(os.scandir(top), key=lambda entry: entry.name)
    except OSError:
        return rules
    for entry in entries:
        try:
            if entry.is_symlink() and not links:
                continue  # reached at its real place, if that is inside the project; never through here
            child_is_dir = entry.is_dir()  # in a trusted tree a link's rule lands on its target
        except OSError:
            continue
        rules += split_rules(entry.path, special, kind, child_is_dir, links=links)
    return rules


def home_secrets(home: str | None, paicli_home: str | None) -> list[str]:
    paths = [os.path.join(home, name) for name in HOME_SECRETS] if home else []
    if paicli_home:
        paths.append(paicli_home)
    return [os.path.realpath(path) for path in paths]


def program_dirs(path_var: str, home: str | None) -> list[str]:
    """PATH's folders outside the system ones, the tool installs they belong to, and this Python."""
    found: list[str] = []
    for entry in path_var.split(":"):
        if not entry.startswith("/"):
            continue
        real = os.path.realpath(entry)
        found.append(real)
        parent = os.path.dirname(real)
        if os.path.basename(parent) in TOOL_ROOTS:
            found.append(parent)
    if home and os.path.realpath(os.path.join(home, ".cargo", "bin")) in found:
        found.append(os.path.realpath(os.path.join(home, ".rustup")))
    found += [os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)]
    return list(dict.fromkeys(found))


@dataclass(frozen=True)
class Policy:
    """One command's file policy: the Landlock rules, the walk they came from (for the check afterwards), the
    secrets they leave out, and the paths its own file tree shows where user namespaces allow one."""

    rules: tuple[Rule, ...]
    walk: ProjectWalk
    secrets: tuple[str, ...]
    exposed: tuple[str, ...]


def command_policy(
    project: Path, env: Mapping[str, str], private_tmp: str, paicli_home: str | None
) -> Policy:
    """The whole file policy of one sandboxed command."""
    root = os.path.realpath(project)
    home = env.get("HOME")
    secrets = home_secrets(home, paicli_home)
    walk = walk_project(root)
    walk.special.update({path: "none" for path in secrets if path == root or path.startswith(root + "/")})
    rules = split_rules(root, walk.special, "rw")
    rules += [("ro", path) for path in SYSTEM_READ]
    outside = _readable_outside(program_dirs(env.get("PATH", ""), home), root, secrets)
    rules += outside
    # only root can read shadow, sudoers and host keys anyway: split /etc (one rule per entry) just for root
    hidden_etc = {f"/etc/{name}": "none" for name in ETC_SECRETS} if os.geteuid() == 0 else {}
    rules += split_rules("/etc", hidden_etc, "ro", links=True)
    rules += [("dir", "/dev")] + [("rwf", path) for path in DEVICES_RW] + [("rof", p) for p in DEVICES_RO]
    rules.append(("rw", private_tmp))
    readable = [root, private_tmp, "/etc", *SYSTEM_READ, *(path for _, path in outside)]
    # the PATH entries as written (a link to a readable folder), so a program is found under the name given
    named = [
        entry
        for entry in env.get("PATH", "").split(":")
        if entry.startswith("/") and _covered(os.path.realpath(entry), readable)
    ]
    exposed = (*readable, *DEVICES_RW, *DEVICES_RO, *named)
    return Policy(tuple(rules), walk, tuple(secrets), tuple(dict.fromkeys(exposed)))


def _covered(path: str, folders: Iterable[str]) -> bool:
    return any(path == folder or path.startswith(folder.rstrip("/") + "/") for folder in folders)


def _readable_outside(paths: Iterable[str], root: str, secrets: list[str]) -> list[Rule]:
    rules: list[Rule] = []
    for path in paths:
        inside_root = path == root or path.startswith(root + "/")
        holds_secret = any(secret == path or secret.startswith(path + "/") for secret in secrets)
        if not inside_root and not holds_secret:  # the project's own folders keep the project's rules
            rules.append(("ro", path))
    return rules


def encode_policy(rules: Iterable[Rule], userns: bool, extra: Iterable[tuple[str, str]] = ()) -> bytes:
    """The wrapper's NUL-separated policy file; `extra`: its other fields (parent, scratch, the mount plan)."""
    fields = [b"userns", b"1" if userns else b"0"]
    for kind, path in (*rules, *extra):
        fields += [kind.encode(), os.fsencode(path)]
    return b"\0".join(fields) + b"\0"
