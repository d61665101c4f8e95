"""Where mcp.json is read (the user's in the paicli home, the project's in .paicli/), and whether either exists:
a session with neither (the usual case) never loads the reader (mcp/config.py: its pydantic entry model)."""

from __future__ import annotations

import os
from pathlib import Path

USER_FILE = "mcp.json"
PROJECT_FILE = Path(".paicli") / USER_FILE


def mcp_files_present(home: Path, project_root: Path) -> bool:
    """False only when no file (nor a link) exists where `load_config` reads: it would find no server and
    report nothing. True hands the decision to `load_config` (trust, validation, notices)."""
    return os.path.lexists(home / USER_FILE) or os.path.lexists(project_root / PROJECT_FILE)
