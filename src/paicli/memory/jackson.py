"""JSON the way the reference (Jackson's default pretty printer) writes long_term_memory.json: one entry object
per block, `"key" : value`, strings escaped like Jackson (short escapes, upper-case \\uXXXX for other controls
and lone surrogates). Pure."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any

from paicli.memory.entry import MemoryEntry

_encode_string: Callable[[str], str] = encode_basestring  # the C encoder, non-ASCII kept as is


def render_object(data: dict[str, Any]) -> str:
    lines = []
    for key, value in data.items():
        if isinstance(value, dict):
            if value:
                inner = ",\n".join(f"    {_s(k)} : {_s(v)}" for k, v in value.items())
                rendered = "{\n" + inner + "\n  }"
            else:
                rendered = "{ }"
        else:
            rendered = _s(value)
        lines.append(f"  {_s(key)} : {rendered}")
    return "{\n" + ",\n".join(lines) + "\n}"


# Jackson's short escapes; every other control character and any lone surrogate becomes \uXXXX (upper-case
# hex, as Jackson writes it). A lone surrogate (a JSON "\ud83d" escape, an undecodable path name) written raw
# would make the UTF-8 encoding of the whole file fail, so no later write could ever succeed.
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
_NEEDS_HEX = re.compile("[\x00-\x07\x0b\x0e-\x1f\ud800-\udfff]")


def render_entry(entry: MemoryEntry) -> str:
    """One entry's block in the reference layout (an entry without unknown keys or replaced fields)."""
    return render_object(entry.to_json_dict())


def _java_string(value: str) -> str:
    out = []
    for ch in value:
        short = _SHORT_ESCAPES.get(ch)
        if short is not None:
            out.append(short)
        elif ord(ch) < 0x20 or 0xD800 <= ord(ch) <= 0xDFFF:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def json_scalar(value: Any) -> str:
    """A JSON scalar the way the reference writes it (strings escaped like Jackson)."""
    return _s(value)


def _s(value: Any) -> str:
    if isinstance(value, str):
        return _java_string(value) if _NEEDS_HEX.search(value) else _encode_string(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return json.dumps(value, ensure_ascii=False)
