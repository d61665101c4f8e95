"""The settings of context compaction: offloading (level 1), clearing old tool results (level 2), when automatic
summaries start, and how tokens are counted. Declared here, listed in `knobs.ALL_KNOBS` in this order."""

from __future__ import annotations

from paicli.config.knob_types import Knob, choice, flag, integer, names, trigger_parser

COMPACTION = "compaction"

TOOL_OFFLOAD_ENABLED = flag(
    "PAICLI_TOOL_OFFLOAD_ENABLED", COMPACTION, True, "level 1: offload oversized tool output"
)
TOOL_OFFLOAD_THRESHOLD_CHARS = integer(
    "PAICLI_TOOL_OFFLOAD_THRESHOLD_CHARS",
    COMPACTION,
    0,
    "offload threshold in chars (0: derived from the window)",
    0,
)
TOOL_RESULT_CLEARING_ENABLED = flag(
    "PAICLI_TOOL_RESULT_CLEARING_ENABLED", COMPACTION, True, "level 2: clear old tool results"
)
TOOL_RESULT_CLEARING_TRIGGER_TOKENS = integer(
    "PAICLI_TOOL_RESULT_CLEARING_TRIGGER_TOKENS", COMPACTION, 0, "level-2 trigger in tokens (0: derived)", 0
)
TOOL_RESULT_CLEARING_KEEP = integer(
    "PAICLI_TOOL_RESULT_CLEARING_KEEP", COMPACTION, 3, "recent tool results level 2 keeps", 0
)
TOOL_RESULT_CLEARING_EXCLUDE_TOOLS = names(
    "PAICLI_TOOL_RESULT_CLEARING_EXCLUDE_TOOLS", COMPACTION, "tools whose results level 2 never clears"
)
COMPACTION_TRIGGER: Knob[float | None] = Knob(
    "PAICLI_COMPACTION_TRIGGER",
    COMPACTION,
    None,
    "when automatic summaries start: a share of the window (0.6, 60%) or a token count (default: derived from "
    "the window)",
    "trigger",
    "(0, 1) or tokens ≥ 1,000",
    trigger_parser,
)
AUTO_COMPACT = choice(
    "PAICLI_AUTO_COMPACT",
    COMPACTION,
    "on",
    ("on", "off"),
    "off: no automatic clearing or summary (oversized results are still offloaded); a turn whose next request "
    "would not fit the window stops and names /compact",
)
SESSION_MEMORY_COMPACTION_ENABLED = flag(
    "PAICLI_SESSION_MEMORY_COMPACTION_ENABLED", COMPACTION, False, "experimental session-memory compaction"
)
TOKENIZER = choice(
    "PAICLI_TOKENIZER",
    COMPACTION,
    "exact",
    ("exact", "heuristic", "tiktoken", "auto", "estimate", "reference"),
    "token counting: cl100k (exact; aliases tiktoken, auto) or a heuristic (aliases estimate, reference)",
)

COMPACTION_KNOBS: tuple[Knob[object], ...] = (
    TOOL_OFFLOAD_ENABLED,
    TOOL_OFFLOAD_THRESHOLD_CHARS,
    TOOL_RESULT_CLEARING_ENABLED,
    TOOL_RESULT_CLEARING_TRIGGER_TOKENS,
    TOOL_RESULT_CLEARING_KEEP,
    TOOL_RESULT_CLEARING_EXCLUDE_TOOLS,
    COMPACTION_TRIGGER,
    AUTO_COMPACT,
    SESSION_MEMORY_COMPACTION_ENABLED,
    TOKENIZER,
)
