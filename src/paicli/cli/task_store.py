"""The background task queue (`/task`): SQLite at `tasks/tasks.db` in the paicli home, shared by every paicli process of
the user. A task is claimed by one process (its pid recorded); one found running under a process that is gone
was killed with it and is marked interrupted (its session can be continued with `paicli --resume`)."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from paicli.fsperm import create_private_file

QUEUED, RUNNING, DONE, FAILED, CANCELLED, INTERRUPTED = (
    "queued",
    "running",
    "done",
    "failed",
    "cancelled",
    "interrupted",
)
ENDED = (DONE, FAILED, CANCELLED, INTERRUPTED)
POLICY = "auto-only"  # what the approval mode allows without asking runs; whatever would ask is refused

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tasks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    text TEXT NOT NULL,
    project TEXT NOT NULL,
    policy TEXT NOT NULL,
    status TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    ended_ms INTEGER,
    pid INTEGER,
    session_id TEXT,
    result TEXT,
    refused INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS task_log (
    task_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (task_id, seq)
);
"""


@dataclass(frozen=True)
class Task:
    id: int
    text: str
    project: str
    policy: str
    status: str
    created_ms: int
    ended_ms: int | None
    pid: int | None
    session_id: str | None
    result: str | None
    refused: int


class TaskQueue(Protocol):
    """What a session keeps of its task runner (cli/task_worker.py): /task's verbs and a stop at close."""

    store: TaskStore

    def add(self, text: str) -> int: ...

    def cancel(self, task_id: int) -> bool: ...

    def stop(self, timeout: float = 10.0) -> None: ...


def db_path(home: Path) -> Path:
    return home / "tasks" / "tasks.db"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process has that number now
        return True
    return True


class TaskStore:
    def __init__(self, home: Path) -> None:
        self.path = db_path(home)

    @contextlib.contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        if not self.path.exists():
            create_private_file(self.path)
        conn = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        try:
            conn.executescript(_SCHEMA)
            conn.execute("BEGIN IMMEDIATE")
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        finally:
            conn.close()

    def add(self, text: str, project: Path) -> int:
        with self._db() as db:
            cursor = db.execute(
                "INSERT INTO tasks (text, project, policy, status, created_ms) VALUES (?, ?, ?, ?, ?)",
                (text, str(project), POLICY, QUEUED, _now()),
            )
            return int(cursor.lastrowid or 0)

    def get(self, task_id: int) -> Task | None:
        with self._db() as db:
            row = db.execute("SELECT * FROM tasks WHERE id = ?", (task_id,)).fetchone()
        return Task(*row) if row else None

    def listed(self, project: Path, limit: int = 20) -> list[Task]:
        with self._db() as db:
            rows = db.execute(
                "SELECT * FROM tasks WHERE project = ? ORDER BY id DESC LIMIT ?", (str(project), limit)
            ).fetchall()
        return [Task(*row) for row in reversed(rows)]

    def claim_next(self, project: Path) -> Task | None:
        """The oldest queued task of `project`, now running under this process."""
        with self._db() as db:
            row = db.execute(
                "SELECT * FROM tasks WHERE project = ? AND status = ? ORDER BY id LIMIT 1",
                (str(project), QUEUED),
            ).fetchone()
            if row is None:
                return None
            db.execute("UPDATE tasks SET status = ?, pid = ? WHERE id = ?", (RUNNING, os.getpid(), row[0]))
        found = self.get(int(row[0]))
        return found

    def started(self, task_id: int, session_id: str) -> None:
        with self._db() as db:
            db.execute("UPDATE tasks SET session_id = ? WHERE id = ?", (session_id, task_id))

    def log(self, task_id: int, line: str) -> None:
        with self._db() as db:
            seq = db.execute("SELECT COUNT(*) FROM task_log WHERE task_id = ?", (task_id,)).fetchone()[0]
            db.execute("INSERT INTO task_log (task_id, seq, line) VALUES (?, ?, ?)", (task_id, seq, line))

    def log_lines(self, task_id: int) -> list[str]:
        with self._db() as db:
            rows = db.execute(
                "SELECT line FROM task_log WHERE task_id = ? ORDER BY seq", (task_id,)
            ).fetchall()
        return [row[0] for row in rows]

    def finish(self, task_id: int, status: str, result: str, refused: int) -> None:
        with self._db() as db:
            db.execute(
                "UPDATE tasks SET status = ?, result = ?, refused = ?, ended_ms = ? WHERE id = ?",
                (status, result, refused, _now(), task_id),
            )

    def cancel_queued(self, task_id: int) -> bool:
        with self._db() as db:
            cursor = db.execute(
                "UPDATE tasks SET status = ?, ended_ms = ? WHERE id = ? AND status = ?",
                (CANCELLED, _now(), task_id, QUEUED),
            )
            return cursor.rowcount == 1

    def interrupted(self) -> list[Task]:
        """Tasks left running by a process that is gone, marked interrupted (and returned)."""
        with self._db() as db:
            rows = db.execute("SELECT * FROM tasks WHERE status = ?", (RUNNING,)).fetchall()
            gone = [Task(*row) for row in rows if row[7] is None or not _alive(int(row[7]))]
            for task in gone:
                db.execute(
                    "UPDATE tasks SET status = ?, ended_ms = ?, result = ? WHERE id = ?",
                    (INTERRUPTED, _now(), "paicli 在任务运行时退出了", task.id),
                )
        return gone


def _now() -> int:
    return int(time.time() * 1000)
