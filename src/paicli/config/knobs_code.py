"""The settings of code intelligence (issue 46): the code index of /index, /search and search_code, and the
language servers whose diagnostics follow the agent's writes. Declared here, listed in `knobs.ALL_KNOBS` in this
order."""

from __future__ import annotations

from paicli.config.knob_types import Knob, flag, integer, number, protect, text

CODE = "code"

# A server's command line runs a program: protected.
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

CODE_KNOBS: tuple[Knob[object], ...] = (
    LSP_ENABLED,
    LSP_WAIT_SECONDS,
    LSP_MAX_DIAGNOSTICS,
    LSP_PYTHON,
    LSP_TYPESCRIPT,
    LSP_JAVA,
    INDEX_MAX_FILES,
    INDEX_MAX_FILE_KB,
)
