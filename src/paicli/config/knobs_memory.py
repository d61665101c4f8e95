"""The settings of long-term memory (its folder is a state location, declared in knobs.py): automatic extraction, staleness, conflicts, the lock, the
local vectors and the relation judge. Declared here, listed in `knobs.ALL_KNOBS` in this order."""

from __future__ import annotations

from paicli.config.knob_types import Knob, flag, integer, number, protect

MEMORY = "memory"

MEMORY_AUTO_EXTRACT_ENABLED = flag(
    "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED",
    MEMORY,
    True,
    "extract facts the user stated after each completed turn",
)
MEMORY_STALE_DAYS = integer(
    "PAICLI_MEMORY_STALE_DAYS", MEMORY, 30, "days after which a memory is labelled stale (<= 0: never)"
)
MEMORY_CONFLICT_THRESHOLD = number(
    "PAICLI_MEMORY_CONFLICT_THRESHOLD",
    MEMORY,
    0.8,
    "similarity at which a new memory conflicts with one",
    0.0,
    1.0,
    open_low=True,
)
MEMORY_DISABLE_ON_EXTERNAL_CONTEXT = protect(
    flag(
        "PAICLI_MEMORY_DISABLE_ON_EXTERNAL_CONTEXT",
        MEMORY,
        True,
        "no automatic extraction in a turn that read external content",
    )
)
MEMORY_LOCK_TIMEOUT_SECONDS = number(
    "PAICLI_MEMORY_LOCK_TIMEOUT_SECONDS",
    MEMORY,
    10.0,
    "how long a memory write waits for the file lock",
    0.0,
    open_low=True,
)
MEMORY_VECTOR = flag("PAICLI_MEMORY_VECTOR", MEMORY, True, "local vector similarity in retrieval")
MEMORY_JUDGE = flag(
    "PAICLI_MEMORY_JUDGE",
    MEMORY,
    True,
    "let the light model check how a new memory relates to stored ones the local rules are unsure of",
)

MEMORY_KNOBS: tuple[Knob[object], ...] = (
    MEMORY_AUTO_EXTRACT_ENABLED,
    MEMORY_STALE_DAYS,
    MEMORY_CONFLICT_THRESHOLD,
    MEMORY_DISABLE_ON_EXTERNAL_CONTEXT,
    MEMORY_LOCK_TIMEOUT_SECONDS,
    MEMORY_VECTOR,
    MEMORY_JUDGE,
)
