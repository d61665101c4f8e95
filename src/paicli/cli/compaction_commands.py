"""The command-table handlers of `/pin`, `/pins`, `/unpin` and `/compact show|undo|--preview [focus]`: they ask
the session's CompactionControls (cli/compaction_controls.py) and print the replies."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paicli.cli.backend import CommandReply
from paicli.cli.compaction_controls import CompactionControls

if TYPE_CHECKING:
    from paicli.cli.commands import CommandContext


def _controls(ctx: CommandContext) -> CompactionControls | None:
    controls = ctx.session.compaction_controls
    if controls is None:
        ctx.reply(CommandReply("这个会话不支持固定内容和压缩回执。", ok=False))
    return controls


def pin_command(ctx: CommandContext, args: str) -> None:
    controls = _controls(ctx)
    if controls is not None:
        ctx.reply(controls.pin(args) if args.strip() else controls.pins())


def pins_command(ctx: CommandContext, _: str) -> None:
    controls = _controls(ctx)
    if controls is not None:
        ctx.reply(controls.pins())


def unpin_command(ctx: CommandContext, args: str) -> None:
    controls = _controls(ctx)
    if controls is not None:
        ctx.reply(controls.unpin(args))


def compact_extra(ctx: CommandContext, what: str, focus: str) -> None:
    """`/compact show|undo|--preview [focus]` (plain `/compact [focus]` stays in command_handlers)."""
    controls = _controls(ctx)
    if controls is None:
        return
    if what == "show":
        ctx.reply(controls.show())
    elif what == "undo":
        ctx.reply(controls.undo())
    else:
        _preview(ctx, controls, focus)


def _preview(ctx: CommandContext, controls: CompactionControls, focus: str) -> None:
    from paicli.cli.render import COMPACTING_LABEL, WaitSpinner, say

    io = ctx.io
    spinner = WaitSpinner(io.progress)
    say(io.progress, "⏳ 正在生成压缩预览（不会改动上下文）…", "dim")
    spinner.start(COMPACTING_LABEL)
    try:
        reply = io.run_cancellable(lambda token: controls.preview(focus, token), quiet=spinner.stop)
    finally:
        spinner.stop()
    ctx.reply(reply)
