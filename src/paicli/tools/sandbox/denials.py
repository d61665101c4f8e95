"""What the sandbox refused, read from a command's output against its own policy.

No audit trail reaches an unprivileged process (Landlock logs to the kernel audit log; seccomp says nothing),
so the refusal is inferred, and only where the policy itself explains it. A line of output that reports a
refusal (`Permission denied`, `Operation not permitted`, `Read-only file system`, their Chinese forms, or in
the namespace's own file tree `No such file or directory`) is searched for the paths it names; a path counts
only when the policy denies it what the line says failed and the user could have done it without the
sandbox:
  - write refused: the path lies in a read-only place (outside the project, a protected entry) that the user
    can write;
  - access refused: the path lies where the policy gives nothing (the rest of $HOME, the paicli home, /proc of
    other processes) and exists; with namespaces, "No such file" for a path outside the command's file tree
    that the user has (or whose folder the user has);
  - network: a resolver or connection error (no network inside), or a refusal on a socket call.
It cannot tell when a program names no path, names it in another form (a different working folder, an
encoding), or swallows the error; nor which of several paths on one line failed (it reports the first the
policy explains). Everything here is pure but for `stat`/`access` on the paths named.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from paicli.tools.sandbox.rules import Rule

REFUSED = re.compile(
    r"Permission denied|Operation not permitted|Read-only file system|\bE(?:ACCES|PERM|ROFS)\b"
    r"|permission denied|权限不够|不允许的操作|只读文件系统",
)
MISSING = re.compile(r"No such file or directory|\bENOENT\b|没有那个文件或目录")
NETWORK = re.compile(
    r"Could not resolve host|Temporary failure in name resolution|Name or service not known"
    r"|No address associated with hostname|Network is unreachable|Failed to establish a new connection"
    r"|getaddrinfo|\bEAI_AGAIN\b|\bENOTFOUND\b|\bENETUNREACH\b|Could not resolve proxy|Couldn't connect to server"
    r"|nodename nor servname|Connection refused|\bECONNREFUSED\b|网络不可达|域名解析暂时失败|未知的名称或服务|拒绝连接",
)
_SOCKET_WORDS = re.compile(r"socket|connect|sendto|bind\(|listen|urlopen|http|dns|resolv", re.IGNORECASE)
_QUOTED = re.compile(r"'([^'\n]+)'|\"([^\"\n]+)\"|‘([^’\n]+)’|“([^”\n]+)”|`([^'`\n]+)'")
_TOKEN = re.compile(r"[^\s:'\"‘’“”`,;()\[\]]+")
MAX_LINES = 4000
MAX_REPORTED = 5


@dataclass(frozen=True)
class Denial:
    kind: str  # write | create | access | hidden | network
    path: str  # as shown to the user ("" for network)


@dataclass(frozen=True)
class FenceView:
    """What explaining needs of one command's policy (all paths real and absolute)."""

    root: str
    cwd: str
    home: str
    rules: tuple[Rule, ...]
    exposed: tuple[str, ...] | None  # the bound paths of the namespace's tree; None without one


def rights(path: str, rules: Iterable[Rule]) -> set[str]:
    """What Landlock grants at `path` (read, write, list), from rules that hold real paths."""
    granted: set[str] = set()
    for kind, where in rules:
        is_file = kind.endswith("f")
        inside = path == where or (not is_file and path.startswith(where.rstrip("/") + "/"))
        if inside:
            granted |= {"ro": {"read"}, "rw": {"read", "write"}, "dir": {"list"}}[kind.rstrip("f")]
    return granted


def real_rules(rules: Iterable[Rule]) -> tuple[Rule, ...]:
    return tuple((kind, os.path.realpath(path)) for kind, path in rules)


def _candidates(line: str) -> list[str]:
    found = [next(group for group in match.groups() if group) for match in _QUOTED.finditer(line)]
    for token in _TOKEN.findall(line):
        token = token.rstrip(".")
        if "/" in token or (token.startswith((".", "~")) and token.strip(".")):
            found.append(token)
    for piece in line.split(": ")[1:-1]:  # `cat: notes.txt: Permission denied`
        piece = piece.strip().strip("'\"‘’“”`")
        if piece and " " not in piece:
            found.append(piece)
    return list(dict.fromkeys(found))


_OWN = ("/proc/self", "/proc/thread-self", "/dev/fd", "/dev/std")  # the command's own: not paicli's


def _resolve(text: str, view: FenceView) -> str:
    if text == "~" or text.startswith("~/"):
        text = view.home + text[1:]
    joined = os.path.join(view.cwd, text)
    return os.path.normpath(joined) if joined.startswith(_OWN) else os.path.realpath(joined)


def _user_may_write(path: str) -> bool:
    if os.path.lexists(path):
        return os.access(path, os.W_OK, follow_symlinks=False)
    parent = os.path.dirname(path)
    return os.path.isdir(parent) and os.access(parent, os.W_OK)


def _covered(path: str, folders: Iterable[str]) -> bool:
    return any(path == folder or path.startswith(folder.rstrip("/") + "/") for folder in folders)


def _verdict(path: str, view: FenceView, missing: bool) -> str | None:
    """The kind of refusal the policy explains at `path`, or None."""
    if missing:  # only the namespace's own tree hides a path the user has
        if view.exposed is None or _covered(path, view.exposed):
            return None
        there = os.path.lexists(path) or os.path.isdir(os.path.dirname(path))
        return "hidden" if there else None
    granted = rights(path, view.rules)
    if "list" in granted and os.path.isdir(path):
        granted.add("read")
    if "write" in granted:
        return None
    if not os.path.lexists(path):
        if not _user_may_write(path):
            return None
        parent = os.path.dirname(path)
        split = rights(parent, view.rules) == {"list"}  # a folder holding protected entries: listed only
        return "create" if split and (parent == view.root or parent.startswith(view.root + "/")) else "write"
    if "read" in granted:
        return "write" if _user_may_write(path) else None
    return "access"


def _shown(path: str, view: FenceView) -> str:
    if path == view.root or path.startswith(view.root + "/"):
        return os.path.relpath(path, view.root)
    if view.home and path.startswith(view.home.rstrip("/") + "/"):
        return "~" + path[len(view.home.rstrip("/")) :]
    return path


def _network_context(lines: Sequence[str], index: int) -> bool:
    return any(_SOCKET_WORDS.search(line) for line in lines[max(0, index - 4) : index + 1])


def may_show_denials(output: str) -> bool:
    """A cheap first look: only output that reports some refusal is explained (that costs the rules' realpaths)."""
    return any(pattern.search(output) for pattern in (REFUSED, MISSING, NETWORK))


def explain(output: str, view: FenceView) -> list[Denial]:
    """The refusals of the sandbox that `output` shows, first seen first, at most MAX_REPORTED."""
    lines = output.splitlines()[-MAX_LINES:]
    found: list[Denial] = []
    for index in range(len(lines)):
        denial = _line_denial(lines, index, view)
        if denial is not None and denial not in found:
            found.append(denial)
            if len(found) >= MAX_REPORTED:
                break
    return found


def _line_denial(lines: Sequence[str], index: int, view: FenceView) -> Denial | None:
    line = lines[index]
    if NETWORK.search(line):
        return Denial("network", "")
    refused = REFUSED.search(line) is not None
    missing = not refused and view.exposed is not None and MISSING.search(line) is not None
    if not refused and not missing:
        return None
    for text in _candidates(line):
        path = _resolve(text, view)
        kind = _verdict(path, view, missing)
        if kind is not None:
            return Denial(kind, _shown(path, view))
    if refused and _network_context(lines, index):
        return Denial("network", "")
    return None


_WORDS = {
    "write": "写入 {}（只读：项目之外或受保护的位置）",
    "create": "新建 {}（含受保护条目的文件夹，如项目根目录，不能新建条目）",
    "access": "访问 {}（项目之外，沙箱不给读写）",
    "hidden": "访问 {}（项目之外，沙箱里看不到它）",
    "network": "联网（沙箱里没有网络，也连不到本机的套接字）",
}


def denial_line(denials: Sequence[Denial]) -> str:
    """The first line of the result when the sandbox refused something (the model and the user both see it)."""
    items = "；".join(_WORDS[denial.kind].format(denial.path) for denial in denials)
    return (
        f"🛡️ 命令沙箱拒绝了：{items}。这是沙箱的限制，不是普通的文件权限问题，换个写法也绕不过去；"
        "如确需这样做，请向用户说明原因，由用户批准后在沙箱外运行。"
    )
