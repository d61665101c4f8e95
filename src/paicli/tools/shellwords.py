"""A deliberately small shell reader for the read-only command rule.

It understands words, quotes, escapes, `| || && ;` and newlines, and the harmless redirections
(`2>/dev/null`, `2>&1`, `< file`). Anything it does not fully understand (expansions, substitutions,
grouping, background jobs, here-documents, brace expansion, comments, writes) raises `NotSimple`, which
the caller treats as "may do anything": the answer is then "ask the human", never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class NotSimple(Exception):
    """The command uses shell syntax this reader does not vouch for."""


@dataclass(frozen=True)
class Word:
    text: str  # after quote removal
    globbed: bool = False  # has an unquoted * ? or [ (the shell expands it to file names)
    lead_glob: bool = False  # the expansion may start with any file name, e.g. `-o` (no literal prefix)


@dataclass(frozen=True)
class SimpleCommand:
    words: tuple[Word, ...]
    inputs: tuple[Word, ...] = ()  # `< file` targets (read)


@dataclass
class _WordBuilder:
    chars: list[str] = field(default_factory=list)
    started: bool = False
    quoted: bool = False
    globbed: bool = False
    lead_glob: bool = False

    def add(self, text: str, *, quoted: bool = False) -> None:
        self.chars.append(text)
        self.started = True
        self.quoted = self.quoted or quoted

    def add_glob(self, char: str) -> None:
        if not self.chars or not "".join(self.chars):
            self.lead_glob = True
        self.globbed = True
        self.add(char)

    def take(self) -> Word | None:
        if not self.started:
            return None
        word = Word("".join(self.chars), self.globbed, self.lead_glob)
        self.chars, self.started, self.quoted, self.globbed, self.lead_glob = [], False, False, False, False
        return word

    def is_fd_number(self) -> bool:
        text = "".join(self.chars)
        return self.started and not self.quoted and text.isdigit()


_SEPARATOR = "sep"
_REDIRECT = "redir"
_FORBIDDEN_UNQUOTED = set("$`(){}!")
_DOUBLE_QUOTE_ESCAPABLE = set('$`"\\')


def tokens(command: str) -> list[tuple[str, str | Word]]:
    """("word", Word) | ("sep", op) | ("redir", op) tokens; raises NotSimple."""
    return _Lexer(command).run()


class _Lexer:
    def __init__(self, command: str) -> None:
        self.command = command
        self.i = 0
        self.out: list[tuple[str, str | Word]] = []
        self.word = _WordBuilder()

    def run(self) -> list[tuple[str, str | Word]]:
        while self.i < len(self.command):
            char = self.command[self.i]
            if not (self._blank_or_separator(char) or self._redirect(char) or self._quoted(char)):
                self._plain(char)
        self._flush()
        return self.out

    def _flush(self) -> None:
        taken = self.word.take()
        if taken is not None:
            self.out.append(("word", taken))

    def _emit(self, kind: str, op: str) -> None:
        self.out.append((kind, op))
        self.i += len(op)

    def _blank_or_separator(self, char: str) -> bool:
        rest = self.command[self.i :]
        if char in " \t":
            self._flush()
            self.i += 1
        elif char in "\n;":
            self._flush()
            self.out.append((_SEPARATOR, ";"))
            self.i += 1
        elif char == "|":
            self._flush()
            if rest.startswith("|&"):
                raise NotSimple("|&")
            self._emit(_SEPARATOR, "||" if rest.startswith("||") else "|")
        elif char == "&":
            self._flush()
            if rest.startswith("&&"):
                self._emit(_SEPARATOR, "&&")
            elif rest.startswith("&>"):
                self._emit(_REDIRECT, "&>>" if rest.startswith("&>>") else "&>")
            else:
                raise NotSimple("background job")
        else:
            return False
        return True

    def _redirect(self, char: str) -> bool:
        if char not in "<>":
            return False
        if self.word.is_fd_number():
            self.word.take()  # `2>`: the descriptor number belongs to the redirection
        else:
            self._flush()
        self._emit(_REDIRECT, _redirect_operator(self.command, self.i))
        return True

    def _quoted(self, char: str) -> bool:
        command, i = self.command, self.i
        if char == "\\":
            if i + 1 >= len(command) or command[i + 1] == "\n":
                raise NotSimple("line continuation")
            self.word.add(command[i + 1], quoted=True)
            self.i += 2
        elif char == "'":
            end = command.find("'", i + 1)
            if end < 0:
                raise NotSimple("unclosed quote")
            self.word.add(command[i + 1 : end], quoted=True)
            self.i = end + 1
        elif char == '"':
            self.i = _double_quoted(command, i + 1, self.word)
        else:
            return False
        return True

    def _plain(self, char: str) -> None:
        if char == "#" and not self.word.started:
            raise NotSimple("comment")
        if char in _FORBIDDEN_UNQUOTED:
            raise NotSimple(char)
        if char in "*?[":
            self.word.add_glob(char)
        else:
            self.word.add(char)
        self.i += 1


def _redirect_operator(command: str, i: int) -> str:
    for op in (">>", ">&", ">|", "<<", "<>", "<&", ">", "<"):
        if command.startswith(op, i):
            return op
    raise NotSimple("redirection")  # pragma: no cover - callers only call this on < or >


def _double_quoted(command: str, i: int, word: _WordBuilder) -> int:
    chars: list[str] = []
    n = len(command)
    while i < n:
        char = command[i]
        if char == '"':
            word.add("".join(chars), quoted=True)
            return i + 1
        if char in "$`":
            raise NotSimple("expansion inside double quotes")
        if char == "\\" and i + 1 < n and command[i + 1] in _DOUBLE_QUOTE_ESCAPABLE | {"\n"}:
            if command[i + 1] == "\n":
                raise NotSimple("line continuation")
            chars.append(command[i + 1])
            i += 2
            continue
        chars.append(char)
        i += 1
    raise NotSimple("unclosed quote")


_NULL_SINKS = frozenset({"/dev/null"})


def simple_commands(command: str) -> list[SimpleCommand]:
    """The simple commands of a list/pipeline, in order; raises NotSimple for anything else."""
    result: list[SimpleCommand] = []
    words: list[Word] = []
    inputs: list[Word] = []
    items = tokens(command)
    index = 0
    while index < len(items):
        kind, value = items[index]
        index += 1
        if kind == "word":
            assert isinstance(value, Word)
            words.append(value)
        elif kind == _SEPARATOR:
            if not words:
                if inputs or value != ";":
                    raise NotSimple("empty command")
                continue
            result.append(SimpleCommand(tuple(words), tuple(inputs)))
            words, inputs = [], []
        else:
            target = items[index][1] if index < len(items) and items[index][0] == "word" else None
            if not isinstance(target, Word):
                raise NotSimple("redirection without a target")
            index += 1
            _check_redirect(str(value), target, inputs)
    if words:
        result.append(SimpleCommand(tuple(words), tuple(inputs)))
    elif inputs:
        raise NotSimple("redirection without a command")
    return result


def _check_redirect(op: str, target: Word, inputs: list[Word]) -> None:
    if op == "<":
        inputs.append(target)
        return
    if op in (">", ">>", ">|", "&>", "&>>") and target.text in _NULL_SINKS and not target.globbed:
        return
    if op == ">&" and (target.text in ("1", "2") or target.text in _NULL_SINKS):
        return
    raise NotSimple(f"redirection {op} {target.text}")
