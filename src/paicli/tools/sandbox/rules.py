"""Which paths a sandboxed command may read and write: pure functions of the file tree and the environment.

Landlock only ever adds rights and a rule on a folder covers everything beneath it, so "write the project but
not its `.git/`" is expressed by splitting: a folder holding a protected entry gets no rule of its own beyond
listing, and each of its other entries gets the full right. Limits that follow: a
split folder (the project root, any folder holding `.git`, `.env`, `PAI.md`, …) accepts no new entries, and
dependency/cache folders (node_modules, .venv, …) are read-only as a whole without being walked (README,
"Command sandbox").
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from paicli.skipdirs import SKIPPED_DIRS

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


def protected_name(name: str) -> bool:
    """What configures paicli, git or the shell: never written by a sandboxed command."""
    lowered = name.lower()
    if lowered in PROTECTED_DIR_NAMES or lowered == ".envrc" or lowered.startswith(".env"):
        return True
    return lowered.startswith("pai") and lowered.endswith(".md")


def git_dir_shaped(path: str) -> bool:
    """HEAD (even a dangling symlink) beside objects/ and refs/: git would take the folder for a repository."""
    return os.path.lexists(os.path.join(path, "HEAD")) and all(
        os.path.isdir(os.path.join(path, name)) for name in ("objects", "refs")
    )


@dataclass
class _Walk:
    special: dict[str, str]
    budget: int


def find_special(root: str, budget: int = WALK_BUDGET) -> dict[str, str]:
    """Every protected entry under `root` (→ "ro"); once the budget is spent, unvisited folders (→ "ro")."""
    walk = _Walk({}, budget)
    _visit(root, walk)
    return walk.special


def _visit(folder: str, walk: _Walk) -> None:
    if walk.budget <= 0:
        walk.special[folder] = "ro"
        return
    walk.budget -= 1
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if protected_name(entry.name):
            walk.special[entry.path] = "ro"
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


def split_rules(top: str, special: Mapping[str, str], kind: str, is_dir: bool = True) -> list[Rule]:
    """Rules giving `kind` beneath `top` except at `special` paths, which get their own kind ("none": nothing).
    A file's rule says so (`rof`, `rwf`): the wrapper then need not look."""
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
            child_is_dir = entry.is_dir()  # a symlink's rule lands on its target, as Landlock resolves it
        except OSError:
            continue
        rules += split_rules(entry.path, special, kind, child_is_dir)
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


def command_rules(
    project: Path, env: Mapping[str, str], private_tmp: str, paicli_home: str | None
) -> list[Rule]:
    """The whole file policy of one sandboxed command."""
    root = os.path.realpath(project)
    home = env.get("HOME")
    secrets = home_secrets(home, paicli_home)
    special = find_special(root)
    special.update({path: "none" for path in secrets if path == root or path.startswith(root + "/")})
    rules = split_rules(root, special, "rw")
    rules += [("ro", path) for path in SYSTEM_READ]
    rules += _readable_outside(program_dirs(env.get("PATH", ""), home), root, secrets)
    # only root can read shadow, sudoers and host keys anyway: split /etc (one rule per entry) just for root
    hidden_etc = {f"/etc/{name}": "none" for name in ETC_SECRETS} if os.geteuid() == 0 else {}
    rules += split_rules("/etc", hidden_etc, "ro")
    rules += [("dir", "/dev")] + [("rwf", path) for path in DEVICES_RW] + [("rof", p) for p in DEVICES_RO]
    rules.append(("rw", private_tmp))
    return rules


def _readable_outside(paths: Iterable[str], root: str, secrets: list[str]) -> list[Rule]:
    rules: list[Rule] = []
    for path in paths:
        inside_root = path == root or path.startswith(root + "/")
        holds_secret = any(secret == path or secret.startswith(path + "/") for secret in secrets)
        if not inside_root and not holds_secret:  # the project's own folders keep the project's rules
            rules.append(("ro", path))
    return rules


def encode_policy(rules: Iterable[Rule], userns: bool) -> bytes:
    """The wrapper's NUL-separated policy file."""
    fields = [b"userns", b"1" if userns else b"0"]
    for kind, path in rules:
        fields += [kind.encode(), os.fsencode(path)]
    return b"\0".join(fields) + b"\0"
