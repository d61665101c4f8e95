"""Which model a session was last using, as its ledger recorded it: the session_start metadata, each resume's
marker and every `/model` switch (`model_change`). A resume continues with that model, or says which one it
continues with instead. `read_recorded_model` reads the file from its end."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paicli.session.ledger import (
    MODEL_CHANGE_EVENT,
    SESSION_RESUMED_EVENT,
    SESSION_START_EVENT,
    ConversationLedger,
)
from paicli.session.scan import find_backwards, line_start

_MODEL_EVENTS = (SESSION_START_EVENT, SESSION_RESUMED_EVENT, MODEL_CHANGE_EVENT)
_MARKERS = tuple(f'"event":"{event}"'.encode() for event in _MODEL_EVENTS[1:])


@dataclass(frozen=True)
class RecordedModel:
    model: str
    provider: str

    @property
    def spec(self) -> str:
        """What `/model` and `Settings.with_model` take."""
        return f"{self.provider}/{self.model}" if self.provider else self.model


def _from_metadata(metadata: Mapping[str, Any]) -> RecordedModel | None:
    model, provider = metadata.get("model"), metadata.get("provider")
    if not isinstance(model, str) or not model:
        return None
    return RecordedModel(model, provider if isinstance(provider, str) else "")


def record_model_change(ledger: ConversationLedger, model: str, provider: str) -> None:
    """`/model` switched the session to `model` (a resume continues with the last one recorded)."""
    ledger.append_event(
        MODEL_CHANGE_EVENT, "react", "cli", "slash_model", {"model": model, "provider": provider}
    )


def read_recorded_model(path: Path) -> RecordedModel | None:
    """The model of the last entry that names one (start, resume or switch): the last resume or switch line,
    else the first line; None when none names one."""
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, 2)
            hits = [next(find_backwards(handle, marker, size), -1) for marker in _MARKERS]
            starts = [*sorted({line_start(handle, hit) for hit in hits if hit >= 0}, reverse=True), 0]
            for start in starts:
                handle.seek(start)
                found = _line_model(handle.readline())
                if found is not None:
                    return found
    except OSError:
        return None
    return None


def _line_model(line: bytes) -> RecordedModel | None:
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("event") not in _MODEL_EVENTS:
        return None
    metadata = data.get("metadata")
    return _from_metadata(metadata) if isinstance(metadata, dict) else None
