"""Secret scrubbing for everything written to disk (ledger, audit log): API keys never reach a file.

Tool-call arguments are JSON text: they are decoded, redacted value by value and re-encoded, so what is
stored stays valid JSON (a provider rejects a resumed request whose arguments do not parse).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Mapping
from typing import Any

from paicli.textsafe import encodable

REDACTED = "[REDACTED]"
ARGUMENT_KEYS = frozenset({"arguments"})
_SECRET_KEY = re.compile(
    r"api[_-]?key|apikey|token(?![a-z])|secret|password|passwd|authorization|access[_-]?key|private[_-]?key|"
    r"credential",
    re.IGNORECASE,
)
# A name that says "secret", an optional closing quote, `=` or `:`, then the value (6+ characters).
_ASSIGNMENT = re.compile(
    r"(?i)(?<![A-Za-z0-9])([A-Za-z0-9_.-]*(?:api[_-]?key|apikey|secret|passw(?:or)?d|access[_-]?key|"
    r"private[_-]?key|credential|token(?![A-Za-z]))[A-Za-z0-9_.-]*)"
    r"(\\?['\"]?\s*[=:]\s*)(\\?['\"]?)[^\s'\"]{6,}"
)
# The same in Chinese prose: `数据库密码是 hunter2`, `令牌：abcd1234`.
_NAMED_IN_PROSE = re.compile(
    r"((?:密码|密钥|秘钥|口令|令牌|私钥)\s*(?:是|为|:|：|=)\s*)[^\s，。；、,;'\"）)]{4,}"
)
# (pattern, replacement, lower-case substrings of which one must be present for the pattern to be tried)
_PATTERNS: tuple[tuple[re.Pattern[str], str, tuple[str, ...]], ...] = (
    (re.compile(r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{16,}"), "sk-" + REDACTED, ("sk-",)),
    (re.compile(r"\b(Bearer)\s+[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE), r"\1 " + REDACTED, ("bearer",)),
    (
        _ASSIGNMENT,
        r"\1\2\3" + REDACTED,
        ("key", "secret", "passw", "passwd", "token", "credential"),
    ),
    (_NAMED_IN_PROSE, r"\1" + REDACTED, ("密码", "密钥", "秘钥", "口令", "令牌", "私钥")),
)
# A configured key shorter than this is not matched exactly (it would mask unrelated text); one shorter
# than _PLAIN_MATCH is matched only as a whole word.
_MIN_EXACT = 8
_PLAIN_MATCH = 20


def mask_secret(text: str, secret: str, replacement: str = REDACTED) -> str:
    """Mask one configured secret in `text` without touching unrelated characters: a long key anywhere, a
    shorter one only as a whole word, one too short to be a real key not at all."""
    secret = secret.strip()
    if len(secret) >= _PLAIN_MATCH:
        return text.replace(secret, replacement)
    if len(secret) >= _MIN_EXACT:
        return re.sub(r"(?<![A-Za-z0-9])" + re.escape(secret) + r"(?![A-Za-z0-9])", replacement, text)
    return text


class Redactor:
    """Replaces the configured secrets exactly, plus anything shaped like a key, a bearer token or
    `some_secret_name = value`. String values under keys named like api_key/token/secret/password are
    dropped entirely (numbers such as `beforeTokens` stay)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        unique = {s for s in secrets if s and len(s.strip()) >= _MIN_EXACT}
        ordered = sorted(unique, key=len, reverse=True)
        self._plain = [s for s in ordered if len(s) >= _PLAIN_MATCH]
        self._worded = [
            re.compile(r"(?<![A-Za-z0-9])" + re.escape(s) + r"(?![A-Za-z0-9])")
            for s in ordered
            if len(s) < _PLAIN_MATCH
        ]

    def text(self, value: str) -> str:
        value = encodable(value)
        for secret in self._plain:
            if secret in value:
                value = value.replace(secret, REDACTED)
        for pattern in self._worded:
            value = pattern.sub(REDACTED, value)
        lowered = value.lower()
        for pattern, replacement, hints in _PATTERNS:
            if any(hint in lowered for hint in hints):
                value = pattern.sub(replacement, value)
        return value

    def arguments(self, raw: str) -> str:
        """Redact a tool call's JSON arguments inside the decoded values; the result is always valid JSON."""
        if not raw.strip():
            return "{}"
        try:
            decoded = json.loads(raw)
        except ValueError:
            # Not JSON (a cut-off stream): keep the redacted text as a JSON string value so it still parses.
            return json.dumps({"_unparsed_arguments": self.text(raw)}, ensure_ascii=False)
        redacted = self.value(decoded)
        return raw if redacted == decoded else json.dumps(redacted, ensure_ascii=False)

    def value(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, str):
            if key is not None and _SECRET_KEY.search(key) and value:
                return REDACTED
            if key in ARGUMENT_KEYS:
                return self.arguments(value)
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.text(str(k)): self.value(v, str(k)) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(item) for item in value]
        return value


class RedactingFilter(logging.Filter):
    """Scrubs log records (message and traceback) before a handler writes them to a file."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self._redactor = Redactor(secrets)

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self._redactor.text(record.getMessage())
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self._redactor.text(record.exc_text)
        return True
