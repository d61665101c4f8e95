import sqlite3
import threading
from pathlib import Path


class ConnectionPool:
    """A small pool of database connections shared by the request threads."""

    def __init__(self, url: str, size: int = 4) -> None:
        self.path = url.removeprefix("sqlite:///")
        self.free = [sqlite3.connect(self.path, check_same_thread=False) for _ in range(size)]
        self.lock = threading.Lock()

    def acquire(self) -> sqlite3.Connection:
        with self.lock:
            return self.free.pop()

    def release(self, connection: sqlite3.Connection) -> None:
        with self.lock:
            self.free.append(connection)


def run_migrations(connection: sqlite3.Connection, folder: Path) -> int:
    """执行数据库迁移脚本（按文件名顺序），返回执行了几个。"""
    done = {row[0] for row in connection.execute("SELECT name FROM migrations")}
    count = 0
    for script in sorted(folder.glob("*.sql")):
        if script.name not in done:
            connection.executescript(script.read_text())
            connection.execute("INSERT INTO migrations(name) VALUES (?)", (script.name,))
            count += 1
    return count
