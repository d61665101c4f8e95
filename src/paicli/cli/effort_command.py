"""`/effort [low|medium|high|default]`: the reasoning effort of the session model (config/effort.py), applied by
rebuilding the session's model client for the same conversation (like /model, without changing the model)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from paicli.cli.backend import CommandReply
from paicli.cli.effort_text import effort_line
from paicli.config.effort import EFFORTS

if TYPE_CHECKING:
    from paicli.cli.commands import CommandContext

EFFORT_COMPLETIONS = (
    ("low", "少想：关闭思考，或最低推理强度"),
    ("medium", "中等推理强度"),
    ("high", "多想：最高推理强度"),
    ("default", "不发送任何推理参数，由模型自己决定"),
)


def effort_args(args: str) -> bool:
    return args.strip().lower() in ("", *EFFORTS)


def effort_command(ctx: CommandContext, args: str) -> None:
    session = ctx.session
    level = args.strip().lower()
    if not level:
        ctx.reply(CommandReply(effort_line(session.settings)))
        return
    chosen = replace(session.settings, reasoning_effort=level)
    session.switch_model(chosen)  # the same model: its client is rebuilt with the new request fields
    ctx.reply(CommandReply(effort_line(chosen), ok=chosen.effort_request_fields is not None))
