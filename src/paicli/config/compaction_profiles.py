"""The compaction profiles as data: the article's algorithm end to end (`reference`) or paicli's cache-aware one
(`paicli`). Every way the two differ is one field of one frozen row, so code asks the profile instead of
comparing names; the setting's choices and the default memory placement are read from this table too. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# how far clearing goes once it fires (context/clearing.py)
ClearingDepth = Literal["keep_recent", "watermark"]
ProfileName = Literal["reference", "paicli"]
SummaryTail = Literal["rounds", "tokens"]
MemoryPlacement = Literal["system", "turn"]
SummaryInput = Literal["transcript", "prefix"]
Estimator = Literal["reference", "configured"]


@dataclass(frozen=True)
class CompactionProfile:
    name: ProfileName
    # what a summary keeps verbatim: the last `retain` real user rounds, or a recent tail sized by tokens
    summary_tail: SummaryTail
    # how far clearing goes once it fires: all but the `keep` newest results, or on to the low watermark
    clearing_depth: ClearingDepth
    # whether results of the latest response (not yet seen by the model) are protected from clearing
    protect_unseen: bool
    # a cleared result keeps the reference's sentence, or only the marker, the tool, the size and the file
    short_placeholder: bool
    memory_placement: MemoryPlacement
    # a summary request renders the old turns as text, or starts with the request the model last saw
    summary_input: SummaryInput
    # thresholds use the spec 1.1 estimator (1.5 CJK chars / 4 others per token), or the configured counter,
    # calibrated against the provider's figures
    estimator: Estimator
    # wait (summary backoff, unseen-results wait, minimum gain) before paying for a summary
    summary_gates: bool
    # a request that still does not fit the window: clear everything seen, offload unseen, then the fallback
    # note; without it a failed summary leaves the history unchanged (the reference)
    window_fit: bool
    # a summary's kept tail is cleared in the same pass (one cache break instead of two)
    clear_after_summary: bool
    # in-place changes write the whole view as a checkpoint, not only the replaced results
    full_view_checkpoints: bool
    # a summary is checked against the values the user stated in what it replaces (repaired once, what it
    # still misses carried verbatim beside it, a hollow one not used); the reference checks the headings only
    check_user_words: bool = False
    retain_rounds: int = 3


REFERENCE = CompactionProfile(
    name="reference",
    summary_tail="rounds",
    clearing_depth="keep_recent",
    protect_unseen=False,
    short_placeholder=False,
    memory_placement="system",
    summary_input="transcript",
    estimator="reference",
    summary_gates=False,
    window_fit=False,
    clear_after_summary=False,
    full_view_checkpoints=True,
)

PAICLI = CompactionProfile(
    name="paicli",
    summary_tail="tokens",
    clearing_depth="watermark",
    protect_unseen=True,
    short_placeholder=True,
    memory_placement="turn",
    summary_input="prefix",
    estimator="configured",
    summary_gates=True,
    window_fit=True,
    clear_after_summary=True,
    full_view_checkpoints=False,
    check_user_words=True,
)

PROFILES: dict[str, CompactionProfile] = {p.name: p for p in (PAICLI, REFERENCE)}  # the default first


def profile_named(name: str) -> CompactionProfile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown compaction profile {name!r} (known: {', '.join(PROFILES)})") from None
