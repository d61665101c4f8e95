"""The article's freshness rule beyond the 30-day label: a fact that names a project file (a build file, a
config path) may be out of date once that file changed after the fact was last verified."""

from __future__ import annotations

import os
import re
from datetime import datetime, timezone
from pathlib import Path

MAX_PATHS = 3
_EXTENSIONS = (
    "gradle|kts|xml|json|ya?ml|toml|properties|ini|cfg|conf|env|lock|txt|md|py|js|ts|java|go|rs|sh|sql|mod"
)
_NAMED = "Dockerfile|Makefile|Jenkinsfile|Procfile|Gemfile|Pipfile|\\.env|\\.nvmrc|\\.python-version"
_FILE = re.compile(
    rf"(?<![\w./-])((?:~?/)?(?:[\w.-]+/)*(?:[\w-][\w.-]*\.(?:{_EXTENSIONS})|{_NAMED}))(?![\w-])",
    re.IGNORECASE,
)


def named_files(content: str) -> list[str]:
    """File paths a fact names, in order, at most MAX_PATHS."""
    found: list[str] = []
    for match in _FILE.finditer(content):
        path = match.group(1)
        if path not in found:
            found.append(path)
        if len(found) == MAX_PATHS:
            break
    return found


def changed_linked_file(content: str, last_verified_at: datetime, project_root: Path | None) -> str | None:
    """The first file named by the fact whose mtime is newer than its last verification, else None."""
    if project_root is None:
        return None
    verified = (
        last_verified_at if last_verified_at.tzinfo else last_verified_at.replace(tzinfo=timezone.utc)
    ).timestamp()
    for name in named_files(content):
        path = Path(os.path.expanduser(name))
        if not path.is_absolute():
            path = project_root / path
        try:
            if path.stat().st_mtime > verified:
                return name
        except (OSError, ValueError):
            continue
    return None
