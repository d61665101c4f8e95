"""Values of the snapshot store: a snapshot, one file change between two trees, the project key."""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from paicli.textsafe import encodable

SnapshotKind = Literal["turn", "restore"]
ChangeStatus = Literal["A", "D", "M", "T"]  # git's raw diff letters, from the current tree to the target
KIND_TEXT: dict[str, str] = {"turn": "轮次开始前", "restore": "恢复之前"}
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
LABEL_CHARS = 60
MAX_LISTED_SKIPS = 50


def project_key(project_root: Path) -> str:
    """`<folder name>-<hash of the real path>`: readable, and two folders of the same name never share."""
    real = os.path.realpath(project_root)
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:16]
    name = _SAFE.sub("_", os.path.basename(real) or "root").strip("._")[:40] or "project"
    return f"{name}-{digest}"


def one_line(text: str, limit: int = LABEL_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def shown_path(path: bytes) -> str:
    """A file name as text for a person: odd bytes as \\xNN, control characters escaped (a newline in a name
    must not start a new line of the listing)."""
    text = encodable(os.fsdecode(path))
    return "".join(char if char.isprintable() or char == " " else repr(char)[1:-1] for char in text)


@dataclass(frozen=True)
class Tag:
    """What a snapshot was taken for, kept in its commit subject: the turn (or Plan/Team run) it came before,
    so a listing can tell a run's steps apart and `/undo` can take a whole run back."""

    label: str = ""  # the first words of the turn's input (a restore: what it restored)
    session: str = ""
    unit: str = ""  # one turn or one Plan/Team run; its first snapshot is the state before it
    turn: int = 0  # the turn's number in its session (0: not known)
    step: int = 0  # the n-th snapshot of its unit (a run's tasks and steps take one each)
    mode: str = ""  # react, plan or team


@dataclass(frozen=True)
class Snapshot:
    ref: str
    commit: str
    created_ms: int
    kind: str
    label: str = ""
    session: str = ""
    skipped: tuple[str, ...] = ()
    number: int = 0  # the stable id shown as #N (0: taken before ids existed)
    unit: str = ""
    turn: int = 0
    step: int = 0
    mode: str = ""

    @staticmethod
    def tagged(kind: str, created_ms: int, tag: Tag, skipped: tuple[str, ...], number: int) -> Snapshot:
        return Snapshot(
            "",
            "",
            created_ms,
            kind,
            one_line(tag.label),
            tag.session,
            skipped,
            number,
            tag.unit,
            tag.turn,
            tag.step,
            tag.mode,
        )

    @property
    def unit_key(self) -> str:
        """Snapshots of one turn or run share it; a snapshot without a unit is a unit of its own."""
        return self.unit or self.ref

    def message(self) -> str:
        """The commit subject: one JSON line (ASCII), read back by `from_subject`."""
        data: dict[str, Any] = {"kind": self.kind, "created": self.created_ms, "label": self.label}
        optional = {
            "id": self.number,
            "session": self.session,
            "unit": self.unit,
            "turn": self.turn,
            "step": self.step,
            "mode": self.mode,
        }
        data.update({key: value for key, value in optional.items() if value})
        if self.skipped:
            data["skipped"] = list(self.skipped[:MAX_LISTED_SKIPS])
        return json.dumps(data, ensure_ascii=True, separators=(",", ":"))

    @staticmethod
    def from_subject(ref: str, commit: str, subject: str) -> Snapshot | None:
        try:
            data = json.loads(subject)
        except ValueError:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("created"), int):
            return None
        skipped = data.get("skipped")
        return Snapshot(
            ref,
            commit,
            data["created"],
            str(data.get("kind", "turn")),
            str(data.get("label", "")),
            str(data.get("session", "")),
            tuple(str(item) for item in skipped) if isinstance(skipped, list) else (),
            _number(data.get("id")),
            str(data.get("unit", "")),
            _number(data.get("turn")),
            _number(data.get("step")),
            str(data.get("mode", "")),
        )


def _number(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


@dataclass(frozen=True)
class Change:
    """One path that differs between the current tree and the target snapshot."""

    status: ChangeStatus
    path: bytes
    old_mode: str = ""
    new_mode: str = ""

    @property
    def removes(self) -> bool:
        """The current entry goes first: deleted, or replaced by another type (file <-> symlink)."""
        return self.status in ("D", "T")

    @property
    def writes(self) -> bool:
        return self.status in ("A", "M", "T")


@dataclass(frozen=True)
class Staged:
    """The working tree as the side index now records it."""

    tree: str
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True)
class RestorePlan:
    target: Snapshot
    changes: tuple[Change, ...]
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True)
class RestoreResult:
    target: Snapshot
    before: Snapshot  # the state just before the restore: restoring it undoes the restore
    changes: tuple[Change, ...]
    conflicts: tuple[str, ...] = field(default_factory=tuple)
