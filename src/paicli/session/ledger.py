"""ConversationLedger (spec 3.1-3.3): the append-only JSONL record of a session.

Every entry is one compact JSON line written with a single `os.write` on an `O_APPEND` descriptor and
fsynced before the caller goes on. Bytes once written are never touched again. I/O failures are reported
once through `on_error` and swallowed: the ledger must never break the agent.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paicli.llm.messages import Message
from paicli.redact import Redactor
from paicli.session import flock
from paicli.session.catalog_scan import LISTING_CAP_BYTES, scan_ledger
from paicli.session.ledger_index import read_index
from paicli.session.ledger_keys import REFS_KEY, VIEW_CHECKPOINT_EVENT
from paicli.session.scan import read_last_sequence
from paicli.session.system_refs import (
    RECENT,
    SYSTEM_UNCHANGED_EVENT,
    SystemRef,
    digest,
    recent_systems,
    reference_metadata,
)

if TYPE_CHECKING:
    from paicli.session.resume import LedgerEntry

SCHEMA_VERSION = 1
SESSION_START_EVENT = "session_start"
SESSION_RESUMED_EVENT = "session_resumed"
MODEL_CHANGE_EVENT = "model_change"  # `/model`: {model, provider}
_SESSION_ID = re.compile(r"[A-Za-z0-9._-]+")

Clock = Callable[[], int]
ErrorSink = Callable[[str], None]


def epoch_millis() -> int:
    return time.time_ns() // 1_000_000


def ledger_dir(home: Path) -> Path:
    return home / "history" / "raw"


def new_session_id(clock: Clock = epoch_millis) -> str:
    return f"session-{clock()}-{uuid.uuid4()}"


def validate_session_id(session_id: str) -> str:
    if not _SESSION_ID.fullmatch(session_id) or session_id in (".", ".."):
        raise ValueError(f"invalid session id: {session_id!r}")
    return session_id


def event_for(message: Message) -> str:
    """Message -> ledger event (spec 3.1)."""
    if message.role == "system":
        return "system"
    if message.role == "user":
        return "user"
    if message.role == "tool":
        return "tool_result"
    if message.role == "assistant":
        return "tool_call" if message.tool_calls else "assistant"
    return "message"


def encode_entry(entry: Mapping[str, Any]) -> bytes:
    text = json.dumps(entry, ensure_ascii=False, separators=(",", ":"), default=str)
    try:
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        # a lone surrogate (e.g. half an emoji split across stream chunks) has no UTF-8 form: escape the
        # whole line as ASCII JSON, which reads back to exactly the same strings
        return (json.dumps(entry, ensure_ascii=True, separators=(",", ":"), default=str) + "\n").encode(
            "ascii"
        )


def _ensure_private_dir(directory: Path) -> None:
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    if os.name == "posix":
        os.chmod(directory, 0o700)


class ConversationLedger:
    """Satisfies `paicli.agent.ports.LedgerPort`. Build with `create`, `open_existing`, `open_in` or `disabled`."""

    def __init__(
        self,
        path: Path | None,
        session_id: str,
        next_sequence: int = 1,
        *,
        clock: Clock = epoch_millis,
        secrets: Sequence[str] = (),
        on_error: ErrorSink | None = None,
        needs_newline: bool = False,
    ) -> None:
        self._path = path
        self._session_id = session_id
        self._sequence = next_sequence
        self._clock = clock
        self._redactor = Redactor(secrets)
        self._on_error = on_error
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._needs_newline = needs_newline
        self._last_error: str | None = None
        self._reported = False
        self._lock_fd: int | None = None
        self._systems: dict[tuple[str, str], dict[str, SystemRef]] = {}  # recent prompts per (mode, actor)
        self._continued = next_sequence > 1  # an existing file: its last prompt is read back on demand

    # --- construction -------------------------------------------------------------------------------

    @classmethod
    def disabled(cls, reason: str | None = None) -> ConversationLedger:
        ledger = cls(None, "", 0)
        ledger._last_error = reason
        return ledger

    @classmethod
    def create(
        cls,
        home: Path,
        project_root: Path,
        model: str,
        provider: str,
        version: str,
        clock: Clock = epoch_millis,
        *,
        secrets: Sequence[str] = (),
        on_error: ErrorSink | None = None,
        mode: str = "react",
    ) -> ConversationLedger:
        """A new `history/raw/session-<millis>-<uuid>.jsonl` starting with a session_start event.

        When the folder cannot be made, returns a disabled ledger and reports the reason once.
        """
        session_id = new_session_id(clock)
        directory = ledger_dir(home)
        try:
            _ensure_private_dir(directory)
            path = directory / f"{session_id}.jsonl"
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except OSError as exc:
            text = f"原始会话账本初始化失败: {exc}"
            if on_error is not None:
                on_error(text)
            return cls.disabled(text)
        ledger = cls(path, session_id, 1, clock=clock, secrets=secrets, on_error=on_error)
        metadata = {
            "projectRoot": str(project_root.resolve()),
            "model": model,
            "provider": provider,
            "paicliVersion": version,
            "pid": os.getpid(),
        }
        ledger.append_event(SESSION_START_EVENT, mode, "cli", "startup", metadata)
        return ledger

    @classmethod
    def open_in(cls, directory: Path, session_id: str, **kwargs: Any) -> ConversationLedger:
        """`<directory>/<session_id>.jsonl` (the reference's `open(dir, sessionId)`), created if missing."""
        validate_session_id(session_id)
        _ensure_private_dir(directory)
        path = directory / f"{session_id}.jsonl"
        if not path.exists():
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        return cls.open_existing(path, **kwargs)

    @classmethod
    def open_existing(
        cls,
        path: Path,
        *,
        clock: Clock = epoch_millis,
        secrets: Sequence[str] = (),
        on_error: ErrorSink | None = None,
    ) -> ConversationLedger:
        """Continue an existing ledger: the sequence goes on at max+1 (read from the last lines only).

        A torn last line (no trailing newline) is closed with a newline before the next entry.
        """
        session_id = validate_session_id(
            path.name[: -len(".jsonl")] if path.name.endswith(".jsonl") else path.name
        )
        last, torn = read_last_sequence(path)
        return cls(
            path, session_id, last + 1, clock=clock, secrets=secrets, on_error=on_error, needs_newline=torn
        )

    # --- properties ----------------------------------------------------------------------------------

    @property
    def session_id(self) -> str:
        return self._session_id

    @property
    def redactor(self) -> Redactor:
        """The ledger's redactor (configured keys + secret shapes), for other files written from the session."""
        return self._redactor

    @property
    def path(self) -> Path | None:
        return self._path

    @property
    def enabled(self) -> bool:
        return self._path is not None

    @property
    def last_error(self) -> str | None:
        return self._last_error

    @property
    def next_sequence(self) -> int:
        return self._sequence

    # --- writing -------------------------------------------------------------------------------------

    def append_message(
        self,
        mode: str,
        actor: str,
        source: str,
        message: Message,
        metadata: Mapping[str, Any] | None = None,
    ) -> int | None:  # the entry's sequence (None: nothing written, or a system prompt)
        if message.role == "system" and not metadata:
            self._append_system(mode, actor, source, message)
            return None
        return self._append(event_for(message), mode, actor, source, message.to_json(), metadata or {})

    def _append_system(self, mode: str, actor: str, source: str, message: Message) -> None:
        """A prompt equal to one of the last few of (mode, actor) is written as a reference (session.system_refs)."""
        payload = message.to_json()
        key = (mode, actor)
        if key not in self._systems:
            self._systems[key] = (
                recent_systems(self._path, mode, actor) if self._path and self._continued else {}
            )
        recent, sha = self._systems[key], digest(self._redactor.value(payload))
        known = recent.pop(sha, None)
        if known is not None:
            recent[sha] = known  # the newest used
            self._append(SYSTEM_UNCHANGED_EVENT, mode, actor, source, None, reference_metadata(known))
            return
        sequence = self._append("system", mode, actor, source, payload, {})
        if sequence is not None:
            recent[sha] = SystemRef(sequence, sha)
            while len(recent) > RECENT:
                del recent[next(iter(recent))]  # the oldest-stored one

    def append_event(
        self, event: str, mode: str, actor: str, source: str, metadata: Mapping[str, Any]
    ) -> None:
        self._append(event, mode, actor, source, None, metadata)

    def record_view_checkpoint(
        self,
        source: str,
        history: Sequence[Message],
        extra: Mapping[str, Any] | None = None,
        *,
        mode: str = "react",
        actor: str = "agent",
    ) -> None:
        """The whole view the model will see next, minus the system prompt (spec 3.3).

        Call after every change of the view that is not a plain append: each compaction level, tool-result
        clearing, /clear, image pruning, and a resume that had to repair the view.
        """
        if not self.enabled:
            return
        messages = history[1:] if history and history[0].role == "system" else history
        metadata = dict(extra or {})
        metadata["messages"] = [m.to_json() for m in messages]
        if any(m.ref is not None for m in messages):
            metadata[REFS_KEY] = [list(m.ref) if m.ref is not None else None for m in messages]
        self.append_event(VIEW_CHECKPOINT_EVENT, mode, actor, source, metadata)

    def mark_resumed(self, metadata: Mapping[str, Any] | None = None, mode: str = "react") -> None:
        """The point where a later process continued this session (`/resume`, `--resume`, `-c`)."""
        self.append_event(
            SESSION_RESUMED_EVENT, mode, "cli", "resume", {"pid": os.getpid(), **(metadata or {})}
        )

    def read_all(self) -> list[LedgerEntry]:
        """Every readable entry, in file order (the reference's `readAll()`; tests and tooling)."""
        if self._path is None or not self._path.exists():
            return []
        from paicli.session.resume import parse_entries  # the fold: read back for a resume or an export

        return parse_entries(self._path.read_bytes().splitlines())[0]

    def claim(self) -> bool:
        """Hold the session's exclusive lock until `close` (session.flock). False: another process has it."""
        if self._path is None or self._lock_fd is not None:
            return True
        try:
            self._lock_fd = flock.try_lock(self._path)
        except OSError:
            return True  # a ledger we cannot even open for the lock fails (and reports) on write instead
        return self._lock_fd is not None

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                with contextlib.suppress(OSError):
                    os.close(self._fd)
                self._fd = None
                # still ours alone: the side files take in this run's lines now, so the next resume and the
                # next listing read none of them again
                if self._path is not None:
                    with contextlib.suppress(OSError):
                        read_index(self._path)
                        scan_ledger(self._path, LISTING_CAP_BYTES)
            flock.release(self._lock_fd)
            self._lock_fd = None

    def _append(
        self,
        event: str,
        mode: str,
        actor: str,
        source: str,
        message: Mapping[str, Any] | None,
        metadata: Mapping[str, Any],
    ) -> int | None:
        if self._path is None:
            return None
        with self._lock:
            entry = {
                "schemaVersion": SCHEMA_VERSION,
                "sessionId": self._session_id,
                "sequence": self._sequence,
                "timestamp": self._clock(),
                "event": event,
                "mode": mode,
                "actor": actor,
                "source": source,
                "message": self._redactor.value(message) if message is not None else None,
                "metadata": self._redactor.value(metadata),
            }
            try:
                data = encode_entry(entry)
            except (TypeError, ValueError) as exc:
                self._report(f"会话账本写入失败（无法编码 {event} 事件）: {exc}")
                return None
            self._sequence += 1
            self._write(data)
            return int(entry["sequence"])

    def _write(self, data: bytes) -> None:
        assert self._path is not None
        if self._needs_newline:
            data = b"\n" + data
        try:
            if self._fd is None:
                self._fd = os.open(self._path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            view = memoryview(data)
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
                self._needs_newline = bool(view)
            os.fsync(self._fd)
        except OSError as exc:
            self._needs_newline = True
            self._report(f"会话账本写入失败，本次会话的记录可能不完整: {exc}")

    def _report(self, text: str) -> None:
        self._last_error = text
        if self._reported:
            return
        self._reported = True
        if self._on_error is not None:
            # a broken reporter must not break the agent either
            with contextlib.suppress(Exception):
                self._on_error(text)
