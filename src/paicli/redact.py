"""Secret scrubbing for everything written to disk (ledger, audit log, /export, offload files, log files;
`looks_like_secret` guards memory writes): API keys never reach a file.

The shapes are hand-written, anchored on their literal prefixes and gated by cheap substring hints, so a
ledger line costs one lower-casing plus the few patterns whose hint it contains, all linear-time
(`python -m evals.bench_redact`). detect-secrets was weighed: its plugins import `requests` (~90 ms at
start) and scan line by line; tests/security/test_redaction_sinks.py holds the shapes to the same coverage.

Configured keys are masked as they are and in their cheap encodings (hex, URL-encoding, base64 at any
alignment inside a longer blob: `encoded_forms`).

Tool-call arguments are JSON text: they are decoded, redacted value by value and re-encoded, so what is
stored stays valid JSON (a provider rejects a resumed request whose arguments do not parse).
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import quote, quote_plus

from paicli.lazyre import Lazy, lazy_pattern
from paicli.textsafe import encodable

REDACTED = "[REDACTED]"
ARGUMENT_KEYS = frozenset({"arguments"})
_SECRET_KEY = lazy_pattern(
    r"api[_-]?key|apikey|token(?![a-z])|secret|password|passwd|authorization|access[_-]?key|private[_-]?key|"
    r"credential|creds(?![a-z])|pass[_-]?phrase|key[_-]?data|(?<![a-z])auth$",
    re.IGNORECASE,
)
# A name that says "secret", an optional closing quote, `=` or `:`, then the value (6+ characters). Matched
# from the word that says so (the rest of the name before it stays as it is), which keeps the scan linear.
_ASSIGNMENT = lazy_pattern(
    r"(?i)((?:api[_-]?key|apikey|secret|passw(?:or)?d|access[_-]?key|private[_-]?key|credential|creds|"
    r"token(?![A-Za-z]))[A-Za-z0-9_.-]*)"
    r"(\\?['\"]?\s*[=:]\s*)(\\?['\"]?)[^\s'\"]{6,}"
)
# `DB_PASS=…`, `MYSQL_PWD=…`, `PASS=…`: shorter names, any value of 3+ characters.
_SHORT_NAME = lazy_pattern(r"(?i)((?<![A-Za-z0-9])(?:pass(?:w(?:or)?d)?|pwd|pw)\s*=\s*)(['\"]?)[^\s'\"]{3,}")
# The same in Chinese prose: `数据库密码是 hunter2`, `令牌：abcd1234`.
_NAMED_IN_PROSE = lazy_pattern(
    r"((?:密码|密钥|秘钥|口令|令牌|私钥)\s*(?:是|为|:|：|=)\s*)[^\s，。；、,;'\"）)]{4,}"
)
# A PEM private key block, header to footer (the body is consumed without nested repetition).
_PEM = lazy_pattern(
    r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----[^-]*(?:-(?!----)[^-]*)*(?:-----END[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----)?"
)
# Command-line option forms: `--password pw`, `--token=x`, `curl -u user:pw`, `mysql -p<pw>`, `sshpass -p pw`.
_OPTION = lazy_pattern(
    r"(?i)(?<![A-Za-z0-9_-])(--?(?:password|passwd|passphrase|pass|pwd|token|secret|api[-_]?key|auth[-_]token|"
    r"access[-_]token|client[-_]secret)(?:[ \t]+|=))(?!-)['\"]?[^\s'\"]+"
)
_USER_OPTION = lazy_pattern(r"(?<![A-Za-z0-9_-])(-u[ \t]*|--user[ \t=][ \t]*)(['\"]?[^\s:'\"]+):[^\s'\"]+")
_MYSQL_P = lazy_pattern(
    r"(\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n|;&]*?[ \t]-p)[^\s-][^\s]*"
)
_SSHPASS = lazy_pattern(r"(\bsshpass[ \t]+-p[ \t]*)[^\s]+")
# `.netrc` lines: `machine host login user password pw`.
_NETRC = lazy_pattern(
    r"(?i)(\b(?:machine|login|default)\s+\S+\s+(?:login\s+\S+\s+)?(?:password|passwd)\s+)\S+"
)
# Credentials in a URL (`https://user:tok@host`, a git remote with a token as the user name).
_URL_USERINFO = lazy_pattern(r"(://)([^\s/:@]*):([^\s/@]+)@")
_URL_TOKEN = lazy_pattern(r"(://)[^\s/:@]{20,}@")
_AUTHORIZATION = lazy_pattern(
    r"(?i)(authorization\s*[:=]\s*(?:basic|digest|token)?\s*)[A-Za-z0-9+/=._~-]{8,}"
)
# A passphrase runs to the end of its line (it may hold blanks): `passphrase: two words`, `GPG_PASSPHRASE=…`.
_PASSPHRASE = lazy_pattern(
    r"(?i)(pass[-_ ]?phrase[A-Za-z0-9_.-]*\\?['\"]?[ \t]*[=:][ \t]*)(\\?['\"]?)[^\n'\"\\]{4,}"
)
# A field named like a key holding base64 key material: kubeconfig `client-key-data`, a Secret's `tls.key`,
# connection strings' `AccountKey=…` / `SharedAccessKey=…`. Matched from the literal `key` (cheap to find); the
# name before it is judged by `_key_field`, which keeps the match linear whatever precedes it.
_KEY_FIELD = lazy_pattern(r"(?i)(key([-_]data)?['\"]?[ \t]*[=:][ \t]*['\"]?)[A-Za-z0-9+/_-]{16,}={0,2}")
_NAME_TAIL = lazy_pattern(r"[A-Za-z0-9_.-]{0,32}\Z")
_KEY_OWNERS = ("account", "storage", "sharedaccess", "primary", "secondary", "master", "service")


def _key_field(match: re.Match[str]) -> str:
    start = match.start()
    tail = _NAME_TAIL().search(match.string, max(0, start - 32), start)
    name = (tail.group() if tail else "").lower()
    owner = name.replace("_", "").replace("-", "")
    if match.group(2) or name.endswith(".") or owner.endswith(_KEY_OWNERS):
        return match.group(1) + REDACTED
    return match.group(0)


# A SAS URL's signature: `…&sig=…`.
_SAS_SIGNATURE = lazy_pattern(r"(?i)([?&;]sig=)[A-Za-z0-9%+/_-]{16,}(?:=|%3d){0,2}")
# A PuTTY key file's private block: the base64 lines after `Private-Lines: N` (real or `\n`-escaped breaks).
_PUTTY_PRIVATE = lazy_pattern(r"(Private-Lines:[ \t]*\d+)((?:(?:\r?\n|(?:\\r)?\\n)[A-Za-z0-9+/=]+)+)")
_LINE_BREAK = lazy_pattern(r"\r?\n|(?:\\r)?\\n")


def _putty_private(match: re.Match[str]) -> str:
    """The block's lines are masked; a last "line" that is only the start of the next field (`Private-MAC:`)
    is given back as it was (the pattern has no lookahead, so it never backtracks)."""
    block = match.group(2)
    following = match.string[match.end() : match.end() + 1]
    kept = ""
    if following and following not in "\r\n\\'\"":
        breaks = list(_LINE_BREAK().finditer(block))
        kept = block[breaks[-1].start() :]
    return f"{match.group(1)} {REDACTED}{kept}"


def _word_start(prefix: str) -> Callable[[re.Match[str]], str]:
    """A replacement for a pattern that starts with a literal (found fast): masked only when the literal
    starts a word (a word-boundary test in front of the literal would make every position a candidate)."""

    def replace(match: re.Match[str]) -> str:
        start = match.start()
        if start and (match.string[start - 1].isalnum() or match.string[start - 1] == "_"):
            return match.group(0)
        return prefix + REDACTED

    return replace


# Docker's `"auth": "<base64 of user:secret>"` (config.json, DOCKER_AUTH_CONFIG): masked when the value decodes
# to `name:secret`, so an `auth` field holding an ordinary word stays.
_DOCKER_AUTH = lazy_pattern(
    r"(?i)((?<![A-Za-z0-9_-])['\"]?auth['\"]?[ \t]*[:=][ \t]*['\"]?)([A-Za-z0-9+/]{8,}={0,2})"
)


def _docker_auth(match: re.Match[str]) -> str:
    try:
        decoded = base64.b64decode(match.group(2) + "=" * (-len(match.group(2)) % 4), validate=True)
    except (ValueError, binascii.Error):
        return match.group(0)
    user, colon, secret = decoded.partition(b":")
    if colon and secret and user.isascii() and all(32 < byte < 127 for byte in user):
        return match.group(1) + REDACTED
    return match.group(0)


Replacement = str | Callable[[re.Match[str]], str]
# (pattern, replacement, lower-case substrings of which one must be present for the pattern to be tried)
_PATTERNS: tuple[tuple[Lazy, Replacement, tuple[str, ...]], ...] = (
    (_PEM, "-----" + REDACTED + " PRIVATE KEY-----", ("private key",)),
    (lazy_pattern(r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{16,}"), "sk-" + REDACTED, ("sk-",)),
    (lazy_pattern(r"\b(Bearer)\s+[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE), r"\1 " + REDACTED, ("bearer",)),
    (lazy_pattern(r"\b(gh[pousr]_)[A-Za-z0-9]{20,}"), r"\1" + REDACTED, ("gh",)),
    (lazy_pattern(r"\bgithub_pat_[A-Za-z0-9_]{20,}"), "github_pat_" + REDACTED, ("github_pat_",)),
    (lazy_pattern(r"\bglpat-[A-Za-z0-9_-]{20,}"), "glpat-" + REDACTED, ("glpat-",)),
    # Slack: bot/user/refresh tokens and app-level tokens (`xapp-1-…`)
    (lazy_pattern(r"\b(xox[abposre]-|xapp-\d+-)[A-Za-z0-9-]{10,}"), r"\1" + REDACTED, ("xox", "xapp-")),
    (lazy_pattern(r"(hooks\.slack\.com/services/)[A-Za-z0-9/_-]{10,}"), r"\1" + REDACTED, ("hooks.slack",)),
    (
        lazy_pattern(r"\b((?:sk|rk|pk)_(?:live|test)_)[A-Za-z0-9]{10,}"),
        r"\1" + REDACTED,
        ("_live_", "_test_"),
    ),
    (lazy_pattern(r"\bAIza[0-9A-Za-z_-]{30,}"), "AIza" + REDACTED, ("aiza",)),
    (
        lazy_pattern(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
        "AKIA" + REDACTED,
        ("akia", "asia", "abia", "acca"),
    ),
    (
        lazy_pattern(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
        "eyJ" + REDACTED,
        ("eyj",),
    ),
    (lazy_pattern(r"\bnpm_[A-Za-z0-9]{36}\b"), "npm_" + REDACTED, ("npm_",)),
    (lazy_pattern(r"\bpypi-AgE[A-Za-z0-9_-]{50,}"), "pypi-" + REDACTED, ("pypi-",)),
    (lazy_pattern(r"\bhf_[A-Za-z0-9]{30,}\b"), "hf_" + REDACTED, ("hf_",)),
    (lazy_pattern(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"), "SG." + REDACTED, ("sg.",)),
    # Vendor tokens that announce themselves by a prefix: Docker Hub (`dckr_pat_`, `dckr_oat_`), Shopify
    # (`shpat_`, `shpss_`, `shpca_`, `shppa_`), DigitalOcean (`dop_v1_`, `doo_v1_`, `dor_v1_`), Databricks
    # (`dapi` + hex), Mailgun (`key-` + 32), Atlassian (`ATATT…`, `ATCTT…`, Bitbucket `ATBB…`), age secret keys.
    (lazy_pattern(r"\b(dckr_(?:pat|oat)_)[A-Za-z0-9_-]{16,}"), r"\1" + REDACTED, ("dckr_",)),
    (lazy_pattern(r"\b(shp(?:at|ss|ca|pa)_)[A-Za-z0-9]{16,}"), r"\1" + REDACTED, ("shp",)),
    (lazy_pattern(r"\b(do[opr]_v1_)[A-Za-z0-9]{20,}"), r"\1" + REDACTED, ("_v1_",)),
    (lazy_pattern(r"(?i)\b(dapi)[a-f0-9]{32}(?:-\d+)?\b"), r"\1" + REDACTED, ("dapi",)),
    (lazy_pattern(r"key-[A-Za-z0-9]{32}(?![A-Za-z0-9_])"), _word_start("key-"), ("key-",)),
    (
        lazy_pattern(r"\b(AT(?:ATT|CTT|BB))[A-Za-z0-9_=+/-]{20,}"),
        r"\1" + REDACTED,
        ("atatt", "atctt", "atbb"),
    ),
    (lazy_pattern(r"(AGE-SECRET-KEY-1)[0-9A-Z]{20,}"), r"\1" + REDACTED, ("secret",)),
    # A Telegram bot token: the bot's number, `:`, then 35 characters starting with `AA`.
    (lazy_pattern(r"(?<![0-9])(\d{5,12}:AA)[A-Za-z0-9_-]{30,}"), r"\1" + REDACTED, (":aa",)),
    (_PUTTY_PRIVATE, _putty_private, ("private-lines",)),
    (_KEY_FIELD, _key_field, ("key",)),
    (_SAS_SIGNATURE, r"\1" + REDACTED, ("sig=",)),
    (_DOCKER_AUTH, _docker_auth, ("auth",)),
    (_PASSPHRASE, r"\1\2" + REDACTED, ("pass",)),
    (_URL_USERINFO, r"\1\2:" + REDACTED + "@", ("://",)),
    (_URL_TOKEN, r"\1" + REDACTED + "@", ("://",)),
    (_AUTHORIZATION, r"\1" + REDACTED, ("authorization",)),
    (_USER_OPTION, r"\1\2:" + REDACTED, ("-u", "--user")),
    (_MYSQL_P, r"\1" + REDACTED, ("mysql", "mariadb")),
    (_SSHPASS, r"\1" + REDACTED, ("sshpass",)),
    (_NETRC, r"\1" + REDACTED, ("machine", "login", "default")),
    (
        _OPTION,
        r"\1" + REDACTED,
        ("-pass", "-pwd", "-token", "-secret", "-api", "-auth", "-access", "-client"),
    ),
    (
        _ASSIGNMENT,
        r"\1\2\3" + REDACTED,
        ("key", "secret", "passw", "token", "cred"),
    ),
    (_SHORT_NAME, r"\1\2" + REDACTED, ("pass", "pw")),
    (_NAMED_IN_PROSE, r"\1" + REDACTED, ("密码", "密钥", "秘钥", "口令", "令牌", "私钥")),
)
# A configured key shorter than this is not matched exactly (it would mask unrelated text); one shorter
# than _PLAIN_MATCH is matched only as a whole word.
_MIN_EXACT = 8
_PLAIN_MATCH = 20
_MIN_ENCODED = 12


_URLSAFE = str.maketrans("+/", "-_")


def encoded_forms(secret: str) -> frozenset[str]:
    """The cheap encodings a configured key shows up in: hex (either case), URL-encoding, and base64 (standard
    and URL-safe) at each of the three alignments a key can have inside a longer encoded blob (`user:key` in
    a Basic header, a JSON document); of base64 only the characters that depend on the key alone are kept.
    Forms shorter than `_MIN_ENCODED` are left out (they would match unrelated text)."""
    raw = secret.strip().encode("utf-8")
    forms = {raw.hex(), raw.hex().upper(), quote(secret.strip(), safe=""), quote_plus(secret.strip())}
    for shift in range(3):
        text = base64.b64encode(bytes(shift) + raw).decode("ascii")
        core = text[-(-8 * shift // 6) : 8 * (shift + len(raw)) // 6]
        forms.update((core, core.translate(_URLSAFE)))
    return frozenset(form for form in forms if len(form) >= _MIN_ENCODED and form != secret.strip())


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
        encoded = {form for s in unique for form in encoded_forms(s)} - unique
        ordered = sorted(unique, key=len, reverse=True)
        self._plain = [s for s in ordered if len(s) >= _PLAIN_MATCH]
        self._plain += sorted(encoded, key=len, reverse=True)
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
        seen: dict[str, bool] = {}  # a hint shared by several patterns is looked for once

        def present(hint: str) -> bool:
            found = seen.get(hint)
            if found is None:
                found = seen[hint] = hint in lowered
            return found

        for shape, replacement, hints in _PATTERNS:
            if any(present(hint) for hint in hints):
                value = shape().sub(replacement, value)
        return value

    def holds_configured(self, value: str) -> bool:
        """Whether `value` contains one of the configured secrets (or an encoded form of one)."""
        return any(secret in value for secret in self._plain) or any(
            pattern.search(value) for pattern in self._worded
        )

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
            if key is not None and _SECRET_KEY().search(key) and value:
                return REDACTED
            if key in ARGUMENT_KEYS:
                return self.arguments(value)
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.text(str(k)): self.value(v, str(k)) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(item) for item in value]
        return value


_ZERO_WIDTH = lazy_pattern("[\u00ad\u200b-\u200d\u2060\ufeff]")
# Single characters with blanks between them (`s k - p r o j …`): a key spelled out to slip past a check.
_SPACED_OUT = lazy_pattern(r"(?<!\S)(?:\S[ \t\u3000]+){7,}\S(?!\S)")
_BLANKS = lazy_pattern(r"[ \t\u3000]+")
_DEFAULT = Redactor()


def _spelled_together(text: str) -> str:
    text = _ZERO_WIDTH().sub("", unicodedata.normalize("NFKC", text))
    return _SPACED_OUT().sub(lambda match: _BLANKS().sub("", match.group()), text)


def looks_like_secret(text: str, redactor: Redactor | None = None) -> bool:
    """Whether `text` carries something the redactor would mask, also once full-width forms, zero-width
    characters and blanks between single characters are taken out (for checks such as save_memory)."""
    check = redactor or _DEFAULT
    text = encodable(text)
    if check.text(text) != text:
        return True
    joined = _spelled_together(text)
    return joined != text and check.text(joined) != joined


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
