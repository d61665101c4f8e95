"""Command files (issue 42): the paicli home's `commands/NAME.md` and, in a folder the user trusted, the project's
`.paicli/commands/NAME.md` become `/NAME [args]`. The body, with `$ARGUMENTS` replaced by what follows the
command, is sent as the user's message; front matter gives the /help description. A file never shadows a
built-in command (nor its aliases or bare words); a project file with a user file's name loses to it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from paicli.cli.commands import CommandSpec, CommandTable, any_args
from paicli.config.projectfile import contained_dir, read_project_text

if TYPE_CHECKING:
    from paicli.cli.app_backend import AppBackend
    from paicli.cli.commands import CommandContext

COMMANDS_DIR = "commands"
PROJECT_COMMANDS = Path(".paicli") / COMMANDS_DIR
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
_MAX_BYTES = 64_000
_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)", re.S)


@dataclass(frozen=True)
class CommandFile:
    name: str
    description: str
    body: str
    source: str  # "用户" or "项目"
    hint: str = ""

    def prompt(self, arguments: str) -> str:
        """The message sent: `$ARGUMENTS` replaced; without the placeholder, arguments follow the body."""
        if "$ARGUMENTS" in self.body:
            return self.body.replace("$ARGUMENTS", arguments)
        return f"{self.body}\n\n{arguments}" if arguments else self.body


def parse_command_file(name: str, text: str, source: str) -> CommandFile | None:
    """None when the body is empty. Front matter that is not a YAML mapping is kept as body text."""
    meta: dict[str, object] = {}
    body = text
    match = _FRONT.match(text)
    if match is not None:
        try:
            loaded = yaml.safe_load(match.group(1))
        except yaml.YAMLError:
            loaded = None
        if isinstance(loaded, dict):
            meta, body = loaded, text[match.end() :]
    body = body.strip()
    if not body:
        return None
    description = str(meta.get("description") or "").strip() or _first_line(body)
    hint = str(meta.get("argument-hint") or "").strip()
    return CommandFile(name, description, body, source, hint)


def _first_line(body: str) -> str:
    line = body.splitlines()[0].strip().lstrip("#").strip()
    return line[:60] + ("…" if len(line) > 60 else "")


def load_command_files(home: Path, project_root: Path, trusted: bool) -> list[CommandFile]:
    found: dict[str, CommandFile] = {}
    for item in _folder_files(home / COMMANDS_DIR, home, "用户"):
        found.setdefault(item.name, item)
    if trusted:
        for item in _folder_files(project_root / PROJECT_COMMANDS, project_root, "项目"):
            found.setdefault(item.name, item)
    return sorted(found.values(), key=lambda item: item.name)


def _folder_files(folder: Path, root: Path, source: str) -> list[CommandFile]:
    real = contained_dir(folder, root)
    if real is None:
        return []
    items: list[CommandFile] = []
    try:
        paths = sorted(real.glob("*.md"))
    except OSError:
        return []
    for path in paths:
        name = path.stem.lower()
        text = read_project_text(path, root, _MAX_BYTES) if _NAME.match(name) else None
        parsed = parse_command_file(name, text, source) if text is not None else None
        if parsed is not None:
            items.append(parsed)
    return items


def with_command_files(table: CommandTable, files: list[CommandFile]) -> tuple[CommandTable, list[str]]:
    """The table plus one row per file whose name no command claims; the names skipped, for one notice."""
    skipped: list[str] = []
    for item in files:
        if table.find(item.name) is not None or item.name in {w for s in table.specs for w in s.bare_words}:
            skipped.append(item.name)
            continue
        table = table.with_command(_spec(item))
    return table, skipped


def _spec(item: CommandFile) -> CommandSpec:
    usage = f"/{item.name} {item.hint or '[<参数>]'}"

    def handler(ctx: CommandContext, args: str) -> None:
        mode = ctx.pending or ctx.session.default_mode()
        ctx.pending = None
        ctx.run_task(item.prompt(args), mode)

    return CommandSpec(
        item.name,
        usage,
        f"{item.description}（{item.source}命令文件）",
        handler=handler,
        accepts=any_args,
        idle_only=True,
    )


def session_table(session: AppBackend, base: CommandTable) -> tuple[CommandTable, list[str]]:
    """The REPL's table for this session: `base` plus its command files; the notices to show once."""
    settings, trust = session.settings, session.parts.trust
    files = load_command_files(
        settings.paicli_home, settings.project_root, trust is not None and trust.trusted
    )
    table, skipped = with_command_files(base, files)
    return table, [skipped_line(skipped)] if skipped else []


def skipped_line(names: list[str]) -> str:
    shown = "、".join(f"/{name}" for name in names)
    return f"⚠️ 命令文件 {shown} 与内置命令同名，已忽略（内置命令优先；请给文件换个名字）"
