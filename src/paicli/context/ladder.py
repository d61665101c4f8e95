"""The compaction ladder of one history as a plan: everything a check before a model call may do, in order,
for the manager's profile and the session's settings. Decided once when the manager is built; pure data that
the manager walks, so what each profile does is read in one place instead of from flags spread over the levels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from paicli.config.compaction_profiles import ClearingDepth, CompactionProfile

# clear: level 2 (old tool results, to the profile's depth); session_memory: a summary prepared in the
# background; summary: level 3; window_fit: what still does not fit loses seen results, unseen ones are
# offloaded, then rounds are summarised or folded into a note
Rung = Literal["clear", "session_memory", "summary", "window_fit"]


@dataclass(frozen=True)
class Ladder:
    # off: a check only offloads results too big for the window (lossless) and refuses a request that still
    # does not fit; the rungs run only when asked for by name (context/climb.py)
    automatic: bool
    rungs: tuple[Rung, ...]
    clearing_depth: ClearingDepth
    # a summary waits for its backoff and a minimum gain before it is paid for
    gated_summary: bool
    # in-place changes are checkpointed as the whole view, not only the replaced results
    whole_view_checkpoints: bool

    def has(self, rung: Rung) -> bool:
        return rung in self.rungs


def ladder_for(policy: CompactionProfile, *, automatic: bool, clearing: bool, session_memory: bool) -> Ladder:
    """Pure: the ladder of `policy` with the session's automatic-compaction, clearing and session-memory
    settings."""
    wanted: tuple[tuple[Rung, bool], ...] = (
        ("clear", clearing),
        ("session_memory", session_memory),
        ("summary", True),
        ("window_fit", policy.window_fit),
    )
    return Ladder(
        automatic,
        tuple(rung for rung, on in wanted if on),
        policy.clearing_depth,
        policy.summary_gates,
        policy.full_view_checkpoints,
    )
