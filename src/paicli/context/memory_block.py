"""The long-term memory block the loop puts before the user's words (memory.recall_block.HEADER), and those
words without it. Apart from user_words.py, whose word tables only a summary's checks need: the REPL's
compaction controls ask for this on every run (issue 49)."""

from __future__ import annotations

MEMORY_HEADER = "## 相关长期记忆"


def without_memory(content: str) -> str:
    """The user message without the memory block the loop may have put before it."""
    if content.startswith(MEMORY_HEADER):
        parts = content.split("\n\n", 3)  # header, lead, memory lines, the user's text
        if len(parts) == 4:
            return parts[3].lstrip("\n")
    return content
