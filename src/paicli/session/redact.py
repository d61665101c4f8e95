"""Secret scrubbing for everything written to the ledger: API keys never reach disk."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "[REDACTED]"
_SECRET_KEY = re.compile(r"api[_-]?key|apikey|token|secret|password|passwd|authorization", re.IGNORECASE)
# (pattern, replacement, lower-case substrings of which one must be present for the pattern to be tried)
_PATTERNS: tuple[tuple[re.Pattern[str], str, tuple[str, ...]], ...] = (
    (re.compile(r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{16,}"), "sk-" + REDACTED, ("sk-",)),
    (re.compile(r"\b(Bearer)\s+[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE), r"\1 " + REDACTED, ("bearer",)),
    (
        re.compile(
            r"(?i)\b([A-Z0-9_]*(?:API_KEY|APIKEY|SECRET|PASSWORD|PASSWD|ACCESS_TOKEN|AUTH_TOKEN))"
            r"(\s*[=:]\s*)(['\"]?)[^\s'\"]{6,}"
        ),
        r"\1\2\3" + REDACTED,
        ("api_key", "apikey", "secret", "password", "passwd", "access_token", "auth_token"),
    ),
)
_MIN_EXACT = 6


class Redactor:
    """Replaces the configured secrets exactly, plus anything shaped like a key, a bearer token or
    `SOME_API_KEY=value`. String values under keys named like api_key/token/secret/password are dropped
    entirely (numbers such as `beforeTokens` stay)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        unique = {s for s in secrets if s and len(s) >= _MIN_EXACT}
        self._secrets = sorted(unique, key=len, reverse=True)

    def text(self, value: str) -> str:
        for secret in self._secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        lowered = value.lower()
        for pattern, replacement, hints in _PATTERNS:
            if any(hint in lowered for hint in hints):
                value = pattern.sub(replacement, value)
        return value

    def value(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, str):
            if key is not None and _SECRET_KEY.search(key) and value:
                return REDACTED
            return self.text(value)
        if isinstance(value, Mapping):
            return {str(k): self.value(v, str(k)) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(item) for item in value]
        return value
