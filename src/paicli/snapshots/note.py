"""The note the model gets when files changed behind its back (`/restore`, `/undo`, `/rewind`): one short
internal user message in its next request, naming what happened and which files now differ (issue 43).

The text lives in `prompts/session/workspace-note.md`; its first line carries the workspace-note marker of
context/internal.py, which makes it internal: never a user turn, never summarised, never exported as the user's
words.
"""

from __future__ import annotations

from collections.abc import Sequence

from paicli.context.internal import WORKSPACE_NOTE_MARKER
from paicli.prompt.repository import load_bundled
from paicli.snapshots.model import Change, shown_path

NOTE_FILE = "session/workspace-note.md"
MAX_NOTED_FILES = 20
_STATES = {"A": "又回来了", "D": "已删除", "M": "内容已改回", "T": "内容已改回"}
_KEPT_STATES = {"A": "已删除", "D": "是后来新建的", "M": "内容已改过", "T": "内容已改过"}


def file_lines(changes: Sequence[Change], *, kept: bool = False) -> list[str]:
    """One line per file. `kept`: the files were left as they are while the conversation went back, so a
    change is read from the earlier snapshot to now (a file the snapshot lacks was made later)."""
    states = _KEPT_STATES if kept else _STATES
    lines = [
        f"- {shown_path(change.path)}（{states[change.status]}）" for change in changes[:MAX_NOTED_FILES]
    ]
    if len(changes) > MAX_NOTED_FILES:
        lines.append(f"- …另有 {len(changes) - MAX_NOTED_FILES} 个文件")
    return lines


def workspace_note(happened: Sequence[tuple[str, Sequence[str]]]) -> str:
    """One internal message for everything that happened since the model last looked (each: what, and the
    file lines), or "" when no file differs. A file named twice keeps its last line."""
    whats = [what for what, lines in happened if lines]
    files: dict[str, str] = {}
    for _, lines in happened:
        for line in lines:
            files.pop(line.split("（", 1)[0], None)
            files[line.split("（", 1)[0]] = line
    if not whats:
        return ""
    template = load_bundled(NOTE_FILE) or f"{WORKSPACE_NOTE_MARKER} {{what}}：\n{{files}}\n"
    return (
        template.replace("{what}", "；然后".join(whats)).replace("{files}", "\n".join(files.values())).strip()
    )
