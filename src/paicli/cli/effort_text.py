"""The one line that says what the reasoning effort does for the session model (start-up notice and /effort)."""

from __future__ import annotations

from paicli.config.effort import effort_text
from paicli.config.settings import Settings


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
