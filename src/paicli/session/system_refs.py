"""Unchanged system prompts in the ledger: an entry that names the last identical prompt instead of copying it.

Every process that attaches to a session writes its system prompt again (spec 3.2: `session_attach`, and
`memory_context_refresh` when it changes). When the text equals one of the last few stored for the same mode
and actor, the ledger writes a small `system_unchanged` event (`sameAsSequence`, `sha256`) instead of another
copy of several KB. The fold never reads system entries (a resume builds a fresh prompt), so the view is
the same either way; readers that want the text follow `sameAsSequence`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paicli.session.scan import find_backwards, line_start

SYSTEM_UNCHANGED_EVENT = "system_unchanged"
_MARKER = b'"event":"system'  # matches both "system" and "system_unchanged" in the ledger's compact JSON
SCAN_LIMIT = 8 * 1024 * 1024  # farther back than this a prompt is simply written again
# distinct prompts of one (mode, actor) a later one may name: a process writes its attach prompt and then the one
# whose tool list names the request's tools, so two texts alternate across -c runs
RECENT = 4


@dataclass(frozen=True)
class SystemRef:
    sequence: int  # the entry that holds the text
    digest: str


def digest(message_json: Mapping[str, Any]) -> str:
    text = json.dumps(message_json, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def reference_metadata(ref: SystemRef) -> dict[str, Any]:
    return {"sameAsSequence": ref.sequence, "sha256": ref.digest}


def _ref_from(data: Any, mode: str, actor: str) -> SystemRef | bool | None:
    """The line's reference; False when the line is not a system entry of (mode, actor)."""
    if not isinstance(data, dict) or data.get("mode") != mode or data.get("actor") != actor:
        return False
    event, sequence = data.get("event"), data.get("sequence")
    if event == "system" and isinstance(data.get("message"), dict) and isinstance(sequence, int):
        return SystemRef(sequence, digest(data["message"]))
    if event == SYSTEM_UNCHANGED_EVENT:
        metadata = data.get("metadata")
        if isinstance(metadata, dict):
            same, sha = metadata.get("sameAsSequence"), metadata.get("sha256")
            if isinstance(same, int) and isinstance(sha, str):
                return SystemRef(same, sha)
        return None
    return False


def recent_systems(path: Path, mode: str, actor: str, limit: int = RECENT) -> dict[str, SystemRef]:
    """The last `limit` distinct prompts stored for (mode, actor), by digest (the newest entry of each), oldest
    first; read from the end of the file, at most `2 * limit` of its system entries."""
    found: dict[str, SystemRef] = {}
    seen = 0
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            for hit in find_backwards(handle, _MARKER, size):
                if size - hit > SCAN_LIMIT:
                    break
                handle.seek(line_start(handle, hit))
                try:
                    ref = _ref_from(json.loads(handle.readline()), mode, actor)
                except ValueError:
                    continue
                if ref is False:
                    continue
                seen += 1
                if isinstance(ref, SystemRef):
                    found.setdefault(ref.digest, ref)
                if len(found) >= limit or seen >= 2 * limit:
                    break
    except OSError:
        pass
    return dict(reversed(found.items()))
