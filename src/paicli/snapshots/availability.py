"""Whether a project can have workspace snapshots, answered without loading the snapshot machinery: a session
offers `revert_turn` by this answer when it starts, and builds the store at its first use
(cli/snapshot_seam.py)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from paicli.config import knobs

NO_GIT = "没有找到 git 程序，工作区快照已关闭（/undo、/restore 不可用）"
HOME_ROOT = "项目根目录是主目录或文件系统根目录，范围太大，不做工作区快照"
TURNED_OFF = f"{knobs.SNAPSHOTS.key}=off，工作区快照已关闭"


def find_git() -> str | None:
    return shutil.which("git")


def snapshot_root(project_root: Path, user_home: Path | None = None) -> tuple[Path, str] | str:
    """The project's real folder and the git program to snapshot it with, or why it cannot have snapshots."""
    git = find_git()
    if git is None:
        return NO_GIT
    real = Path(os.path.realpath(project_root))
    homes = {Path(os.path.realpath(user_home or Path.home()))}
    if real.parent == real or real in homes:
        return HOME_ROOT
    return real, git
