"""Files that hold secrets stay out of the snapshot store: nothing under the paicli home may carry a key.

A snapshot must keep exact bytes, so such files cannot be stored redacted; they are left out (and named), and a
restore never touches them. Recognised: key files by name (`.env*`, `*.pem`, ssh keys, …) and, by content, the
configured API keys, `sk-…` keys, bearer tokens, PEM private keys and secrets named in prose (`密码是 …`). The
generic `name = value` rule of the ledger's redactor is not used here: it matches ordinary source such as
`api_key = os.environ["KEY"]`, the very files an undo is for.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

_KEY_FILE_NAMES = re.compile(
    rb"(?i)(?:\.env(?:\..*)?|.*\.(?:pem|key|p12|pfx|keystore)|id_(?:rsa|dsa|ecdsa|ed25519)(?:\..*)?|\.netrc|\.pgpass)"
)
_CONTENT = (
    rb"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{16,}",
    rb"(?i:bearer)\s+[A-Za-z0-9._~+/=-]{8,}",
    rb"-----BEGIN [A-Z ]*PRIVATE KEY-----",
    "(?:密码|密钥|秘钥|口令|令牌|私钥)\\s*(?:是|为|:|：|=)\\s*[^\\s，。；、,;'\"）)]{4,}".encode(),
)
_HINTS = (
    b"sk-",
    b"bearer",
    b"private key",
    *(word.encode() for word in ("密码", "密钥", "秘钥", "口令", "令牌", "私钥")),
)
_MIN_SECRET = 8
_CHUNK = 1 << 20


class SecretScan:
    def __init__(self, secrets: Iterable[str] = ()) -> None:
        exact = sorted({s.strip() for s in secrets if len(s.strip()) >= _MIN_SECRET}, key=len, reverse=True)
        parts = [re.escape(secret.encode("utf-8", "surrogateescape")) for secret in exact]
        self._pattern = re.compile(b"|".join([*parts, *_CONTENT]))
        self._exact = [secret.encode("utf-8", "surrogateescape") for secret in exact]

    def _may_hold(self, data: bytes) -> bool:
        """A literal every match contains: C-speed searches keep the regex off almost every file."""
        lowered = data.lower()
        return any(hint in lowered for hint in _HINTS) or any(secret in data for secret in self._exact)

    def reason(self, path: bytes, full: bytes) -> str | None:
        """Why `path` (its real location `full`) must not be stored, or None."""
        if _KEY_FILE_NAMES.fullmatch(os.path.basename(path)):
            return "密钥文件"
        try:
            with open(full, "rb") as handle:
                tail = b""
                while chunk := handle.read(_CHUNK):
                    if not tail and b"\0" in chunk[:8192]:
                        return None  # binary (as git decides it): keys and tokens are text
                    data = tail + chunk
                    if self._may_hold(data) and self._pattern.search(data):
                        return "内容含密钥"
                    tail = chunk[-256:]  # a secret split across two reads
        except OSError:
            return None  # unreadable files are sorted out by the caller
        return None
