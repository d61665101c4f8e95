"""REPL completion: `/` commands with descriptions and their sub-commands, `@` paths under the project root."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from paicli.cli.command_table import BUILTIN
from paicli.cli.commands import CommandTable
from paicli.skipdirs import SKIPPED_DIRS

_SKIP_DIRS = SKIPPED_DIRS | {".idea"}


class ReplCompleter(Completer):
    """`/` completes commands (with descriptions) and their sub-commands; `@` completes project paths."""

    def __init__(
        self,
        root: Path,
        scan_limit: int = 4000,
        result_limit: int = 40,
        mentions: Callable[[], list[str]] = list,
        table: CommandTable = BUILTIN,
    ) -> None:
        self._table = table
        self._root = root
        self._mentions = mentions
        self._scan_limit = scan_limit
        self._result_limit = result_limit

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        if text.startswith("/") and " " not in text:
            yield from self._commands(text)
            return
        if text.startswith("/"):
            yield from self._subcommands(text)
        word = document.get_word_before_cursor(WORD=True)
        if word.startswith("@"):
            yield from self._resources(word)
            yield from self._paths(word)

    def _commands(self, text: str) -> Iterator[Completion]:
        typed = text[1:].lower()
        for spec in self._table.visible():
            match = next((word for word in spec.words if word.startswith(typed)), None)
            if match is not None:
                yield Completion(
                    "/" + match, start_position=-len(text), display=spec.usage, display_meta=spec.description
                )

    def _subcommands(self, text: str) -> Iterator[Completion]:
        head, _, rest = text[1:].partition(" ")
        if " " in rest:
            return
        spec = self._table.find(head)
        for word, meta in spec.offered() if spec is not None else ():
            if word.startswith(rest.lower()):
                yield Completion(word, start_position=-len(rest), display_meta=meta)

    def _resources(self, word: str) -> Iterator[Completion]:
        """`@server:uri` of MCP resources (once a `:` or a server name's start is typed)."""
        if len(word) < 2:
            return
        for mention in self._mentions()[: self._result_limit]:
            if mention.lower().startswith(word.lower()):
                yield Completion(mention, start_position=-len(word), display_meta="MCP 资源")

    def _paths(self, word: str) -> Iterator[Completion]:
        prefix = word[1:]
        if ".." in Path(prefix).parts or prefix.startswith("/"):
            return
        folder, _, base = prefix.rpartition("/")
        found = 0
        for rel, is_dir in self._listing(folder):
            name = rel.rpartition("/")[2]
            if name.lower().startswith(base.lower()):
                found += 1
                yield Completion(
                    "@" + rel + ("/" if is_dir else ""),
                    start_position=-len(word),
                    display=name + ("/" if is_dir else ""),
                )
        if not folder and len(base) >= 2 and found == 0:
            yield from self._search(base, word)

    def _listing(self, folder: str) -> list[tuple[str, bool]]:
        directory = self._root / folder if folder else self._root
        try:
            entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
        except OSError:
            return []
        listed = []
        for entry in entries:
            is_dir = entry.is_dir()
            if is_dir and entry.name in _SKIP_DIRS:
                continue
            listed.append((f"{folder}/{entry.name}" if folder else entry.name, is_dir))
        return listed[: self._result_limit * 5]

    def _search(self, needle: str, word: str) -> Iterator[Completion]:
        """Files anywhere under the root whose name contains `needle` (bounded walk)."""
        seen = 0
        hits = 0
        needle = needle.lower()
        for dirpath, dirnames, filenames in os.walk(self._root):
            dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
            for name in sorted(filenames):
                seen += 1
                if needle in name.lower():
                    rel = Path(dirpath, name).relative_to(self._root).as_posix()
                    hits += 1
                    yield Completion("@" + rel, start_position=-len(word), display=rel)
                if hits >= self._result_limit or seen >= self._scan_limit:
                    return
