"""Big pastes collapse to a placeholder in the input line and are expanded when the line is sent."""

from __future__ import annotations

COLLAPSE_LINES = 5  # a paste with more lines than this becomes `[已粘贴 N 行]`


class PasteStore:
    def __init__(self, threshold: int = COLLAPSE_LINES) -> None:
        self._threshold = threshold
        self._pastes: dict[str, str] = {}

    def collapse(self, data: str) -> str:
        """What to insert for pasted `data`: the text itself, or a placeholder remembered for `expand`."""
        text = data.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.rstrip("\n").count("\n") + 1
        if lines <= self._threshold:
            return text
        placeholder = f"[已粘贴 {lines} 行]"
        number = 1
        while placeholder in self._pastes and self._pastes[placeholder] != text:
            number += 1
            placeholder = f"[已粘贴 {lines} 行 #{number}]"
        self._pastes[placeholder] = text
        return placeholder

    def expand(self, line: str) -> str:
        """The line as sent: every placeholder replaced by what was pasted (then forgotten)."""
        for placeholder, text in self._pastes.items():
            line = line.replace(placeholder, text.rstrip("\n"))
        self._pastes.clear()
        return line

    def forget(self) -> None:
        self._pastes.clear()
