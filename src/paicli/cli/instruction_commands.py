"""`/memory files` (the instruction files the system prompt carries, each with its token cost) and
`/memory edit [<file>]` (opens one in `$VISUAL`/`$EDITOR` as the user, then reloads the system prompt)."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from paicli.cli.backend import CommandReply
from paicli.config.env import process_environ
from paicli.memory.project import ProjectMemoryLoader
from paicli.prompt.instructions import INSTRUCTION_NAMES
from paicli.tools.sandbox.environ import approved_env

if TYPE_CHECKING:
    from paicli.cli.commands import CommandContext

EDITABLE_NAMES = ("PAI.md", "PAI.local.md", *INSTRUCTION_NAMES)


def _loader(ctx: CommandContext) -> ProjectMemoryLoader:
    settings = ctx.session.settings
    return ProjectMemoryLoader(settings.project_root, settings.paicli_home)


def _shown(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def memory_files(ctx: CommandContext) -> None:
    loader = _loader(ctx)
    counter = ctx.session.parts.counter
    files = loader.files()
    if not files:
        lines = ["📄 没有加载任何说明文件（PAI.md、AGENTS.md、CLAUDE.md）。用 /init 生成 PAI.md。"]
    else:
        total = sum(counter.count_text(text) for _, text in files)
        lines = [f"📄 系统提示里的说明文件（共约 {total} tokens）:"]
        for path, text in files:
            lines.append(f"   {_shown(path, loader.project_root)}  约 {counter.count_text(text)} tokens")
    lines.append(
        "   子目录里的 AGENTS.md / CLAUDE.md / PAI.md 在模型处理该目录的文件时附在工具结果后（每个一次）"
    )
    lines.append("   修改: /memory edit [<文件>]")
    ctx.reply(CommandReply("\n".join(lines)))


def edit_target(loader: ProjectMemoryLoader, arg: str) -> Path | None:
    """The file to edit: the one named (a loaded file, or an instruction file name inside the project), or by
    default the first loaded project file (PAI.md when there is none). None: not an instruction file."""
    root = loader.project_root
    loaded = [path for path, _ in loader.files()]
    if not arg:
        inside = [path for path in loaded if path.is_relative_to(root)]
        return inside[0] if inside else root / "PAI.md"
    for path in loaded:
        if arg in (str(path), _shown(path, root)):
            return path
    candidate = (root / arg).absolute()
    if candidate.name in EDITABLE_NAMES and ".." not in Path(arg).parts and candidate.is_relative_to(root):
        return candidate
    return None


def memory_edit(ctx: CommandContext, arg: str) -> None:
    loader = _loader(ctx)
    target = edit_target(loader, arg.strip())
    if target is None:
        names = "、".join(EDITABLE_NAMES)
        ctx.reply(CommandReply(f"❌ 只能编辑说明文件（{names}）: {arg.strip()}", ok=False))
        return
    if not ctx.io.interactive:
        ctx.reply(CommandReply("❌ /memory edit 要打开编辑器，只能在终端里的 REPL 中使用", ok=False))
        return
    parts = ctx.session.parts
    editor = parts.values.editor or "vi"
    env = approved_env(process_environ(), parts.keys())
    try:
        done = subprocess.run([*shlex.split(editor), str(target)], env=env, check=False)
    except (OSError, ValueError) as error:
        ctx.reply(CommandReply(f"❌ 无法启动编辑器 {editor}: {error}", ok=False))
        return
    ctx.session.agent.invalidate_system_prompt()
    status = "" if done.returncode == 0 else f"（编辑器退出码 {done.returncode}）"
    count = len(loader.files())
    ctx.reply(
        CommandReply(
            f"📄 已重新加载说明文件{status}: {_shown(target, loader.project_root)}，共 {count} 个生效"
        )
    )
