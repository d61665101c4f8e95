"""After a sandboxed command: move out the protected entries it created, and say what the sandbox refused."""

from __future__ import annotations

import os
from pathlib import Path

from paicli.tools.sandbox.aftercheck import Removed, new_protected, quarantine
from paicli.tools.sandbox.denials import FenceView, denial_line, explain, may_show_denials, real_rules
from paicli.tools.sandbox.launch import Fence


def after_command(fence: Fence, output: str, cwd: Path) -> tuple[list[str], bool]:
    """The lines to put first in the command's result, and whether the sandbox refused something."""
    walk = fence.policy.walk
    removed = quarantine(walk.root, new_protected(walk), fence.paicli_home)
    denials = explain(output, _view(fence, cwd)) if may_show_denials(output) else []
    notes = [denial_line(denials)] if denials else []
    if removed:
        notes.append(removed_line(removed))
    return notes, bool(denials or removed)


def _view(fence: Fence, cwd: Path) -> FenceView:
    exposed = None
    if fence.plan is not None:
        exposed = tuple(path for kind, path in fence.plan if kind == "bind")
    rules = real_rules(fence.policy.rules)
    return FenceView(fence.policy.walk.root, os.path.realpath(cwd), fence.home, rules, exposed)


def removed_line(removed: list[Removed]) -> str:
    moved = [item for item in removed if item.moved_to is not None]
    deleted = [item.relative for item in removed if item.moved_to is None]
    parts = []
    if moved:
        first = moved[0]
        folder = str(first.moved_to)[: -len(first.relative)].rstrip("/")
        names = "、".join(item.relative for item in moved)
        parts.append(f"已移到隔离区 {folder}：{names}")
    if deleted:
        parts.append(f"无法移动，已删除：{'、'.join(deleted)}")
    return (
        "🛡️ 命令沙箱：这条命令新建了受保护的条目（git 目录、.env*、.envrc、.gitmodules、PAI*.md、.paicli），"
        f"沙箱命令不能留下它们，{'；'.join(parts)}。"
    )
