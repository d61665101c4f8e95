"""Images a tool returned (spec 8.1 f): after the tool messages, one user message per tool that returned
images, framing them as tool data, with the image parts; for a model that takes images only (otherwise the
result's text describes them and nothing more is sent)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from importlib import resources

from paicli.llm.messages import Message
from paicli.tools.base import ToolResult

TOOL_IMAGE_SOURCE = "tool_image"


@functools.cache
def _template() -> str:
    return (
        (resources.files("paicli") / "prompts" / "context" / "tool-image.md")
        .read_text(encoding="utf-8")
        .strip()
    )


def tool_image_messages(results: Sequence[ToolResult]) -> list[Message]:
    return [
        Message("user", _template().replace("{name}", result.name), images=result.images)
        for result in results
        if result.images
    ]
