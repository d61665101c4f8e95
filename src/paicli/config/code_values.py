"""The code intelligence settings (issue 46), parsed once: the index's bounds and the language servers'."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from paicli.config import knobs_code as code
from paicli.config.knob_types import Lookup


@dataclass(frozen=True)
class LspValues:
    enabled: bool = code.LSP_ENABLED.default
    wait_seconds: float = code.LSP_WAIT_SECONDS.default
    max_diagnostics: int = code.LSP_MAX_DIAGNOSTICS.default
    commands: Mapping[str, str] = field(default_factory=dict)  # language -> command line from a setting

    @classmethod
    def parse(cls, env: Lookup) -> LspValues:
        commands = {
            language: value
            for language, knob in code.LSP_COMMANDS.items()
            if (value := knob.read(env)) is not None and value.strip()
        }
        return cls(
            code.LSP_ENABLED.read(env),
            code.LSP_WAIT_SECONDS.read(env),
            code.LSP_MAX_DIAGNOSTICS.read(env),
            commands,
        )


@dataclass(frozen=True)
class IndexValues:
    max_files: int = code.INDEX_MAX_FILES.default
    max_file_bytes: int = code.INDEX_MAX_FILE_KB.default * 1024

    @classmethod
    def parse(cls, env: Lookup) -> IndexValues:
        return cls(code.INDEX_MAX_FILES.read(env), code.INDEX_MAX_FILE_KB.read(env) * 1024)


@dataclass(frozen=True)
class CodeValues:
    lsp: LspValues = field(default_factory=LspValues)
    index: IndexValues = field(default_factory=IndexValues)

    @classmethod
    def parse(cls, env: Lookup) -> CodeValues:
        return cls(LspValues.parse(env), IndexValues.parse(env))
