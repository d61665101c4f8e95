"""Where hooks are configured, and whether any file is there at all: a session with no hooks.json (the usual
case) never loads the hooks machinery (tools/hooks.py: its value types, the runner of hook commands)."""

from __future__ import annotations

import os
from pathlib import Path

HOOKS_FILE = "hooks.json"
PROJECT_HOOKS = Path(".paicli") / HOOKS_FILE


def hooks_files_present(home: Path, project_root: Path, trusted: bool) -> bool:
    """False only when no file (nor a link) exists where `load_hooks` reads: it would find nothing to load,
    report no problem and configure no hook. True hands the decision to `load_hooks`."""
    if os.path.lexists(home / HOOKS_FILE):
        return True
    return trusted and os.path.lexists(project_root / PROJECT_HOOKS)
