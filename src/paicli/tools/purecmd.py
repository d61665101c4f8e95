"""The few commands auto mode still runs unasked when no sandbox is available: they print facts about the
session or list the project, and read no file contents. Anything with shell syntax beyond plain words asks."""

from __future__ import annotations

import shlex

PURE_PROGRAMS = frozenset({"pwd", "date", "echo", "true", "false", "uname", "whoami", "id", "nproc", "ls"})
_SHELL_SYNTAX = frozenset(";&|<>$`(){}[]*?~!\\#\n\r'\"=")


def pure_command(command: str) -> bool:
    if any(char in _SHELL_SYNTAX for char in command):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if not words or words[0] not in PURE_PROGRAMS:
        return False
    return all(not word.startswith("/") and ".." not in word.split("/") for word in words[1:])
