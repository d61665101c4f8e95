"""One resolver for the paicli home, and the process environment read only inside config/."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from paicli.config.env import EnvLookup, home_dir
from paicli.config.run_values import MemoryValues
from paicli.config.settings import load_settings
from paicli.config.tool_values import ToolValues
from paicli.tools.readonly import CommandSite, is_read_only
from tests.sources import parsed, product_sources

SRC = Path(__file__).resolve().parents[2] / "src" / "paicli"
# The sandbox wrapper is its own small program (stdlib only, for its start-up time): the environment it
# passes on is the one paicli already built for the command.
CHILD_PROGRAMS = {"tools/sandbox/wrapper.py"}


ENVIRON_NAMES = ("environ", "environb", "getenv", "getenvb", "putenv")


def _names_the_environment(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in ENVIRON_NAMES and isinstance(node.value, ast.Name) and node.value.id == "os"
    if isinstance(node, ast.ImportFrom):
        return node.module == "os" and any(alias.name in ENVIRON_NAMES for alias in node.names)
    return False


def _reads_of_the_process_environment(path: Path) -> list[int]:
    tree = parsed(path)
    return [getattr(node, "lineno", 0) for node in ast.walk(tree) if _names_the_environment(node)]


def test_only_config_reads_the_process_environment() -> None:
    found = {}
    for path in product_sources(SRC):
        relative = str(path.relative_to(SRC))
        if relative.startswith("config/") or relative in CHILD_PROGRAMS:
            continue
        lines = _reads_of_the_process_environment(path)
        if lines:
            found[relative] = lines
    assert found == {}


def test_no_module_writes_the_home_into_the_environment() -> None:
    writes = [
        str(path.relative_to(SRC))
        for path in product_sources(SRC)
        if "environ.setdefault" in path.read_text(encoding="utf-8")
        or "environ[" in path.read_text(encoding="utf-8").replace('os.environ["KEY"]', "")
    ]
    assert writes == []


def _layout(tmp_path: Path, user_env: str = "") -> dict[str, str]:
    user_home = tmp_path / "user"
    (user_home / ".paicli").mkdir(parents=True)
    (tmp_path / "project").mkdir()
    if user_env:
        (user_home / ".env").write_text(user_env, encoding="utf-8")
    return {"HOME": str(user_home)}


def test_the_home_defaults_to_dot_paicli_in_the_users_home(tmp_path: Path) -> None:
    environ = _layout(tmp_path)
    assert home_dir(environ) == tmp_path / "user" / ".paicli"
    assert home_dir(EnvLookup(environ)) == tmp_path / "user" / ".paicli"


def test_a_home_set_in_the_users_env_file_is_the_home_everywhere(tmp_path: Path) -> None:
    chosen = tmp_path / "elsewhere"
    environ = _layout(tmp_path, f"PAICLI_HOME={chosen}\nPAICLI_LOG_LEVEL=debug\n")
    (chosen).mkdir()
    (chosen / ".env").write_text("PAICLI_MEMORY_STALE_DAYS=7\n", encoding="utf-8")
    env = EnvLookup(environ, cwd=tmp_path / "project")
    settings = load_settings(
        EnvLookup({**environ, "PAICLI_BASE_URL": "http://127.0.0.1:9/v1", "PAICLI_MODEL": "m"}),
        cwd=tmp_path / "project",
    )
    assert settings.paicli_home == chosen
    assert home_dir(env) == chosen and home_dir(environ) == chosen
    assert (
        MemoryValues.parse(env).folder(chosen) == chosen / "memory"
        and ToolValues.parse(env).audit_folder == chosen / "audit"
    )
    assert env.get("PAICLI_MEMORY_STALE_DAYS") == "7"  # the .env of that home is the one read
    # the read-only rule guards that home even though the process environment does not name it
    site = CommandSite(tmp_path / "project", environ={**environ})
    assert not is_read_only(f"cat {chosen}/config.json", site)
    assert is_read_only(f"cat {tmp_path}/project/README.md", site)


def test_the_environment_beats_the_users_env_file_and_a_project_cannot_move_the_home(tmp_path: Path) -> None:
    environ = _layout(tmp_path, f"PAICLI_HOME={tmp_path / 'from-user-env'}\n")
    (tmp_path / "project" / ".env").write_text(f"PAICLI_HOME={tmp_path / 'from-project'}\n", encoding="utf-8")
    assert home_dir(EnvLookup(environ, cwd=tmp_path / "project")) == tmp_path / "from-user-env"
    environ["PAICLI_HOME"] = str(tmp_path / "from-env")
    assert home_dir(EnvLookup(environ, cwd=tmp_path / "project")) == tmp_path / "from-env"


@pytest.mark.e2e  # a Python process of its own
def test_a_paicli_started_by_a_command_finds_the_same_home_without_it_in_the_environment(
    tmp_path: Path,
) -> None:
    chosen = tmp_path / "elsewhere"
    environ = _layout(tmp_path, f"PAICLI_HOME={chosen}\n")
    child_env = {key: value for key, value in os.environ.items() if key != "PAICLI_HOME"} | environ
    shown = subprocess.run(
        [sys.executable, "-c", "from paicli.config.env import home_dir; print(home_dir())"],
        env=child_env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert shown.stdout.strip() == str(chosen)
