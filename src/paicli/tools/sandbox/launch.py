"""One sandboxed command: its private temp folder, policy file, wrapper argv and scrubbed environment."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from paicli.tools.sandbox.environ import sandbox_env
from paicli.tools.sandbox.rules import command_rules, encode_policy
from paicli.tools.sandbox.status import WRAPPER, SandboxStatus

FAILED_EXIT = 125
FAILED_PREFIX = "paicli-sandbox:"


@dataclass(frozen=True)
class Launch:
    argv: list[str]
    env: dict[str, str]
    folder: Path

    def cleanup(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def prepare(
    command: str,
    project_root: Path,
    env: Mapping[str, str],
    status: SandboxStatus,
    *,
    paicli_home: str | None,
    allow: Iterable[str] = (),
) -> Launch:
    """`env` is the environment the command would have had; the result is what it gets."""
    folder = Path(tempfile.mkdtemp(prefix="paicli-sbx-"))
    private_tmp = folder / "tmp"
    private_tmp.mkdir()
    rules = command_rules(project_root, env, str(private_tmp), paicli_home)
    policy = folder / "policy"
    policy.write_bytes(encode_policy(rules, status.userns))
    child_env = sandbox_env(env, allow)
    child_env.update(
        {
            "TMPDIR": str(private_tmp),
            # ~/.gitconfig is out of reach: say so to git instead of letting it warn on every call
            "GIT_CONFIG_GLOBAL": "/dev/null",
        }
    )
    argv = [sys.executable, "-I", "-S", str(WRAPPER), str(policy), "--", "bash", "-c", command]
    return Launch(argv, child_env, folder)
