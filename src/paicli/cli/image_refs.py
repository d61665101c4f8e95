"""`@image:<path>` references (spec 10.1): each readable image becomes an image part of the turn's user
message, its path kept in the text as `Image source:` (what the note of a pruned image points back to). A model
that takes no images gets the text alone and one line saying so; the request stays valid either way."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from paicli.config import knobs
from paicli.llm.content_parts import MAX_IMAGE_BYTES, MEDIA_TYPES, ImagePart

IMAGE_REF = re.compile(r"(?<![\w@])@image:(\S+)")


@dataclass(frozen=True)
class AttachedImages:
    text: str  # what the model reads: the input plus an `Image source:` line per attached image
    images: tuple[ImagePart, ...]
    notes: tuple[tuple[str, str], ...]  # (level, line) for the user


def no_vision_line(model: str) -> str:
    return f"⚠️ 当前模型 {model} 不接收图片，本轮只发送文字（模型其实支持时可设 {knobs.VISION.key}=on）"


def attach_images(text: str, project_root: Path) -> AttachedImages:
    images: list[ImagePart] = []
    notes: list[tuple[str, str]] = []
    sources: list[str] = []
    seen: set[Path] = set()
    for match in IMAGE_REF.finditer(text):
        name = match.group(1)
        path = (project_root / Path(name).expanduser()).resolve()
        if path in seen:
            continue
        seen.add(path)
        image, note = _read(name, path)
        notes.append(note)
        if image is not None:
            images.append(image)
            sources.append(f"Image source: {path}")
    shown = text + "\n\n" + "\n".join(sources) if sources else text
    return AttachedImages(shown, tuple(images), tuple(notes))


def _read(name: str, path: Path) -> tuple[ImagePart | None, tuple[str, str]]:
    media_type = MEDIA_TYPES.get(path.suffix.lower())
    if media_type is None:
        kinds = "、".join(sorted({suffix.lstrip(".") for suffix in MEDIA_TYPES}))
        return None, ("warn", f"⚠️ @image:{name} 不是支持的图片格式（{kinds}），没有附上")
    try:
        size = path.stat().st_size
        if not path.is_file():
            return None, ("warn", f"⚠️ @image:{name} 不是文件，没有附上")
        if size > MAX_IMAGE_BYTES:
            limit = MAX_IMAGE_BYTES // (1024 * 1024)
            return None, ("warn", f"⚠️ @image:{name} 超过 {limit} MB，没有附上")
        raw = path.read_bytes()
    except OSError:
        return None, ("warn", f"⚠️ 没找到或读不了 @image:{name}，没有附上")
    return ImagePart.from_bytes(raw, media_type, str(path)), (
        "info",
        f"🖼️ 已附上图片 @image:{name}（{_kb(size)}）",
    )


def _kb(size: int) -> str:
    return f"{size / 1024:.1f} KB" if size < 1024 * 1024 else f"{size / (1024 * 1024):.1f} MB"
