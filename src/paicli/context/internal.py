"""Internal user messages (spec 2.5): user-role entries the program wrote, not the human.

Skill bodies injected after load_skill carry `[PAICLI_SKILL_INJECTION]` on their first line; RunawayGuard
reminders start with `[runaway guard]`; notes about files restored outside the conversation start with
`[PAICLI_WORKSPACE_NOTE]`. None counts as a user turn, and none is summarised.
"""

from __future__ import annotations

import re

from paicli.llm.messages import Message

SKILL_INJECTION_MARKER = "[PAICLI_SKILL_INJECTION]"
RUNAWAY_GUARD_PREFIX = "[runaway guard]"
WORKSPACE_NOTE_MARKER = "[PAICLI_WORKSPACE_NOTE]"  # files restored outside the conversation (issue 43)
# The name stops before an optional `（来源：…）` (the source is not part of the name).
_SKILL_HEADING = re.compile(r"(?m)^##\s*已加载 Skill[：:]\s*(.+?)\s*(?:[（(]来源[：:][^）)]*[）)])?\s*$")


def is_skill_injection(message: Message) -> bool:
    if message.role != "user" or not message.content:
        return False
    return SKILL_INJECTION_MARKER in message.content.split("\n", 1)[0]


def is_internal(message: Message) -> bool:
    if message.role != "user" or not message.content:
        return False
    return (
        is_skill_injection(message)
        or message.content.startswith(RUNAWAY_GUARD_PREFIX)
        or message.content.startswith(WORKSPACE_NOTE_MARKER)
    )


def is_real_user_turn(message: Message) -> bool:
    return message.role == "user" and not is_internal(message)


def skill_names(message: Message) -> list[str]:
    """Names of the skills an injection message carries, in order, without repeats."""
    if not is_skill_injection(message):
        return []
    names: list[str] = []
    for match in _SKILL_HEADING.finditer(message.content or ""):
        name = match.group(1)
        if name and name not in names:
            names.append(name)
    return names
