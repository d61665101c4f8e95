"""Where the permission rules live: `<paicli home>/permissions.json` (the user's) and, only in a folder the user
trusted, the project's `.paicli/permissions.json` (read through `config/projectfile.py`, ask and deny only).

The files are read again at every decision (they are a few hundred bytes), so an edit, `/permissions` or a
trust answer applies to the next call without a restart."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from paicli.config.projectfile import read_project_text

if TYPE_CHECKING:
    from paicli.tools.rules import Rule, RuleKind, RuleSet

# The rules' grammar (tools/rules.py) loads when a call is judged or /permissions edits them, not when a
# session only holds the book.

PERMISSIONS_FILE = "permissions.json"
PROJECT_PERMISSIONS = Path(".paicli") / PERMISSIONS_FILE
_MAX_BYTES = 256_000


class RuleFileError(Exception):
    """The user's file cannot be changed without losing what is in it (it is not valid JSON of the shape)."""


class RuleBook:
    def __init__(self, home: Path, project_root: Path, trusted: Callable[[], bool] = lambda: False) -> None:
        self.user_path = home / PERMISSIONS_FILE
        self.project_root = project_root
        self._trusted = trusted
        self._lock = threading.Lock()

    def current(self) -> RuleSet:
        from paicli.tools.rules import RuleSet

        user = RuleSet.of(_user_data(self.user_path), "user")
        if not self._trusted():
            return user
        text = read_project_text(self.project_root / PROJECT_PERMISSIONS, self.project_root, _MAX_BYTES)
        if text is None:
            return user
        return user.plus(RuleSet.of(_parsed(text), "project"))

    def project_ignored(self) -> bool:
        """The folder has a permissions file that does not apply (untrusted): /permissions says so."""
        if self._trusted():
            return False
        return read_project_text(self.project_root / PROJECT_PERMISSIONS, self.project_root, 1) is not None

    def add(self, kind: RuleKind, entry: str) -> Rule | None:
        """Append one entry to the user's file (None: not a valid entry); an entry already there stays once.
        Raises RuleFileError rather than overwrite a file it cannot read."""
        from paicli.tools.rules import parse_entry

        rule = parse_entry(kind, entry)
        if rule is None:
            return None
        with self._lock:
            data = self._editable()
            if rule.entry not in data[kind]:
                data[kind].append(rule.entry)
            self._write(data)
        return rule

    def remove(self, rule: Rule) -> bool:
        """Drop a user rule from the user's file; False when it is not there (already removed, or a project rule)."""
        if rule.source != "user":
            return False
        with self._lock:
            data = self._editable()
            kept = [entry for entry in data[rule.kind] if _entry_of(rule.kind, entry) != rule.entry]
            if len(kept) == len(data[rule.kind]):
                return False
            data[rule.kind] = kept
            self._write(data)
        return True

    def _editable(self) -> dict[str, list[str]]:
        data = _user_data(self.user_path)
        if not isinstance(data, dict):
            from paicli.tools.rules import RuleSet

            raise RuleFileError(
                f"{self.user_path} 无法修改（{RuleSet.of(data, 'user').problems[0]}），请先手动修正"
            )
        return _lists(data)

    def _write(self, data: dict[str, list[str]]) -> None:
        from paicli.config.saved import write_private

        write_private(self.user_path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def _entry_of(kind: RuleKind, entry: str) -> str | None:
    from paicli.tools.rules import parse_entry

    rule = parse_entry(kind, entry)
    return rule.entry if rule is not None else None


def _parsed(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError as error:
        return f"JSON 无法解析: {error}"


def _user_data(path: Path) -> object:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as error:
        return f"无法读取: {error}"
    return _parsed(text)


def _lists(data: object) -> dict[str, list[str]]:
    """The file's lists, each kept as written (entries of other shapes too), ready to change and write back."""
    from paicli.tools.rules import KINDS

    source = data if isinstance(data, dict) else {}
    return {kind: list(value) if isinstance(value := source.get(kind, []), list) else [] for kind in KINDS}
