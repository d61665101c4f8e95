"""Ctrl+V at the prompt: a clipboard image saved under the paicli home and typed in as `@image:<abs path> `
(spec 10.1). Read with `wl-paste` in a Wayland session and `xclip` under X11, the two tools Linux desktops
ship for it; without a graphical session or either tool there is no clipboard image to read, and the line
says which tool to install."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from paicli.fsperm import create_private_file

TIMEOUT = 5.0
_PNG = "image/png"


@dataclass(frozen=True)
class Pasted:
    path: Path | None  # the saved image, or None with `message` saying why not
    message: str = ""

    @property
    def typed(self) -> str:
        return f"@image:{self.path} " if self.path is not None else ""


def _commands(env: Mapping[str, str]) -> tuple[list[str], list[str]] | str:
    """(list the clipboard's types, read it as PNG), or why there is no way to read it."""
    search = env.get("PATH") or ""
    if env.get("WAYLAND_DISPLAY"):
        tool = shutil.which("wl-paste", path=search)
        if tool is None:
            return "📋 读取剪贴板图片需要 wl-paste（Wayland，安装 wl-clipboard）"
        return [tool, "--list-types"], [tool, "--no-newline", "--type", _PNG]
    if env.get("DISPLAY"):
        tool = shutil.which("xclip", path=search)
        if tool is None:
            return "📋 读取剪贴板图片需要 xclip（X11）"
        selection = ["-selection", "clipboard"]
        return [tool, *selection, "-t", "TARGETS", "-o"], [tool, *selection, "-t", _PNG, "-o"]
    return "📋 没有图形会话（DISPLAY / WAYLAND_DISPLAY 都未设置），读不到剪贴板图片；可以用 @image:<路径> 引用图片文件"


def paste_image(home: Path, env: Mapping[str, str]) -> Pasted:
    """`env`: the search path and graphical session the clipboard tools are found and run with."""
    commands = _commands(env)
    if isinstance(commands, str):
        return Pasted(None, commands)
    list_types, read = commands
    try:
        types = subprocess.run(list_types, capture_output=True, timeout=TIMEOUT, check=False)
        if _PNG not in types.stdout.decode("utf-8", "replace").split():
            return Pasted(None, "📋 剪贴板里没有图片")
        image = subprocess.run(read, capture_output=True, timeout=TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return Pasted(None, f"📋 读取剪贴板失败: {error}")
    if image.returncode != 0 or not image.stdout:
        return Pasted(None, "📋 剪贴板里没有图片")
    path = home / "images" / f"clipboard-{time.strftime('%Y%m%d-%H%M%S')}-{time.time_ns() % 10**9:09d}.png"
    create_private_file(path)  # 0600 (folder 0700) before a byte is written
    path.write_bytes(image.stdout)
    return Pasted(path.resolve())
