"""The real session (`AppBackend` over `build_components`) against a loopback fake server, in-process: the one
setup the tests of background extraction, warm-up, mentions, resume, notices and commands share (`command`, from paicli.testing, types one line at a REPL over it)."""

from __future__ import annotations

from pathlib import Path

from paicli.cli.compose import Components, build_components
from paicli.config.env import EnvLookup
from paicli.config.parsed import ParsedConfig
from paicli.config.settings import load_settings
from paicli.testing.commands import ScriptedIO, command
from paicli.tools.approval import AutoApprover

__all__ = ["ScriptedIO", "command", "served_env", "served_parts"]


def served_env(tmp_path: Path, base_url: str, *, auto_extract: bool = False, **extra: str) -> EnvLookup:
    """Home and PAICLI_HOME under `tmp_path`, the project in `tmp_path/project` (made here when missing)."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    environ = {
        "HOME": str(tmp_path),
        "PAICLI_HOME": str(tmp_path / ".paicli"),
        "PAICLI_BASE_URL": base_url,
        "PAICLI_MODEL": "fake-model",
        "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "true" if auto_extract else "false",
        **extra,
    }
    return EnvLookup(environ=environ, cwd=project)


def served_parts(tmp_path: Path, base_url: str, *, auto_extract: bool = False, **extra: str) -> Components:
    """The session's collaborators over `served_env`, every tool call approved."""
    env = served_env(tmp_path, base_url, auto_extract=auto_extract, **extra)
    return build_components(
        load_settings(env, cwd=tmp_path / "project"), ParsedConfig.read(env), AutoApprover(), yes=True
    )
