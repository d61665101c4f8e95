"""The read-only command rule (spec 9.2): auto mode runs a command unasked only when every simple command in
it is an allow-listed program used with allow-listed options, the shell syntax is plain (no expansions,
substitutions, writes), no argument reaches `/proc` (process environments hold keys) or the paicli home, and
every `git` runs in repositories whose config cannot make it run a program.
"""

from __future__ import annotations

import glob
import os
import re
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from paicli.config.env import home_dir, process_environ
from paicli.tools.gitrepo import git_is_safe_in
from paicli.tools.readonly_specs import (
    FIND_FLAGS,
    FIND_WITH_VALUE,
    GIT_GLOBAL_FLAGS,
    GIT_SUBCOMMANDS,
    PROGRAMS,
    Options,
)
from paicli.tools.shellwords import NotSimple, SimpleCommand, Word, simple_commands

_MAX_CWDS = 16
_FIND_NEWER = re.compile(r"-newer[aBcmt][aBcmt]")


@dataclass(frozen=True)
class CommandSite:
    """Where a command would run and what this session has done there."""

    cwd: Path
    written_gitdirs: tuple[Path, ...] = ()
    environ: Mapping[str, str] = field(default_factory=lambda: dict(process_environ()))


def is_read_only(command: str, site: CommandSite) -> bool:
    """True only for commands that clearly just read, where they would run (`site`)."""
    try:
        commands = simple_commands(command or "")
    except NotSimple:
        return False
    if not commands:
        return False
    cwds = {Path(os.path.realpath(site.cwd))}
    for simple in commands:
        if not _reads_only(simple, cwds, site):
            return False
        if simple.words[0].text == "cd":
            moved = _after_cd(simple.words[1:], cwds, site.environ)
            if moved is None:
                return False
            cwds |= moved
            if len(cwds) > _MAX_CWDS:
                return False
    return True


def read_only_at(command: str, cwd: Path, written_gitdirs: tuple[Path, ...]) -> bool:
    """`is_read_only` at `cwd` with this process's environment (tools/guards.py's entry point)."""
    return is_read_only(command, CommandSite(cwd, written_gitdirs))


def syntactically_read_only(command: str) -> bool:
    """Every simple command is an allow-listed program with allow-listed options (no file-system checks)."""
    try:
        commands = simple_commands(command or "")
    except NotSimple:
        return False
    return bool(commands) and all(_arguments_ok(c.words) for c in commands)


def _reads_only(simple: SimpleCommand, cwds: set[Path], site: CommandSite) -> bool:
    if not _arguments_ok(simple.words):
        return False
    roots = _forbidden_roots(site.environ)
    for word in (*simple.words[1:], *simple.inputs):
        if not all(_word_ok(word, cwd, roots) for cwd in cwds):
            return False
    if simple.words[0].text == "git":
        written = site.written_gitdirs
        return all(git_is_safe_in(cwd, written, site.environ) for cwd in cwds)
    return True


def _arguments_ok(words: Sequence[Word]) -> bool:
    program = words[0]
    args = list(words[1:])
    if program.globbed:
        return False
    if program.text == "git":
        return _git_ok(args)
    if program.text == "find":
        return _find_ok(args)
    spec = PROGRAMS.get(program.text)
    if spec is None:
        return False
    if spec.any_args:
        return True
    operands = split_options(spec, args)
    if operands is None:
        return False
    if program.text == "date":
        return all(w.text.startswith("+") for w in operands)
    if program.text == "cd":
        return len(operands) <= 1
    return True


def split_options(spec: Options, args: Sequence[Word]) -> list[Word] | None:
    """The operands, or None when any option is not allow-listed (GNU getopt order: options anywhere)."""
    operands: list[Word] = []
    ended = False
    for word in args:
        text = word.text
        if ended or text == "-" or not text.startswith("-"):
            operands.append(word)
        elif text == "--":
            ended = True
        elif text.startswith("--"):
            if text[2:].split("=", 1)[0] not in spec.long:
                return None
        elif spec.numeric and text[1:].isdigit():
            continue
        elif not _cluster_ok(text[1:], spec):
            return None
    return operands


def _cluster_ok(letters: str, spec: Options) -> bool:
    for letter in letters:
        if letter in spec.value:
            return True  # the rest of the cluster is the value
        if letter not in spec.flags:
            return False
    return True


def _find_ok(args: Sequence[Word]) -> bool:
    index = 0
    while index < len(args) and args[index].text in ("-H", "-L", "-P"):
        index += 1
    while index < len(args) and not args[index].text.startswith("-") and args[index].text not in "()!,":
        index += 1
    while index < len(args):
        text = args[index].text
        if text in FIND_FLAGS:
            index += 1
        elif text in FIND_WITH_VALUE or _FIND_NEWER.fullmatch(text):
            if index + 1 >= len(args):
                return False
            index += 2
        else:
            return False
    return True


def _git_ok(args: Sequence[Word]) -> bool:
    index = 0
    while index < len(args) and args[index].text.startswith("-"):
        if args[index].text not in GIT_GLOBAL_FLAGS:
            return False  # -c, -C, --git-dir, --work-tree, --exec-path, … change what git runs or where
        index += 1
    if index >= len(args) or args[index].globbed:
        return False
    spec = GIT_SUBCOMMANDS.get(args[index].text)
    return spec is not None and split_options(spec, args[index + 1 :]) is not None


def _forbidden_roots(environ: Mapping[str, str]) -> tuple[Path, ...]:
    home = Path(os.path.realpath(home_dir(environ)))
    return (Path("/proc"), home)


def _under(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def _expand_user(text: str, environ: Mapping[str, str]) -> str:
    if text == "~" or text.startswith("~/"):
        return (environ.get("HOME") or str(Path.home())) + text[1:]
    return text


def _word_ok(word: Word, cwd: Path, roots: Sequence[Path]) -> bool:
    """No argument (or option value) may name a path under /proc or the paicli home, or a folder holding one
    (`grep -r KEY ~`); no glob may expand to an option."""
    if word.lead_glob and _has_dash_entry(cwd):
        return False
    if any(root.is_relative_to(cwd) for root in roots):
        return False  # running from `/` or from the folder that holds the paicli home: any name may reach in
    text = _expand_user(word.text, {"HOME": str(Path.home()), **process_environ()})
    pieces = {text}
    if "=" in text:
        pieces.add(text.split("=", 1)[1])
    for piece in pieces:
        candidates = glob.glob(str(cwd / piece)) if word.globbed else [str(cwd / piece)]
        for candidate in candidates:
            real = Path(os.path.realpath(candidate))
            if _under(real, roots) or any(root.is_relative_to(real) for root in roots) or _special(real):
                return False
    if text.startswith("-") and not text.startswith("--"):
        # an option value attached inside a cluster: `-f/proc/self/environ`, `-if~/.paicli/x`
        suffixes = [text[i:] for i, char in enumerate(text) if char in "/~"]
        for suffix in suffixes:
            real = Path(os.path.realpath(_expand_user(suffix, process_environ())))
            if _under(real, roots):
                return False
    return True


def _special(path: Path) -> bool:
    """A FIFO, socket or device (other than /dev/null): reading it can block forever or never end."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    is_special = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
    return is_special and str(path) != os.devnull


def _has_dash_entry(cwd: Path) -> bool:
    try:
        return any(name.startswith("-") for name in os.listdir(cwd))
    except OSError:
        return True


def _after_cd(args: Sequence[Word], cwds: set[Path], environ: Mapping[str, str]) -> set[Path] | None:
    operands = split_options(PROGRAMS["cd"], args)
    if operands is None or len(operands) > 1 or any(w.globbed for w in operands):
        return None
    target = operands[0].text if operands else "~"
    if target == "-":
        return None
    target = _expand_user(target, environ)
    relative = not os.path.isabs(target)
    if (
        relative
        and environ.get("CDPATH")
        and not target.startswith(("./", "../"))
        and target not in (".", "..")
    ):
        return None
    return {Path(os.path.realpath(cwd / target)) for cwd in cwds}
