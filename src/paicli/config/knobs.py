"""Every optional `PAICLI_*` setting, declared once: name, type, default, range and a one-line doc.

Components read their values through these declarations (`KNOB.read(env)`) or receive plain values from the
composition root; start-up validation, the README's configuration table and `/config` all derive from
`ALL_KNOBS`. Provider keys (endpoint, `*_API_KEY`, `*_MODEL`) are data of the provider table instead.
"""

from __future__ import annotations

from paicli.config import knobs_browser, knobs_code, knobs_memory
from paicli.config.compaction_profiles import PROFILES
from paicli.config.knob_types import (
    Knob,
    Lookup,
    bool_parser,
    choice,
    flag,
    integer,
    names,
    number,
    optional_integer,
    ports_parser,
    protect,
    text,
)
from paicli.config.knobs_compaction import COMPACTION, COMPACTION_KNOBS
from paicli.config.knobs_web import WEB_KNOBS
from paicli.config.modes import MODE_NAMES

# ---------------------------------------------------------------- the declarations

LLM, SESSION, AGENT, TOOLS, TERMINAL = ("llm", "session", "agent", "tools", "terminal")

HOME = protect(
    text(
        "PAICLI_HOME",
        SESSION,
        "all per-user state (memory, ledgers, input history, config.json); default ~/.paicli",
    )
)
CONTEXT_WINDOW = optional_integer(
    "PAICLI_CONTEXT_WINDOW",
    LLM,
    "context window in tokens; every threshold derives from it (default: per model)",
    8_000,
    10_000_000,
)
MAX_OUTPUT_TOKENS = optional_integer(
    "PAICLI_MAX_OUTPUT_TOKENS",
    LLM,
    "output cap sent as max_tokens with every model request (default: none sent); side calls keep smaller caps",
    1,
    1_000_000,
)
REASONING_EFFORT = choice(
    "PAICLI_REASONING_EFFORT",
    LLM,
    "default",
    ("default", "low", "medium", "high"),
    "reasoning effort, mapped to the provider's own parameter (reasoning_effort, thinking); /effort changes it",
)
OUTPUT_CONTINUATIONS = integer(
    "PAICLI_OUTPUT_CONTINUATIONS",
    LLM,
    2,
    "how often a text answer cut by the output limit is continued automatically (0: never)",
    0,
    10,
)
LIGHT_MODEL = text(
    "PAICLI_LIGHT_MODEL", LLM, "model for background side calls (fact extraction); default: the session model"
)
COMPACTION_MODEL = text(
    "PAICLI_COMPACTION_MODEL", LLM, "model for level-3 summaries; default: the session model"
)
COMPACTION_SUMMARY_INPUT = choice(
    "PAICLI_COMPACTION_SUMMARY_INPUT",
    LLM,
    "prefix",
    ("prefix", "transcript"),
    "how a summary request carries the conversation: prefix starts with the session's last request (served "
    "from the provider's prompt cache); transcript is the reference's rendered text",
)
COMPACTION_PROFILE = choice(
    "PAICLI_COMPACTION_PROFILE",
    COMPACTION,
    "paicli",
    tuple(PROFILES),
    "compaction algorithm: paicli (cache-aware depths, fallback note) or reference (the article end to end)",
)
VISION = choice(
    "PAICLI_VISION",
    LLM,
    "auto",
    ("auto", "on", "off"),
    "whether the model takes images (@image:); auto: known vision models by their provider profile",
)
REASONING_IN_WIRE = Knob(
    "PAICLI_REASONING_IN_WIRE",
    LLM,
    None,
    "echo reasoning_content with tool calls (default: per provider)",
    "bool",
    "true/false",
    bool_parser,
)
LLM_CONNECT_TIMEOUT = number(
    "PAICLI_LLM_CONNECT_TIMEOUT", LLM, 60.0, "seconds to connect", 0.0, open_low=True
)
LLM_READ_TIMEOUT = number(
    "PAICLI_LLM_READ_TIMEOUT", LLM, 300.0, "seconds between streamed bytes", 0.0, open_low=True
)
LLM_CALL_TIMEOUT = number("PAICLI_LLM_CALL_TIMEOUT", LLM, 600.0, "seconds per attempt", 0.0, open_low=True)
LLM_MAX_RETRIES = integer(
    "PAICLI_LLM_MAX_RETRIES", LLM, 3, "retries on 408/409/429/5xx and connection errors", 0, 10
)
LLM_RETRY_BACKOFF = number(
    "PAICLI_LLM_RETRY_BACKOFF", LLM, 0.5, "base of the exponential retry backoff, seconds", 0.0
)
LLM_MAX_RESPONSE_BYTES = integer(
    "PAICLI_LLM_MAX_RESPONSE_BYTES",
    LLM,
    64 * 1024 * 1024,
    "bytes one reply may stream before it is stopped with an error (a model that never ends)",
    4096,
)

MEMORY_PLACEMENT = choice(
    "PAICLI_MEMORY_PLACEMENT",
    SESSION,
    "turn",
    ("turn", "system"),
    "where retrieved memories go: turn keeps the system prompt byte-identical; system is the reference",
)
APPROVAL_MODE = protect(
    choice(
        "PAICLI_APPROVAL_MODE",
        SESSION,
        "auto",
        MODE_NAMES,
        "mode at start-up, as /mode sets it: ask confirms every write and command; plan / team run plain inputs"
        " (and -p without --plan/--team) as Plan-and-Execute / Team",
    )
)
PROMPT_RUNTIME_DATE = text(
    "PAICLI_PROMPT_RUNTIME_DATE", SESSION, "fixed ISO date for the prompt's runtime section (tests)"
)
PROMPT_RUNTIME_ZONE = text(
    "PAICLI_PROMPT_RUNTIME_ZONE", SESSION, "IANA time zone for the prompt's runtime section"
)
TOOLS_ENABLED = flag(
    "PAICLI_TOOLS_ENABLED", SESSION, True, "false: the model has no native tool calling; send no tools"
)
LOCAL_PORTS: Knob[tuple[int, ...]] = Knob(
    "PAICLI_LOCAL_PORTS",
    SESSION,
    (11434, 1234, 8080, 8000),
    "127.0.0.1 ports the first-run setup probes for local model servers when nothing is configured",
    "ports",
    "ports, or off",
    ports_parser,
)
RESUME_REPLAY_TURNS = integer(
    "PAICLI_RESUME_REPLAY_TURNS",
    SESSION,
    10,
    "turns of the conversation shown again (from the session ledger) when -c / --resume / /resume continues it",
    0,
    1000,
)
SESSION_RETENTION_DAYS = optional_integer(
    "PAICLI_SESSION_RETENTION_DAYS",
    SESSION,
    "days a session ledger is kept after its last activity; older ones are deleted at start-up and by "
    "/sessions clean (default: every session is kept)",
    1,
    36_500,
)

MEMORY_DIR = protect(
    text(
        "PAICLI_MEMORY_DIR",
        knobs_memory.MEMORY,
        "folder of long_term_memory.json (default $PAICLI_HOME/memory)",
    )
)
# the memory's other settings are declared beside each other in knobs_memory.py
MEMORY_AUTO_EXTRACT_ENABLED = knobs_memory.MEMORY_AUTO_EXTRACT_ENABLED
MEMORY_STALE_DAYS = knobs_memory.MEMORY_STALE_DAYS
MEMORY_CONFLICT_THRESHOLD = knobs_memory.MEMORY_CONFLICT_THRESHOLD
MEMORY_DISABLE_ON_EXTERNAL_CONTEXT = knobs_memory.MEMORY_DISABLE_ON_EXTERNAL_CONTEXT
MEMORY_LOCK_TIMEOUT_SECONDS = knobs_memory.MEMORY_LOCK_TIMEOUT_SECONDS
MEMORY_VECTOR = knobs_memory.MEMORY_VECTOR
MEMORY_JUDGE = knobs_memory.MEMORY_JUDGE

REACT_TOKEN_BUDGET = optional_integer(
    "PAICLI_REACT_TOKEN_BUDGET", AGENT, "token budget of one task (default: derived)", 1
)
REACT_STAGNATION_WINDOW = integer(
    "PAICLI_REACT_STAGNATION_WINDOW", AGENT, 5, "identical tool rounds in a row that count as stagnation", 2
)
# The reference is unlimited; paicli caps a task generously so that tool calls that alternate (A, B, A, B, …),
# which never trip the identical-rounds stagnation window, cannot run forever (issue 17).
REACT_HARD_MAX_ITERATIONS = integer(
    "PAICLI_REACT_HARD_MAX_ITERATIONS",
    AGENT,
    200,
    "hard cap on model calls per task (then a partial answer)",
    1,
)

PLAN_MAX_PARALLEL = integer(
    "PAICLI_PLAN_MAX_PARALLEL", AGENT, 4, "plan tasks run at the same time, at most", 1, 16
)
PLAN_MAX_REPLANS = integer(
    "PAICLI_PLAN_MAX_REPLANS", AGENT, 2, "replans after a task fails before half of the plan is done", 0, 10
)

COMMAND_TIMEOUT_SECONDS = integer(
    "PAICLI_COMMAND_TIMEOUT_SECONDS", TOOLS, 60, "execute_command time limit, seconds", 1
)
AUDIT_DIR = protect(
    text("PAICLI_AUDIT_DIR", TOOLS, "folder of the approval audit log (default $PAICLI_HOME/audit)")
)
SKILL_BODY_BUDGET = integer(
    "PAICLI_SKILL_BODY_BUDGET", TOOLS, 16_384, "chars of loaded skill text kept in the history", 1024
)
GREP_RIPGREP = flag(
    "PAICLI_GREP_RIPGREP",
    TOOLS,
    True,
    "grep_code uses the bundled ripgrep; false: the built-in engine (gives up after 20 s, 2 s per line)",
)
MCP_TIMEOUT = number(
    "PAICLI_MCP_TIMEOUT", TOOLS, 60.0, "time limit of one MCP call, seconds", 0, open_low=True
)
MCP_STARTUP_WAIT = number(
    "PAICLI_MCP_STARTUP_WAIT_SECONDS",
    TOOLS,
    8.0,
    "-p and piped runs: how long to wait for an MCP server whose tools are not cached yet (0: never)",
    0,
)
SNAPSHOTS = protect(
    choice(
        "PAICLI_SNAPSHOTS",
        TOOLS,
        "on",
        ("on", "off"),
        "side-git snapshot of the project before each turn's first change (/undo, /restore, revert_turn)",
    )
)
SNAPSHOT_KEEP = integer(
    "PAICLI_SNAPSHOT_KEEP",
    TOOLS,
    50,
    "workspace snapshots kept per project (older ones are pruned)",
    1,
    10_000,
)

COMMAND_SANDBOX = choice(
    "PAICLI_COMMAND_SANDBOX",
    TOOLS,
    "auto",
    ("off", "auto", "required"),
    "OS sandbox of commands run without a human's yes: auto uses it where the kernel can, required asks for "
    "every command without it, off runs them unconfined",
)
COMMAND_ENV_ALLOW = protect(
    names(
        "PAICLI_COMMAND_ENV_ALLOW",
        TOOLS,
        "more variables that commands run without a human's yes may get, beyond PATH, HOME, LANG, TERM and "
        "the like (never paicli's keys, sockets or agents, nor a value that looks like a credential)",
    )
)
COMMAND_SANDBOX_USERNS = flag(
    "PAICLI_COMMAND_SANDBOX_USERNS",
    TOOLS,
    True,
    "false: the sandbox does without user namespaces (Landlock TCP rules, a subreaper); for tests",
)
NO_STATUSBAR = flag("PAICLI_NO_STATUSBAR", TERMINAL, False, "hide the REPL status bar")
LOG_LEVEL = choice(
    "PAICLI_LOG_LEVEL",
    TERMINAL,
    "info",
    ("debug", "info", "warning", "error"),
    "log level of $PAICLI_HOME/logs/paicli.log",
)
RUNTIME_API_KEY = protect(
    text(
        "PAICLI_RUNTIME_API_KEY",
        SESSION,
        "the key every Runtime API request (paicli serve --http) must send, as Authorization: Bearer or "
        "X-PaiCLI-API-Key; the server does not start without it",
    )
)

ALL_KNOBS: tuple[Knob[object], ...] = (
    HOME,
    CONTEXT_WINDOW,
    LIGHT_MODEL,
    COMPACTION_MODEL,
    COMPACTION_SUMMARY_INPUT,
    COMPACTION_PROFILE,
    VISION,
    REASONING_IN_WIRE,
    LLM_CONNECT_TIMEOUT,
    LLM_READ_TIMEOUT,
    LLM_CALL_TIMEOUT,
    LLM_MAX_RETRIES,
    LLM_RETRY_BACKOFF,
    LLM_MAX_RESPONSE_BYTES,
    MEMORY_PLACEMENT,
    APPROVAL_MODE,
    PROMPT_RUNTIME_DATE,
    PROMPT_RUNTIME_ZONE,
    TOOLS_ENABLED,
    LOCAL_PORTS,
    RESUME_REPLAY_TURNS,
    SESSION_RETENTION_DAYS,
    *COMPACTION_KNOBS,
    MEMORY_DIR,
    *knobs_memory.MEMORY_KNOBS,
    REACT_TOKEN_BUDGET,
    REACT_STAGNATION_WINDOW,
    REACT_HARD_MAX_ITERATIONS,
    PLAN_MAX_PARALLEL,
    PLAN_MAX_REPLANS,
    COMMAND_TIMEOUT_SECONDS,
    AUDIT_DIR,
    SKILL_BODY_BUDGET,
    GREP_RIPGREP,
    COMMAND_SANDBOX,
    COMMAND_ENV_ALLOW,
    COMMAND_SANDBOX_USERNS,
    MCP_TIMEOUT,
    MCP_STARTUP_WAIT,
    SNAPSHOTS,
    SNAPSHOT_KEEP,
    NO_STATUSBAR,
    LOG_LEVEL,
    *WEB_KNOBS,
    *knobs_code.CODE_KNOBS,
    *knobs_browser.BROWSER_KNOBS,
    MAX_OUTPUT_TOKENS,
    REASONING_EFFORT,
    OUTPUT_CONTINUATIONS,
    RUNTIME_API_KEY,
)


def validate_all(env: Lookup) -> None:
    """Start-up check: ConfigError naming the first set knob whose value cannot be used."""
    for knob in ALL_KNOBS:
        knob.read(env)


def protected_keys() -> frozenset[str]:
    return frozenset(knob.key for knob in ALL_KNOBS if knob.protected)


def markdown_table() -> str:
    """The README's configuration table, generated from the declarations (a test keeps the two equal)."""
    lines = ["| setting | default | allowed | what it does |", "| --- | --- | --- | --- |"]
    for knob in ALL_KNOBS:
        doc = f"{knob.doc} (protected: never from a project .env)" if knob.protected else knob.doc
        lines.append(f"| `{knob.key}` | {knob.default_text} | {knob.allowed or '—'} | {doc} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown_table())
