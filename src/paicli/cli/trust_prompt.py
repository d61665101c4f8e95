"""Start-up trust check of the project folder: ask once in the REPL, one stderr line for -p and piped runs."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from pathlib import Path

from paicli.config.trust import (
    Brought,
    ProjectTrust,
    TrustStore,
    decide,
    describe_brought,
    project_brings,
    untrusted_line,
)
from paicli.termsafe import show_one_line

QUESTION = "是否信任此文件夹并启用这些配置？[y/N] "
LAUNCH_CHARS = 200  # a longer command line is clipped on screen (the file itself says the rest)


def _ask_stdin(question: str) -> str | None:
    sys.stderr.write(question)
    sys.stderr.flush()
    line = sys.stdin.readline()
    return line if line else None


def _warn_stderr(line: str) -> None:
    sys.stderr.write(line + "\n")


def _is_home(folder: Path, paicli_home: Path) -> bool:
    try:
        return folder.resolve() == paicli_home.resolve()
    except (OSError, RuntimeError):
        return False


def project_trusted(
    root: Path,
    paicli_home: Path,
    *,
    flag: bool,
    interactive: bool,
    ask: Callable[[str], str | None] = _ask_stdin,
    warn: Callable[[str], None] | None = None,
) -> bool:
    """Whether the folder's skills, prompt overrides and MCP servers apply at start (see `project_trust`)."""
    return project_trust(root, paicli_home, flag=flag, interactive=interactive, ask=ask, warn=warn).trusted


def project_trust(
    root: Path,
    paicli_home: Path,
    *,
    flag: bool,
    interactive: bool,
    ask: Callable[[str], str | None] = _ask_stdin,
    warn: Callable[[str], None] | None = None,
    notify: Callable[[str], None] | None = None,
) -> ProjectTrust:
    """The session's trust in the folder: asked or recorded now; a folder that brings nothing yet is looked
    at again when configuration appears in it (`ProjectTrust`), and `notify` hears when that happens."""
    warn = warn or _warn_stderr
    if _is_home(root / ".paicli", paicli_home):
        return ProjectTrust(root, True)  # started in the home folder: that .paicli is the user's own
    brought = project_brings(root)
    store = TrustStore(paicli_home)
    recorded = store.recorded(root) if brought else None
    decision = decide(bool(brought), recorded, flag, interactive)
    if decision == "ask":
        return ProjectTrust(root, _asked(root, brought, store, ask, warn))
    if decision == "untrusted":
        warn(untrusted_line(brought, refused=recorded is False))
        return ProjectTrust(root, False)
    if flag and interactive and brought and recorded is not True:
        with contextlib.suppress(OSError):
            store.record(root, True)
    return ProjectTrust(root, True, watch=not brought and not flag, store=store, notify=notify)


def _asked(
    root: Path,
    brought: list[Brought],
    store: TrustStore,
    ask: Callable[[str], str | None],
    warn: Callable[[str], None],
) -> bool:
    intro = [
        f"📁 文件夹 {show_one_line(str(root))} 带有会改变提示词或运行代码的项目配置：",
        *describe_brought(brought),
        *_launch_lines(root),
    ]
    warn("\n".join(intro))
    answer = ask(QUESTION)
    trusted = answer is not None and answer.strip().lower() in ("y", "yes", "是")
    try:
        store.record(root, trusted)
    except OSError as exc:
        warn(f"paicli: 无法记录信任选择（{exc.strerror or exc}），下次启动会再问")
    if not trusted:
        warn("已忽略这些项目配置；以后要启用，请用 paicli --trust-project 启动")
    return trusted


def _launch_lines(root: Path) -> list[str]:
    """The command each of the project's MCP servers would run once trusted, written out (control
    characters visible, one line each, clipped), so `y` is answered knowing what starts."""
    from paicli.mcp.config import project_launches  # only when asking: what a trusted folder would start

    launches = project_launches(root)
    if not launches:
        return []
    lines = ["  信任后会启动的 MCP 服务器："]
    for name, what in launches:
        shown = show_one_line(f"{name}: {what}")
        lines.append("    " + (shown if len(shown) <= LAUNCH_CHARS else shown[: LAUNCH_CHARS - 1] + "…"))
    return lines
