"""Which language server serves which files, and how it is started: a command from the settings
(the protected `LSP_*` knobs), else the first known server found beside paicli's interpreter or on PATH. The
environment a server gets is the sandbox's allow-list: the variables a program needs to run, never a key."""

from __future__ import annotations

import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paicli.config.code_values import LspValues
from paicli.config.env import process_environ
from paicli.config.keys import Keys, no_keys
from paicli.tools.sandbox.environ import sandbox_env

# pylsp's style checkers are off: diagnostics are for errors an agent must fix, not for layout
_PYLSP_SETTINGS: dict[str, Any] = {
    "pylsp": {
        "plugins": {
            name: {"enabled": False}
            for name in ("pycodestyle", "mccabe", "pydocstyle", "pylint", "flake8", "autopep8", "yapf")
        }
    }
}


@dataclass(frozen=True)
class ServerKind:
    language: str  # as /config names it
    language_ids: Mapping[str, str]  # file suffix -> LSP languageId
    candidates: tuple[tuple[str, ...], ...]  # known servers, in order of preference
    settings: dict[str, Any] | None = None


KINDS = (
    ServerKind(
        "python",
        {".py": "python", ".pyi": "python"},
        (
            ("pylsp",),
            ("basedpyright-langserver", "--stdio"),
            ("pyright-langserver", "--stdio"),
            ("jedi-language-server",),
        ),
        _PYLSP_SETTINGS,
    ),
    ServerKind(
        "typescript",
        {
            ".ts": "typescript",
            ".tsx": "typescriptreact",
            ".js": "javascript",
            ".jsx": "javascriptreact",
            ".mjs": "javascript",
            ".cjs": "javascript",
        },
        (("typescript-language-server", "--stdio"),),
    ),
    ServerKind("java", {".java": "java"}, (("jdtls",),)),
)


@dataclass(frozen=True)
class ServerPlan:
    kind: ServerKind
    command: tuple[str, ...] | None  # None: no server for this language here
    configured: bool  # named by a setting (not found by looking)


def kind_for(path: Path) -> ServerKind | None:
    suffix = path.suffix.lower()
    return next((kind for kind in KINDS if suffix in kind.language_ids), None)


def server_env(keys: Keys = no_keys) -> dict[str, str]:
    return sandbox_env(process_environ(), (), keys())


def _found(program: str, search_path: str | None) -> str | None:
    beside = Path(sys.executable).parent / program  # installed with paicli (the dev extra's pylsp)
    if beside.is_file():
        return str(beside)
    return shutil.which(program, path=search_path)


def plan(kind: ServerKind, values: LspValues, search_path: str | None) -> ServerPlan:
    configured = values.commands.get(kind.language)
    if configured:
        return ServerPlan(kind, tuple(shlex.split(configured)), True)
    for candidate in kind.candidates:
        program = _found(candidate[0], search_path)
        if program is not None:
            return ServerPlan(kind, (program, *candidate[1:]), False)
    return ServerPlan(kind, None, False)
