"""Running the `git` program against the side repository, isolated from every other git setting.

The environment is built from scratch (no GIT_DIR / GIT_WORK_TREE / GIT_INDEX_FILE leaking in from the user's
shell, none of paicli's keys), system and global config are off, and the side repository's own config turns off
hooks, fsmonitor, filters and end-of-line conversion, so what is stored is exactly the bytes on disk.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from paicli.config.env import process_environ

GIT_TIMEOUT_SECONDS = 300.0
_PASSED_THROUGH = ("PATH", "TMPDIR", "SYSTEMROOT")
_IDENTITY = "paicli-snapshot"
_EMAIL = "snapshot@paicli.invalid"

SIDE_CONFIG = """\
[core]
\trepositoryformatversion = 0
\tbare = false
\tfilemode = true
\tsymlinks = true
\tignorecase = false
\tprecomposeunicode = false
\tautocrlf = false
\tsafecrlf = false
\thooksPath = /dev/null
\tfsmonitor = false
\tuntrackedCache = true
\texcludesFile = /dev/null
\tattributesFile = /dev/null
\tsharedRepository = 0600
\tlogAllRefUpdates = false
\tlooseCompression = 1
\tquotePath = false
[gc]
\tauto = 0
[commit]
\tgpgSign = false
[index]
\tversion = 4
"""

# info/attributes outranks every .gitattributes in the project: no text/eol conversion, no filter drivers
SIDE_ATTRIBUTES = "* -text -filter -ident -working-tree-encoding !eol\n"


class SnapshotError(Exception):
    """A snapshot or restore could not be done; the message is for the user (Chinese) or a git error."""


@dataclass(frozen=True)
class GitRepo:
    """One side repository (`git_dir`) whose work tree is the project (`work_tree`)."""

    git: str
    git_dir: Path
    work_tree: Path

    @property
    def index(self) -> Path:
        return self.git_dir / "index"

    def env(self, index: Path | None = None) -> dict[str, str]:
        env = {key: value for key, value in process_environ().items() if key in _PASSED_THROUGH}
        env.update(
            {
                "HOME": str(self.git_dir),
                "LC_ALL": "C",
                "GIT_DIR": str(self.git_dir),
                "GIT_WORK_TREE": str(self.work_tree),
                "GIT_INDEX_FILE": str(index or self.index),
                "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_CONFIG_GLOBAL": os.devnull,
                "GIT_ATTR_NOSYSTEM": "1",
                "GIT_TERMINAL_PROMPT": "0",
                "GIT_LITERAL_PATHSPECS": "1",
                "GIT_AUTHOR_NAME": _IDENTITY,
                "GIT_AUTHOR_EMAIL": _EMAIL,
                "GIT_COMMITTER_NAME": _IDENTITY,
                "GIT_COMMITTER_EMAIL": _EMAIL,
            }
        )
        return env

    def run(
        self,
        args: Sequence[str],
        stdin: bytes | None = None,
        *,
        index: Path | None = None,
        check: bool = True,
    ) -> bytes:
        """`git <args>` in the work tree; stdout as bytes. A failure raises SnapshotError with git's words."""
        try:
            done = subprocess.run(
                [self.git, "-c", "core.hooksPath=/dev/null", *args],
                input=stdin if stdin is not None else b"",
                capture_output=True,
                cwd=self.work_tree,
                env=self.env(index),
                timeout=GIT_TIMEOUT_SECONDS,
                check=False,
            )
        except subprocess.TimeoutExpired as error:
            raise SnapshotError(f"git {args[0]} 超过 {GIT_TIMEOUT_SECONDS:g} 秒没有完成") from error
        except OSError as error:
            raise SnapshotError(f"无法运行 git: {error}") from error
        if check and done.returncode != 0:
            detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise SnapshotError(f"git {args[0]} 失败: {detail[-1] if detail else done.returncode}")
        return done.stdout


def nul_list(paths: Sequence[bytes]) -> bytes:
    return b"".join(path + b"\0" for path in paths)


def split_nul(output: bytes) -> list[bytes]:
    return [part for part in output.split(b"\0") if part]
