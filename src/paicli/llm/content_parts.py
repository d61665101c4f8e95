"""Image content parts of a message (spec 1.2, 8.1): what goes on the wire (a data URL or a URL), what the
ledger keeps (a reference: source, hash and size, never the bytes) and the estimator's figure."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any

MAX_IMAGE_BYTES = 5 * 1024 * 1024  # larger files are not attached (providers refuse them anyway)
MEDIA_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
URL_PART_TOKENS = 1024


def pruned_note(count: int) -> str:
    """Spec 8.1, byte for byte: what stands for the images taken out of an earlier message."""
    return f"[历史图片附件已省略 {count} 张；如需重新查看，请使用上文 Image source 或相关工具结果。]"


@dataclass(frozen=True)
class ImagePart:
    media_type: str
    data: str = ""  # base64 of the image; "" for a URL part
    url: str = ""
    source: str = ""  # where it came from (an absolute path, a tool name)
    sha256: str = ""
    size: int = 0  # bytes of the image

    @staticmethod
    def from_bytes(raw: bytes, media_type: str, source: str) -> ImagePart:
        digest = hashlib.sha256(raw).hexdigest()
        return ImagePart(media_type, base64.b64encode(raw).decode("ascii"), "", source, digest, len(raw))

    def estimate_tokens(self) -> int:
        """Spec 1.2: a base64 part `max(256, min(4096, (base64Length * 3 / 4) / 768))`, a URL part 1024."""
        if not self.data:
            return URL_PART_TOKENS
        return max(256, min(4096, (len(self.data) * 3 // 4) // 768))

    def to_wire(self) -> dict[str, Any]:
        url = self.url or f"data:{self.media_type};base64,{self.data}"
        return {"type": "image_url", "image_url": {"url": url}}

    def to_ledger(self) -> dict[str, Any]:
        """A reference for the ledger: enough to say which image it was, never the image itself."""
        entry: dict[str, Any] = {"type": "image", "mediaType": self.media_type, "source": self.source}
        if self.url:
            entry["url"] = self.url
        else:
            entry |= {"sha256": self.sha256, "bytes": self.size}
        return entry


def wire_content(text: str | None, images: tuple[ImagePart, ...]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    return parts + [image.to_wire() for image in images]


def ledger_parts(text: str | None, images: tuple[ImagePart, ...]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    return parts + [image.to_ledger() for image in images]


def ledger_image_count(parts: Any) -> int:
    """How many image references a ledger message's `contentParts` holds (their bytes were never kept)."""
    if not isinstance(parts, list):
        return 0
    return sum(1 for part in parts if isinstance(part, dict) and part.get("type") == "image")
