"""`@path` mentions: the model sees the file's text; policy and fact extraction see what the user typed."""

from __future__ import annotations

import re
from pathlib import Path

MENTION = re.compile(r"(?<![\w@])@((?:\.{0,2}/)?[\w.\-/]+[\w])")
MAX_FILE_CHARS = 50_000


def expand_mentions(text: str, project_root: Path) -> str:
    root = project_root.resolve()
    blocks: list[str] = []
    seen: set[Path] = set()
    for match in MENTION.finditer(text):
        candidate = (root / match.group(1)).resolve()
        if candidate in seen or not candidate.is_file() or not candidate.is_relative_to(root):
            continue
        seen.add(candidate)
        try:
            body = candidate.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if len(body) > MAX_FILE_CHARS:
            body = body[:MAX_FILE_CHARS] + f"\n...(文件过长，只附上前 {MAX_FILE_CHARS} 个字符；其余请用 read_file 分段读取)"
        relative = candidate.relative_to(root).as_posix()
        blocks.append(f'<file path="{relative}">\n{body}\n</file>')
    if not blocks:
        return text
    return text + "\n\n用户通过 @ 引用的文件内容：\n" + "\n\n".join(blocks)
