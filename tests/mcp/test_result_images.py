"""MCP image blocks -> image parts (pure): only images a model reads, within the size limit, valid base64."""

from __future__ import annotations

import base64

from paicli.llm.content_parts import MAX_IMAGE_BYTES
from paicli.mcp.convert import result_images, result_text


def block(data: str, mime: str = "image/png", kind: str = "image") -> dict[str, str]:
    return {"type": kind, "data": data, "mimeType": mime}


def test_image_blocks_become_parts_and_the_text_still_describes_them() -> None:
    raw = b"\x89PNG" + b"x" * 100
    content = [{"type": "text", "text": "截图"}, block(base64.b64encode(raw).decode())]
    (image,) = result_images(content, "mcp__pics__snapshot")
    assert (
        image.size == len(raw) and image.media_type == "image/png" and image.source == "mcp__pics__snapshot"
    )
    assert base64.b64decode(image.data) == raw
    assert "[图片: image/png" in result_text(content)


def test_what_a_model_cannot_take_is_left_as_text_only() -> None:
    big = base64.b64encode(b"x" * (MAX_IMAGE_BYTES + 1)).decode()
    content = [
        block("not base64!!"),
        block(base64.b64encode(b"abc").decode(), "image/tiff"),
        block(big),
        block(base64.b64encode(b"abc").decode(), "audio/wav", "audio"),
        block(""),
    ]
    assert result_images(content, "t") == ()
