"""`-c` / `--resume` on a session another paicli process has open: fork it, or look at it read-only.

Two processes appending to one ledger would interleave it (duplicate sequence numbers, completed commands
later reported as interrupted). The second process therefore never opens a held session for writing:
- interactive terminal: asks — fork (default), read-only view, or quit;
- `-p` and piped input: forks automatically (a script keeps working, the other session is left alone)
  and says so on stderr; the result's session_id names the fork.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from paicli.session.ownership import fork_session, in_use, read_only_view
from paicli.termsafe import strip_terminal

EXIT_VIEWED = 0
EXIT_DECLINED = 1


def busy_text(path: Path) -> str:
    return f"⚠️ 会话 {path.name[: -len('.jsonl')]} 正在另一个 paicli 进程中打开，为避免两个进程交错写入同一个会话，不会直接继续它。"


def forked_text(source: Path, fork: Path) -> str:
    return (
        f"🔀 已把会话 {source.name[: -len('.jsonl')]} 复制为新会话 {fork.name[: -len('.jsonl')]} 并在其中继续；"
        "原会话保持不变。"
    )


def claim_session(
    path: Path, *, ask: bool, stdin: TextIO | None = None, stderr: TextIO | None = None
) -> Path | int:
    """The ledger this process may continue (`path` itself when nobody holds it, else a fork), or an exit
    code when the user chose the read-only view or to quit."""
    err = stderr or sys.stderr
    if not in_use(path):
        return path
    err.write(busy_text(path) + "\n")
    choice = _ask(stdin or sys.stdin, err) if ask else "f"
    if choice == "r":
        sys.stdout.write(strip_terminal(read_only_view(path)) + "\n")
        sys.stdout.flush()
        return EXIT_VIEWED
    if choice == "q":
        err.write("已退出，没有打开任何会话。\n")
        return EXIT_DECLINED
    fork = fork_session(path)
    err.write(forked_text(path, fork) + "\n")
    err.flush()
    return fork


def _ask(stdin: TextIO, err: TextIO) -> str:
    err.write("  [f] 复制为新会话继续（默认）  [r] 只读查看  [q] 退出\n请选择: ")
    err.flush()
    try:
        answer = stdin.readline().strip().lower()
    except (OSError, ValueError, KeyboardInterrupt):
        return "q"
    return answer[:1] if answer[:1] in ("f", "r", "q") else "f"
