"""Recall ids: how a placeholder, an offload notice or a summary names the original text it stands for.

A message recorded in the ledger carries the sequence of its entry (`Message.ref`); what compaction puts in
its place keeps that reference (a cleared result) or the span of everything it replaced (a summary). The id
the model sees is `r<seq>` or `r<first>-<last>`; an offload notice is named by its file instead
(`<session dir>/<NNN-tool>`), since the ledger entry is written after the notice is made. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from paicli.lazyre import lazy_pattern
from paicli.llm.messages import Message

Ref = tuple[int, int]

TAG = "recall:"
# compiled at first use: a greeting tags, parses and looks up no reference
_MARKER = lazy_pattern(r"^\[[^\]\n]{1,40}\]")
_REF = lazy_pattern(r"^#?r?(\d{1,12})(?:\s*[-–~]\s*r?(\d{1,12}))?$", re.IGNORECASE)
_SESSION_REF = lazy_pattern(r"^(session-[A-Za-z0-9._-]+?)[:#]\s*(r?\d.*)$")
OFFLOAD_ID = lazy_pattern(r"^([A-Za-z0-9][A-Za-z0-9._-]{0,80})/(\d{3,6}-[A-Za-z0-9_.-]{1,60})$")


def format_ref(ref: Ref) -> str:
    first, last = ref
    return f"r{first}" if first == last else f"r{first}-{last}"


def span(messages: Iterable[Message]) -> Ref | None:
    """The smallest span covering every message's reference (None when none has one)."""
    refs = [m.ref for m in messages if m.ref is not None]
    if not refs:
        return None
    return min(r[0] for r in refs), max(r[1] for r in refs)


def tag(text: str, ref: Ref | None) -> str:
    """`text` with ` recall:<id>` right after its leading `[marker]` (the marker itself stays byte for byte);
    unchanged when there is no reference, no marker, or the id is already there."""
    if ref is None:
        return text
    found = _MARKER().match(text)
    if found is None:
        return text
    label = f" {TAG}{format_ref(ref)}"
    rest = text[found.end() :]
    if rest.startswith(label):
        return text
    return text[: found.end()] + label + rest


def tagged(message: Message, ref: Ref | None) -> Message:
    """`message` standing for `ref`: the reference kept on it and named in its text."""
    return message.with_content(tag(message.content or "", ref)).with_ref(ref)


def clean_id(raw: str) -> str:
    text = raw.strip().strip("`'\"()[]（）【】").strip()
    if text.lower().startswith(TAG):
        text = text[len(TAG) :].strip()
    return text


def parse_ref(raw: str) -> Ref | None:
    """`r57`, `r12-340`, `recall:r57`, `#57` -> the sequences; None for anything else."""
    found = _REF().match(clean_id(raw))
    if found is None:
        return None
    first = int(found.group(1))
    last = int(found.group(2)) if found.group(2) else first
    return (first, last) if first <= last else (last, first)


def split_session(raw: str) -> tuple[str | None, str]:
    """`session-…:r57` -> (session id, `r57`); a bare id -> (None, id)."""
    text = clean_id(raw)
    found = _SESSION_REF().match(text)
    if found is None:
        return None, text
    return found.group(1), found.group(2)


def offload_id(relative_path: str) -> str:
    """The id of an offload file from its project-relative path (`.paicli/tool-outputs/<dir>/<NNN-tool>.txt`)."""
    parts = relative_path.replace("\\", "/").split("/")
    name = parts[-1][: -len(".txt")] if parts[-1].endswith(".txt") else parts[-1]
    return f"{parts[-2]}/{name}" if len(parts) >= 2 else name
