"""The secret filter of automatic extraction, by the secret's value, not by the word that names a kind of secret.

A sentence may talk about secrets (`The API keys are kept in a vault service`, `密码策略是至少 12 位`,
`Access tokens expire after one hour`): those are durable facts about how the project handles them. What must
never reach the model or the store is a secret itself. A sentence carries one when

- it holds something shaped like a credential or personal data whatever the words around it (a key prefix, a
  JWT, a private key block, credentials in a URL, an e-mail address, a phone or ID number; `SECRET_VALUE`) or
  something the ledger redactor would mask (`paicli.redact`);
- it names a kind of secret and gives that name a value (`the default password is changeme`, `验证码是 482913`,
  `the root password was set to letmein`): the value after the copula, colon or `set to` is not a description;
- it names a kind of secret and holds a token shaped like a password (letters and digits interleaved, symbols
  between them) or a bare number of four or more digits that counts nothing;
- it names a kind of secret and speaks of handing one over (`密钥我会单独发你`, `don't leak the token`): such a
  sentence is about one secret in this conversation, not a property of the project.

Pure functions of the text.
"""

from __future__ import annotations

import re

from paicli.memory.extract_voice import java_trim
from paicli.memory.extract_words import REFERENCE_SPLIT, SECRET_NAME, SECRET_VALUE, SENSITIVE
from paicli.redact import looks_like_secret

# What links a secret's name to its value: a copula, a colon or `=`, or a verb of setting.
_ASSIGNED = re.compile(
    r"(?i)^[A-Za-z0-9_.-]*['\"]?\s*(?:(?:is|was|are|were)(?:\s+(?:set|changed|reset)\s+to)?|"
    r"(?:set|changed|reset)\s+to|[:=：]|就是|是|为|设为|设成|设置为|设置成|改成|改为|换成)\s*(?P<value>.*)$"
)
_CLAUSE_END = re.compile(r"[，,；;。！!？?\n]|\.(?=\s|$)")
# A value that describes the secret rather than being one: it opens with a closed-class word (`at least 12
# characters`, `in Vault`, `not stored`), a participle or an adjective (`kept in a vault`, `valid for an hour`).
_DESCRIPTION_START = re.compile(
    r"(?i)^(?:a|an|the|at|in|on|by|from|for|under|inside|within|never|not|no|only|always|still|also|now|"
    r"that|what|how|when|where|which|who|to|one|like|"
    r"never|required|optional|mandatory|valid|invalid|unique|private|public|empty|shared|personal|separate|"
    r"different|random|strong|weak|short|long|same|kept|held|sent|built|made|put|left|"
    r"[a-z]+(?:ed|en|ing|able|ible|ive|al|ful|ous|less|ly|ent|ant))\b"
)
_HAN = re.compile(r"[\u3400-\u9fff]")
# A password-like token: letters and digits interleaved at least three times, a symbol between them, or eight or
# more letters and digits together.
_MIXED = re.compile(
    r"(?<![A-Za-z0-9])(?=[A-Za-z0-9!@#$%^&*~+?_-]{6,})"
    r"(?:[A-Za-z]+[0-9]+[A-Za-z]+[0-9]+|[0-9]+[A-Za-z]+[0-9]+[A-Za-z]+|"
    r"[A-Za-z0-9]+[!@#$%^&*~+?][A-Za-z0-9!@#$%^&*~+?]*[A-Za-z0-9]|"
    r"(?=[A-Za-z]*[0-9])(?=[0-9]*[A-Za-z])[A-Za-z0-9]{8,}(?![A-Za-z0-9]))"
)
# A bare number that counts nothing (no unit after it): a PIN, a one-time code.
_CODE = re.compile(r"(?<![\d.:/-])\d{4,}(?![\d.:/-]|\s*[A-Za-z\u3400-\u9fff%])")
_HANDOVER = re.compile(
    r"(?i)你|您|\b(?:you|your)\b|发给|私信|私聊|泄露|泄漏|外泄|\b(?:leak|leaked|leaks|share|send|paste|dm)\b"
)


def carries_secret(sentence: str) -> bool:
    """Whether `sentence` holds a secret's value (then it is dropped before the model sees it)."""
    if SECRET_VALUE.search(sentence) or looks_like_secret(sentence):
        return True
    names = list(SECRET_NAME.finditer(sentence))
    if not names:
        return False
    if _MIXED.search(sentence) or _CODE.search(sentence) or _HANDOVER.search(sentence):
        return True
    return any(_given_a_value(sentence[name.end() :]) for name in names)


def _given_a_value(after_name: str) -> bool:
    """`is changeme`, `：qwe123`, `was set to letmein`: the name is assigned a value that describes nothing."""
    clause = _CLAUSE_END.split(after_name, maxsplit=1)[0]
    found = _ASSIGNED.match(clause)
    if found is None:
        return False
    value = found.group("value").strip(" \"'“”‘’`")
    if not value or _HAN.search(value):
        return False  # `密码策略是至少 12 位` names no value; a value in Chinese words describes
    return _DESCRIPTION_START.match(value) is None


def safe_input(text: str, hardened: bool = True) -> str:
    """Drop every sentence that mentions a secret (spec 5.2 step 2); the rest goes to the model. Hardened, a
    sentence is dropped for a secret's value, not for a word that names a kind of secret (`密码策略是至少 12 位`
    is a fact; `密码是 qwe123456` is a secret)."""
    split = _HARDENED_SPLIT if hardened else REFERENCE_SPLIT
    kept = [s for s in split.split(text) if s and not _secret(s, hardened)]
    return java_trim("".join(kept))


# Hardened, an English sentence end or a question or exclamation mark ends a sentence too, so a secret-free
# statement is not lost with the request that follows it (`Credentials come from Vault. Can you check …?`).
_HARDENED_SPLIT = re.compile(r"(?<=[。；;\n！？])|(?<=[.!?])(?=\s)")


def _secret(text: str, hardened: bool) -> bool:
    return carries_secret(text) if hardened else SENSITIVE.search(text) is not None
