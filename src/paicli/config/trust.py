"""Which project folders the user trusted to change prompts or run code (`trusted_folders.json` in the paicli home).

A repository's `.paicli/skills/`, `.paicli/prompts/` and `.paicli/mcp.json` change what the model is told or
what runs on the user's machine, so they apply only in a folder the user trusted. The REPL asks once per
folder and records the answer here, keyed by the folder's real path; `-p` and piped runs never ask (they
ignore the folder's configuration unless `--trust-project` is given). `PAI.md` is not on the list: it is the
project memory and always loaded, as untrusted content.

A folder that brought nothing at start needs no answer, but that is no answer for what appears later (a
checkout, a command, a write): `ProjectTrust` looks again whenever the answer is used, and configuration that
appeared since start applies only if the user trusted the folder before (the next start asks).
"""

from __future__ import annotations

import json
import os
import threading
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from paicli.config.projectfile import contained_dir, contained_file

TRUST_FILE = "trusted_folders.json"
_MAX_LISTED = 12

Decision = Literal["trusted", "untrusted", "ask"]


@dataclass(frozen=True)
class Brought:
    """One piece of project configuration that needs trust: its path relative to the root and what it is."""

    path: str
    kind: str


def folder_key(root: Path) -> str:
    return os.path.realpath(root)


def project_brings(root: Path) -> list[Brought]:
    """What the folder would change if trusted (only entries whose real path lies inside the project)."""
    base = root / ".paicli"
    if not os.path.lexists(base):  # everything below is inside it: one lstat instead of a dozen real paths
        return []  # (asked again at every use of a watched trust, so a greeting asks it about ten times)
    found: list[Brought] = []
    skills = contained_dir(base / "skills", root)
    if skills is not None:
        for folder in _sorted_children(skills):
            if contained_file(folder / "SKILL.md", root) is not None:
                found.append(Brought(f".paicli/skills/{folder.name}", "Skill"))
    prompts = contained_dir(base / "prompts", root)
    if prompts is not None:
        for path in sorted(prompts.rglob("*")):
            if contained_file(path, root) is not None:
                found.append(Brought(f".paicli/prompts/{path.relative_to(prompts).as_posix()}", "提示词覆盖"))
    if contained_file(base / "mcp.json", root) is not None:
        found.append(Brought(".paicli/mcp.json", "MCP 服务器配置"))
    commands = contained_dir(base / "commands", root)
    if commands is not None and any(contained_file(path, root) for path in sorted(commands.glob("*.md"))):
        found.append(Brought(".paicli/commands/", "命令文件"))
    if contained_file(base / "hooks.json", root) is not None:
        found.append(Brought(".paicli/hooks.json", "钩子（会执行命令）"))
    if contained_file(base / "permissions.json", root) is not None:
        found.append(Brought(".paicli/permissions.json", "权限规则（只能添加询问和拒绝）"))
    return found


def _sorted_children(folder: Path) -> list[Path]:
    try:
        return sorted(child for child in folder.iterdir() if child.is_dir())
    except OSError:
        return []


def shown_name(text: str) -> str:
    """A repository file name as shown on the terminal: control characters (escape sequences) made visible."""
    return "".join(
        f"\\x{ord(ch):02x}" if unicodedata.category(ch) in ("Cc", "Cf") or ch == "\x7f" else ch for ch in text
    )


def describe_brought(items: list[Brought]) -> list[str]:
    lines = [f"  - {shown_name(item.path)}（{item.kind}）" for item in items[:_MAX_LISTED]]
    if len(items) > _MAX_LISTED:
        lines.append(f"  - …另有 {len(items) - _MAX_LISTED} 项")
    return lines


class TrustStore:
    """`trusted_folders.json`: {"folders": {"<real path>": {"trusted": bool, "at": iso}}}; 0600."""

    def __init__(self, paicli_home: Path) -> None:
        self.path = paicli_home / TRUST_FILE

    def recorded(self, root: Path) -> bool | None:
        """The recorded answer for this folder, None when it was never asked (or the file is unreadable)."""
        entry = self._folders().get(folder_key(root))
        if isinstance(entry, dict) and isinstance(entry.get("trusted"), bool):
            return bool(entry["trusted"])
        return None

    def record(self, root: Path, trusted: bool) -> None:
        from paicli.config.saved import write_private

        folders = self._folders()
        folders[folder_key(root)] = {
            "trusted": trusted,
            "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
        payload = json.dumps({"version": 1, "folders": folders}, ensure_ascii=False, indent=2) + "\n"
        write_private(self.path, payload)

    def _folders(self) -> dict[str, object]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        folders = data.get("folders") if isinstance(data, dict) else None
        return dict(folders) if isinstance(folders, dict) else {}


def decide(brought: bool, recorded: bool | None, flag: bool, interactive: bool) -> Decision:
    """Pure policy: `--trust-project` wins; a folder bringing nothing needs no trust; a recorded answer
    stands; a terminal is asked; anything else (-p, piped) is untrusted."""
    if flag or not brought:
        return "trusted"
    if recorded is not None:
        return "trusted" if recorded else "untrusted"
    return "ask" if interactive else "untrusted"


def untrusted_line(items: list[Brought], refused: bool = False) -> str:
    """The one stderr line of a run that ignores the folder's configuration; `refused`: the user said no."""
    kinds = "、".join(dict.fromkeys(_top(item.path) for item in items))
    if refused:
        return f"paicli: 你之前没有信任此文件夹，已忽略它的项目配置（{kinds}）；要启用请用 paicli --trust-project 启动"
    return (
        f"paicli: 此文件夹未被信任，已忽略它的项目配置（{kinds}）；"
        "信任此文件夹请加 --trust-project（REPL 里会询问一次）"
    )


def _top(path: str) -> str:
    parts = path.split("/")
    return "/".join(parts[:2]) + ("/" if len(parts) > 2 else "")


class ProjectTrust:
    """The session's answer to "does this folder's configuration apply", read each time it is used.

    `watch`: the folder was trusted only because it brought no configuration at start. Once configuration
    appears, the answer becomes what the user recorded for the folder (none recorded: not trusted for the
    rest of the session), and `notify` gets one line saying so.
    """

    def __init__(
        self,
        root: Path,
        trusted: bool,
        *,
        watch: bool = False,
        store: TrustStore | None = None,
        notify: Callable[[str], None] | None = None,
    ) -> None:
        self.root = root
        self._trusted = trusted
        self._watch = watch and trusted
        self._store = store
        self.notify = notify
        self._lock = threading.Lock()

    @classmethod
    def of(cls, value: bool | ProjectTrust) -> ProjectTrust:
        """A fixed answer for a plain bool (tests, callers that decided once)."""
        return value if isinstance(value, ProjectTrust) else cls(Path("."), bool(value))

    @property
    def trusted(self) -> bool:
        with self._lock:
            if not self._watch:
                return self._trusted
        brought = project_brings(self.root)
        if not brought:
            return True
        recorded = self._store.recorded(self.root) if self._store is not None else None
        with self._lock:
            if not self._watch:  # another thread got here first
                return self._trusted
            self._watch, self._trusted = False, recorded is True
        if not self._trusted and self.notify is not None:
            self.notify(appeared_line(brought))
        return self._trusted


def appeared_line(items: list[Brought]) -> str:
    kinds = "、".join(dict.fromkeys(_top(item.path) for item in items))
    return (
        f"⚠️ 会话开始后此文件夹里出现了项目配置（{kinds}），它在本次会话中不会生效；"
        "下次启动时会询问是否信任此文件夹（或用 paicli --trust-project 启动）"
    )
