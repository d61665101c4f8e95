"""The names a ledger's entries use for events and metadata keys, which the loop and the conversation write on
every turn: kept apart from the fold that reads them back (session/resume.py), which loads only for a resume."""

from __future__ import annotations

VIEW_CHECKPOINT_EVENT = "view_checkpoint"
REPLACED_RESULTS_KEY = "replacedResults"  # compact checkpoint: tool results replaced in place (no `messages`)
OUTCOME_KEY = "outcome"  # a tool_result entry's: how the call ended (tools.base.ToolOutcome)
REFS_KEY = "refs"  # beside `messages`: the ledger span each message stands for ([first, last] or null)
HISTORY_CLEAR_EVENT = "history_clear"
# `/rewind`: {toSequence, turn, scope}; every turn from toSequence on is taken back. The fold needs nothing of it
# (a full checkpoint of the rewound view follows); the transcript and the timeline leave those turns out.
REWIND_EVENT = "conversation_rewind"
# A resume that continues the view folded so far names it ({sessionId, sequence, checkpointSequence}) instead
# of copying it into a new checkpoint: folding the same file again gives the same view, so it is a no-op here.
VIEW_REFERENCE_EVENT = "view_reference"
