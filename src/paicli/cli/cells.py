"""Text cut to a width in terminal cells: the one helper a `-p` run's live output needs of the terminal text
(cli/summaries.py's one-line summaries build on it; they load only with the REPL's renderer)."""

from __future__ import annotations

from rich.cells import cell_len


def clip(text: str, limit: int) -> str:
    """Cut `text` to `limit` terminal cells (CJK characters take two), ending with … when cut."""
    if cell_len(text) <= limit:
        return text
    kept: list[str] = []
    used = 0
    for char in text:
        width = cell_len(char)
        if kept and used + width > limit - 1:
            break
        kept.append(char)
        used += width
    return "".join(kept) + "…"
