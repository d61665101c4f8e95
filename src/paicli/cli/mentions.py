"""`@path` mentions: the model sees the file's text; policy and fact extraction see what the user typed."""

from __future__ import annotations

import re
from pathlib import Path

MENTION = re.compile(r"(?<![\w@])@((?:\.{0,2}/)?[\w.\-/]+[\w])")
MAX_FILE_CHARS = 50_000


def attach_mentions(text: str, project_root: Path) -> tuple[str, list[tuple[str, str]]]:
    """The text the model gets, plus (level, line) notes telling the user what was attached or why not."""
    root = project_root.resolve()
    blocks: list[str] = []
    notes: list[tuple[str, str]] = []
    seen: set[Path] = set()
    for match in MENTION.finditer(text):
        name = match.group(1)
        candidate = (root / name).resolve()
        if candidate in seen:
            continue
        seen.add(candidate)
        block, note = _attach(name, candidate, root)
        if block:
            blocks.append(block)
        if note:
            notes.append(note)
    if not blocks:
        return text, notes
    return text + "\n\n用户通过 @ 引用的文件内容：\n" + "\n\n".join(blocks), notes


def _looks_like_path(name: str) -> bool:
    """`@src/app.py` or `@README.md`, not `@张三` addressing a person."""
    return "/" in name or "." in name


def _attach(name: str, candidate: Path, root: Path) -> tuple[str, tuple[str, str] | None]:
    if not candidate.is_relative_to(root):
        return "", ("warn", f"⚠️ @{name} 在项目目录之外，没有附上")
    if candidate.is_dir():
        return "", ("info", f"📁 @{name} 是目录，只把路径交给模型（它可以自己列目录）")
    if not candidate.is_file():
        return "", ("warn", f"⚠️ 没找到 @{name}，没有附上") if _looks_like_path(name) else None
    try:
        body = candidate.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return "", ("warn", f"⚠️ @{name} 不是可读的 UTF-8 文本，没有附上")
    lines = body.count("\n") + (0 if body.endswith("\n") or not body else 1)
    note = f"📎 已附上 @{name}（{lines} 行）"
    if len(body) > MAX_FILE_CHARS:
        body = (
            body[:MAX_FILE_CHARS]
            + f"\n...(文件过长，只附上前 {MAX_FILE_CHARS} 个字符；其余请用 read_file 分段读取)"
        )
        note = f"📎 已附上 @{name} 的前 {MAX_FILE_CHARS:,} 个字符（全文 {lines} 行，其余由模型按需读取）"
    relative = candidate.relative_to(root).as_posix()
    return f'<file path="{relative}">\n{body}\n</file>', ("info", note)
