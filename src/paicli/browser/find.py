"""Which Chromium paicli drives: the one a setting names, else the first known name on PATH."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping

from paicli.config import knobs_browser as knobs

# Debian/Ubuntu, then Google's builds; every one of them speaks the DevTools protocol Playwright needs.
KNOWN_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
MISSING = f"❌ 没有找到 Chromium：请安装（如 apt-get install chromium），或用 {knobs.BROWSER.key} 指定浏览器程序的路径。"


def find_browser(configured: str | None, environ: Mapping[str, str]) -> str | None:
    """The executable's path, or None. `configured`: the setting (a path or a program name)."""
    search_path = environ.get("PATH", os.defpath)
    if configured:
        found = shutil.which(configured, path=search_path)
        return found if found is not None else None
    for name in KNOWN_NAMES:
        found = shutil.which(name, path=search_path)
        if found is not None:
            return found
    return None
