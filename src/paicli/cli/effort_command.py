"""`/effort [low|medium|high|default]`: the reasoning effort of the session model (config/effort.py), applied by
rebuilding the session's model client for the same conversation (like /model, without changing the model)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from paicli.cli.backend import CommandReply
from paicli.config.effort import EFFORTS, effort_text
from paicli.config.settings import Settings

if TYPE_CHECKING:
    from paicli.cli.commands import CommandContext

EFFORT_COMPLETIONS = (
    ("low", "少想：关闭思考，或最低推理强度"),
    ("medium", "中等推理强度"),
    ("high", "多想：最高推理强度"),
    ("default", "不发送任何推理参数，由模型自己决定"),
)


def effort_line(settings: Settings) -> str:
    level, fields = settings.reasoning_effort, settings.effort_request_fields
    if fields is None:
        return (
            f"⚙️ 推理强度 {level}：模型 {settings.model} 没有可调的推理强度，这个设置对它不生效"
            "（切换到支持的模型后自动生效）"
        )
    if not fields:
        return "⚙️ 推理强度: default（不发送推理参数，由模型自己决定）。可选: /effort low|medium|high"
    return f"⚙️ 推理强度: {level}（{settings.model} 收到 {effort_text(fields)}）"


def effort_args(args: str) -> bool:
    return args.strip().lower() in ("", *EFFORTS)


def effort_command(ctx: CommandContext, args: str) -> None:
    session = ctx.session
    level = args.strip().lower()
    if not level:
        ctx.reply(CommandReply(effort_line(session.settings)))
        return
    chosen = replace(session.settings, reasoning_effort=level)
    session.reconfigure(chosen)
    ctx.reply(CommandReply(effort_line(chosen), ok=chosen.effort_request_fields is not None))


def effort_label(settings: Settings) -> str:
    """The status bar's word: empty for the default."""
    return "" if settings.reasoning_effort == "default" else f"effort {settings.reasoning_effort}"
