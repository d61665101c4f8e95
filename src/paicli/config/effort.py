"""Reasoning effort (issue 42): `/effort low|medium|high` and the effort setting, mapped to what each provider's
own API takes (pure). `default` sends nothing. None: the model has no such setting (said in one line).

OpenAI's reasoning models take `reasoning_effort`; DeepSeek a `thinking` switch plus `reasoning_effort` (high or
max); GLM and Kimi a `thinking` switch only (low turns thinking off, medium and high leave it on). Any other
OpenAI-compatible endpoint (a local server, a gateway) gets OpenAI's `reasoning_effort`.
"""

from __future__ import annotations

from typing import Any

EFFORTS = ("default", "low", "medium", "high")
_OPENAI_REASONING = ("o1", "o3", "o4", "gpt-5", "gpt-oss")
_SWITCH_ONLY = ("glm", "kimi")
_DEEPSEEK_DEPTH = {"medium": "high", "high": "max"}


def _thinking(on: bool) -> dict[str, Any]:
    return {"thinking": {"type": "enabled" if on else "disabled"}}


def effort_fields(provider: str, model: str, effort: str) -> dict[str, Any] | None:
    """The request fields for `effort` with this provider (whose profile the model gets) and model."""
    if effort == "default":
        return {}
    if effort not in EFFORTS:
        return None
    bare = model.rsplit("/", 1)[-1].lower()
    if provider == "deepseek":
        if effort == "low":
            return _thinking(False)
        return {**_thinking(True), "reasoning_effort": _DEEPSEEK_DEPTH[effort]}
    if provider in _SWITCH_ONLY:
        return _thinking(effort != "low")
    if provider == "openai":
        return {"reasoning_effort": effort} if bare.startswith(_OPENAI_REASONING) else None
    if provider == "paicli":
        return {"reasoning_effort": effort}
    return None


def effort_text(fields: dict[str, Any]) -> str:
    """What is sent, for the user: `thinking=enabled, reasoning_effort=max`."""
    parts = []
    for key, value in fields.items():
        shown = value.get("type") if isinstance(value, dict) else value
        parts.append(f"{key}={shown}")
    return ", ".join(parts)


def effort_label(effort: str) -> str:
    """The status bar's word: empty for the default."""
    return "" if effort == "default" else f"effort {effort}"
