"""Every optional `PAICLI_*` setting, declared once: name, type, default, range and a one-line doc.

Components read their values through these declarations (`KNOB.read(env)`) or receive plain values from the
composition root; start-up validation, the README's configuration table and `/config` all derive from
`ALL_KNOBS`. Provider keys (endpoint, `*_API_KEY`, `*_MODEL`) are data of the provider table instead.
"""

from __future__ import annotations

from paicli.config.knob_types import (
    DEFAULT_DEBUG_PORT,
    Knob,
    Lookup,
    bool_parser,
    choice,
    endpoint_parser,
    flag,
    integer,
    names,
    number,
    optional_integer,
    ports_parser,
    protect,
    text,
    trigger_parser,
)
from paicli.config.knobs_web import WEB_KNOBS
from paicli.config.modes import MODE_NAMES

# ---------------------------------------------------------------- the declarations

LLM, SESSION, COMPACTION, MEMORY, AGENT, TOOLS, TERMINAL, CODE, BROWSER_TOOLS = (
    "llm",
    "session",
    "compaction",
    "memory",
    "agent",
    "tools",
    "terminal",
    "code",
    "browser",
)

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
    ("paicli", "reference"),
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

MEMORY_DIR = protect(
    text("PAICLI_MEMORY_DIR", MEMORY, "folder of long_term_memory.json (default $PAICLI_HOME/memory)")
)
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

# Code intelligence (issue 46): the code index of /index, /search and search_code, and the language servers whose
# diagnostics follow the agent's writes. A server's command line runs a program: protected.
LSP_ENABLED = flag(
    "PAICLI_LSP_ENABLED",
    CODE,
    True,
    "language-server diagnostics after write_file/edit_file, for languages whose server is installed",
)
LSP_WAIT_SECONDS = number(
    "PAICLI_LSP_WAIT_SECONDS",
    CODE,
    5.0,
    "how long the next model call waits for a server's diagnostics of the files just written",
    0.0,
    open_low=True,
)
LSP_MAX_DIAGNOSTICS = integer(
    "PAICLI_LSP_MAX_DIAGNOSTICS",
    CODE,
    20,
    "diagnostics shown to the model after one step, errors first",
    1,
    500,
)
LSP_PYTHON = protect(
    text(
        "PAICLI_LSP_PYTHON", CODE, "command line of the Python language server (default: pylsp, then pyright)"
    )
)
LSP_TYPESCRIPT = protect(
    text(
        "PAICLI_LSP_TYPESCRIPT",
        CODE,
        "command line of the TypeScript/JavaScript server (default: typescript-language-server --stdio)",
    )
)
LSP_JAVA = protect(text("PAICLI_LSP_JAVA", CODE, "command line of the Java language server (default: jdtls)"))
LSP_COMMANDS = {"python": LSP_PYTHON, "typescript": LSP_TYPESCRIPT, "java": LSP_JAVA}
INDEX_MAX_FILES = integer(
    "PAICLI_INDEX_MAX_FILES", CODE, 50_000, "files /index reads at most (in path order)", 1, 10_000_000
)
INDEX_MAX_FILE_KB = integer(
    "PAICLI_INDEX_MAX_FILE_KB", CODE, 512, "larger files are left out of the code index", 1, 100_000
)


# Browser tools (issue 48): which program runs, which private addresses a page may reach and which local browser
# is shared are the user's choice, never a repository's .env.
BROWSER = protect(
    text(
        "PAICLI_BROWSER",
        BROWSER_TOOLS,
        "the Chromium the browser tools drive (a path or a program name); default: chromium, chromium-browser "
        "or google-chrome on PATH",
    )
)
BROWSER_ALLOW_HOSTS = protect(
    names(
        "PAICLI_BROWSER_ALLOW_HOSTS",
        BROWSER_TOOLS,
        "hosts the browser tools may open although they are loopback or private addresses "
        "(e.g. 127.0.0.1,localhost); others are refused as web_fetch refuses them",
    )
)
BROWSER_DEBUG_ADDRESS = protect(
    Knob(
        "PAICLI_BROWSER_DEBUG_ADDRESS",
        BROWSER_TOOLS,
        f"http://127.0.0.1:{DEFAULT_DEBUG_PORT}",
        "DevTools address of your own browser for browser_connect and /browser connect (a port or a "
        "127.0.0.1:PORT address; start the browser with --remote-debugging-port)",
        "str",
        "port or loopback host:port",
        endpoint_parser,
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
    MEMORY_DIR,
    MEMORY_AUTO_EXTRACT_ENABLED,
    MEMORY_STALE_DAYS,
    MEMORY_CONFLICT_THRESHOLD,
    MEMORY_DISABLE_ON_EXTERNAL_CONTEXT,
    MEMORY_LOCK_TIMEOUT_SECONDS,
    MEMORY_VECTOR,
    MEMORY_JUDGE,
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
    LSP_ENABLED,
    LSP_WAIT_SECONDS,
    LSP_MAX_DIAGNOSTICS,
    LSP_PYTHON,
    LSP_TYPESCRIPT,
    LSP_JAVA,
    INDEX_MAX_FILES,
    INDEX_MAX_FILE_KB,
    BROWSER,
    BROWSER_ALLOW_HOSTS,
    BROWSER_DEBUG_ADDRESS,
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
