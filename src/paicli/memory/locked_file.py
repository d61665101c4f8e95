"""The locked, atomically rewritten long_term_memory.json (spec 4.4): two locks, temp file + fsync + replace."""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from paicli.cancel import pause_or_cancel
from paicli.config import knobs
from paicli.fsperm import PRIVATE_FILE, ensure_private_dir
from paicli.memory.entry import MemoryEntry
from paicli.memory.jackson import render_object
from paicli.memory.unparsed import Unparsed, interleave, split_items

log = logging.getLogger(__name__)

T = TypeVar("T")
FILE_NAME = "long_term_memory.json"
DEFAULT_LOCK_TIMEOUT = 10.0

_PATH_LOCKS: dict[str, threading.RLock] = {}
_PATH_LOCKS_GUARD = threading.Lock()
_HELD = threading.local()


class MemoryStoreError(Exception):
    """The memory file could not be read, backed up or written; the message is shown to the user."""


class MemoryLockTimeout(MemoryStoreError):
    """Another thread or process held the memory lock longer than the bounded wait."""


def render_json(
    entries: Iterable[MemoryEntry],
    cache: dict[str, tuple[MemoryEntry, str]] | None = None,
    kept: Unparsed | None = None,
) -> str:
    """Jackson's default pretty printer layout: `[ {` ... `}, {` ... `} ]`, `"key" : value`.

    `cache` maps id -> (entry, block) from the previous write; a block is reused only for the same object.
    `kept`: items of the file that are not usable entries, written back in place (see memory.unparsed).
    """
    fresh: dict[str, tuple[MemoryEntry, str]] = {}

    def render_entry(entry: MemoryEntry) -> str:
        hit = cache.get(entry.id) if cache is not None else None
        block = hit[1] if hit is not None and hit[0] is entry else render_object(entry.to_json_dict())
        fresh[entry.id] = (entry, block)
        return block

    blocks = interleave(entries, kept, render_entry) if kept else [render_entry(entry) for entry in entries]
    if cache is not None:
        cache.clear()
        cache.update(fresh)
    if not blocks:
        return "[ ]"
    return "[ " + ", ".join(blocks) + " ]"


class MemoryFile:
    """One JSON file plus its sibling `.lock`: in-process lock per path, then an OS lock across processes."""

    def __init__(self, path: Path, lock_timeout: float = DEFAULT_LOCK_TIMEOUT) -> None:
        self.path = Path(os.path.abspath(path))
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        self.lock_timeout = lock_timeout
        self._signature: tuple[int, int, int] | None = None
        self._digest: bytes | None = None  # of the bytes last read or written
        self._rendered: dict[str, tuple[MemoryEntry, str]] = {}
        self.last_backup: Path | None = None  # where the last unparsable file was copied to
        self.kept = Unparsed()  # items of the file that are not usable entries; every write keeps them
        self._kept_fingerprint = ""
        self.kept_notice: str | None = None  # set when the file first shows such items (and was backed up)
        with _PATH_LOCKS_GUARD:
            self._thread_lock = _PATH_LOCKS.setdefault(str(self.path), threading.RLock())

    def with_lock(self, mutation: Callable[[], T]) -> T:
        self._acquire_thread_lock()
        try:
            held: dict[str, int] = _HELD.__dict__.setdefault("depth", {})
            key = str(self.path)
            if held.get(key, 0) > 0:
                held[key] += 1
                try:
                    return mutation()
                finally:
                    held[key] -= 1
            handle = self._acquire_os_lock()
            held[key] = 1
            try:
                return mutation()
            finally:
                held[key] = 0
                self._release_os_lock(handle)
        finally:
            self._thread_lock.release()

    def _acquire_thread_lock(self) -> None:
        """Bounded by lock_timeout and, inside a cancel_scope, by the tool call's cancel (polled often)."""
        deadline = time.monotonic() + self.lock_timeout
        while not self._thread_lock.acquire(timeout=min(0.05, max(deadline - time.monotonic(), 0.0))):
            if time.monotonic() >= deadline:
                raise MemoryLockTimeout(self._timeout_text())
            pause_or_cancel(0)

    def _timeout_text(self) -> str:
        return (
            f"等待长期记忆文件锁超过 {self.lock_timeout:g} 秒（{self.lock_path}），可能有另一个 paicli（或 Java 版 PaiCLI）进程正在写入；"
            f"已有记忆没有改动，请稍后重试（可用 {knobs.MEMORY_LOCK_TIMEOUT_SECONDS.key} 调整等待时间）"
        )

    def _acquire_os_lock(self) -> Any:
        import portalocker

        try:
            ensure_private_dir(self.path.parent)
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_APPEND, PRIVATE_FILE)
            handle = os.fdopen(fd, "a+b")
        except OSError as exc:
            raise MemoryStoreError(f"无法创建长期记忆目录或锁文件 {self.lock_path}: {exc}") from exc
        flags = portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING
        deadline = time.monotonic() + self.lock_timeout
        pause = 0.0005
        while True:
            try:
                portalocker.lock(handle, flags)
                break
            except portalocker.exceptions.LockException:
                if time.monotonic() >= deadline:
                    handle.close()
                    raise MemoryLockTimeout(self._timeout_text()) from None
                try:
                    pause_or_cancel(pause)
                except BaseException:
                    handle.close()
                    raise
                pause = min(pause * 2, 0.005)  # short: a released lock should not sit idle
        try:
            _take_record_lock(handle, deadline, self._timeout_text())
        except BaseException:
            self._release_os_lock(handle)
            raise
        return handle

    @staticmethod
    def _release_os_lock(handle: Any) -> None:
        import portalocker

        try:
            _drop_record_lock(handle)
            portalocker.unlock(handle)
        finally:
            handle.close()

    def changed_since_last_sync(self) -> bool:
        return _stat_signature(self.path) != self._signature

    def read(self) -> list[MemoryEntry] | None:
        """Entries on disk; [] when missing; None when the file does not parse (it is backed up first)."""
        try:
            with open(self.path, "rb") as handle:
                signature = _signature_of(os.fstat(handle.fileno()))
                raw = handle.read()
        except FileNotFoundError:
            self._signature = None
            return []
        except OSError as exc:
            raise MemoryStoreError(f"无法读取长期记忆文件 {self.path}: {exc}") from exc
        try:
            self._digest = _digest(raw)
            data = json.loads(raw.decode("utf-8-sig"))
            if not isinstance(data, list):
                raise ValueError("top level is not a JSON array")
            entries, kept = split_items(data, MemoryEntry.from_json_dict)
        except (UnicodeDecodeError, ValueError, RecursionError, MemoryError) as exc:
            # RecursionError: nesting deeper than the interpreter allows (a hostile file, 100,000 levels)
            backup = self._back_up_corrupt()
            self.last_backup = backup
            log.warning("long-term memory file %s does not parse (%s); copied to %s", self.path, exc, backup)
            self._signature = signature
            return None
        self._signature = signature
        self.kept = kept
        self._note_kept_items()
        return entries

    def _note_kept_items(self) -> None:
        """Once per new set of unusable items: a backup (unless one already holds them) and a user notice."""
        fingerprint = self.kept.fingerprint() if self.kept.items else ""
        if not fingerprint or fingerprint == self._kept_fingerprint:
            self._kept_fingerprint = fingerprint
            return
        self._kept_fingerprint = fingerprint
        backup = self._backup_holding(fingerprint) or self._back_up_corrupt("bak")
        self.kept_notice = (
            f"长期记忆文件 {self.path} 中有 {len(self.kept.items)} 条无法识别的条目（例如类型未知、id 或内容不是文本、"
            f"重复的 id），paicli 不会使用它们，但每次写入都会原样保留；原文件备份在 {backup}"
        )

    def _backup_holding(self, fingerprint: str) -> Path | None:
        """The newest earlier backup with the same unusable items (another process already made it)."""
        backups = sorted(self.path.parent.glob(self.path.name + ".bak-*"), key=lambda p: p.name, reverse=True)
        for backup in backups[:3]:
            try:
                data = json.loads(backup.read_bytes().decode("utf-8-sig"))
            except (OSError, UnicodeDecodeError, ValueError, RecursionError):
                continue
            if (
                isinstance(data, list)
                and split_items(data, MemoryEntry.from_json_dict)[1].fingerprint() == fingerprint
            ):
                return backup
        return None

    def forget_kept_items(self) -> None:
        """`/memory clear`: the user asked for an empty store, unusable items included (the backup stays)."""
        self.kept = Unparsed()

    def _back_up_corrupt(self, kind: str = "corrupt") -> Path:
        millis = int(time.time() * 1000)
        while True:
            backup = self.path.with_name(f"{self.path.name}.{kind}-{millis}")
            if not backup.exists():
                break
            millis += 1
        try:
            shutil.copy2(self.path, backup)
        except OSError as exc:
            raise MemoryStoreError(
                f"长期记忆文件 {self.path} 已损坏，且无法备份（{exc}）；为避免丢失内容，本次不写入"
            ) from exc
        return backup

    def _remove_orphan_temp_files(self) -> None:
        """Temp files are only created under the lock, so any found now belong to a killed writer."""
        for orphan in self.path.parent.glob(self.path.name + "*.tmp"):
            with _suppress_os_error():
                orphan.unlink()

    def current_signature(self) -> tuple[int, int, int] | None:
        return _stat_signature(self.path)

    def adopt(self, signature: tuple[int, int, int]) -> None:
        """The file with this signature was read from its snapshot (which only a file without kept items has)."""
        self._signature = signature
        self.kept = Unparsed()
        self._kept_fingerprint = ""

    def force_reread(self) -> None:
        self._signature = None

    def content_changed(self) -> bool:
        """Whether the bytes differ from those last read or written. The signature (inode, modification time,
        size) can stay the same across a change: a freed inode is reused and timestamps are coarse, so several
        writers within one clock tick can leave equal signatures. Call with the lock held, for a small file."""
        try:
            return _digest(self.path.read_bytes()) != self._digest
        except OSError:
            return True

    def write(self, entries: Iterable[MemoryEntry]) -> None:
        """Call with the lock held (see with_lock)."""
        self.write_payload(render_json(entries, self._rendered, self.kept).encode("utf-8"))

    def write_payload(self, payload: bytes) -> None:
        """The whole file, atomically (temp file, fsync, rename). Call with the lock held."""
        directory = self.path.parent
        tmp_name: str | None = None
        try:
            ensure_private_dir(directory)
            self._remove_orphan_temp_files()
            fd, tmp_name = tempfile.mkstemp(dir=directory, prefix=self.path.name, suffix=".tmp")
            with os.fdopen(fd, "wb") as handle:
                handle.write(payload)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp_name, self.path)
            tmp_name = None
            _fsync_dir(directory)
            self._signature = _stat_signature(self.path)
            self._digest = _digest(payload)
        except OSError as exc:
            raise MemoryStoreError(f"无法写入长期记忆文件 {self.path}: {exc}") from exc
        finally:
            if tmp_name is not None:
                with _suppress_os_error():
                    os.unlink(tmp_name)


def _take_record_lock(handle: Any, deadline: float, timeout_text: str) -> None:
    """Also hold a POSIX record lock (fcntl) on the lock file: the Java PaiCLI's FileChannel.lock takes that
    kind, which does not see portalocker's flock, so both tools can share one memory file safely.
    Raises MemoryLockTimeout when held past the deadline; other failures (no fcntl, ENOLCK on some network
    file systems) degrade to the flock alone, as the reference degrades to no OS lock."""
    try:
        import fcntl
    except ImportError:  # Windows: portalocker's lock is the only one
        return
    pause = 0.0005
    while True:
        try:
            fcntl.lockf(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except OSError as exc:
            if exc.errno not in (errno.EACCES, errno.EAGAIN):
                log.warning("POSIX record lock on %s unavailable (%s); using flock only", handle.name, exc)
                return
            if time.monotonic() >= deadline:
                raise MemoryLockTimeout(timeout_text) from None
            pause_or_cancel(pause)
            pause = min(pause * 2, 0.005)


def _drop_record_lock(handle: Any) -> None:
    try:
        import fcntl

        fcntl.lockf(handle.fileno(), fcntl.LOCK_UN)
    except (ImportError, OSError):
        pass  # closing the handle releases it anyway


class _suppress_os_error:
    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: object, tb: object) -> bool:
        return isinstance(exc, OSError)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _digest(data: bytes) -> bytes:
    import hashlib

    return hashlib.blake2b(data, digest_size=16).digest()


def _signature_of(stat: os.stat_result) -> tuple[int, int, int]:
    return (stat.st_ino, stat.st_mtime_ns, stat.st_size)


def _stat_signature(path: Path) -> tuple[int, int, int] | None:
    try:
        return _signature_of(os.stat(path))
    except OSError:
        return None
