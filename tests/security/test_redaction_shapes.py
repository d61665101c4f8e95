"""Issue 39: configured keys in their cheap encodings, and the new shapes' limits (ordinary text stays as it
is: the ledger is what a resumed model reads)."""

from __future__ import annotations

import base64
import json
import logging
from pathlib import Path
from urllib.parse import quote

import pytest

from paicli.redact import REDACTED, RedactingFilter, Redactor, encoded_forms

KEY = "cfg/Key+with=odd&chars-0123456789"
PLAIN_KEY = "Hq2Wr7Ty1Ui6Op3As8Df4Gh9Jk"


def _blob(prefix: str, key: str, suffix: str = '"}') -> str:
    return base64.b64encode(f"{prefix}{key}{suffix}".encode()).decode()


@pytest.mark.parametrize(
    "shown",
    [
        PLAIN_KEY.encode().hex(),
        PLAIN_KEY.encode().hex().upper(),
        quote(KEY, safe=""),
        _blob("", PLAIN_KEY, ""),
        _blob("u:", PLAIN_KEY),  # the key at each of the three alignments inside a longer blob
        _blob("us:", PLAIN_KEY),
        _blob("usr:", PLAIN_KEY),
        base64.urlsafe_b64encode(f'{{"k":"{KEY}"}}'.encode()).decode(),
    ],
)
def test_a_configured_key_is_masked_in_its_cheap_encodings(shown: str) -> None:
    redactor = Redactor([KEY, PLAIN_KEY])
    stored = redactor.text(f"输出: {shown} 完")
    assert REDACTED in stored and stored.startswith("输出: ") and stored.endswith(" 完")
    assert shown not in stored


def test_encoded_forms_are_long_enough_to_mean_the_key() -> None:
    assert all(len(form) >= 12 for form in encoded_forms("short-k1"))
    assert PLAIN_KEY not in encoded_forms(PLAIN_KEY)


def test_a_log_record_loses_the_encoded_key_too(tmp_path: Path) -> None:
    path = tmp_path / "x.log"
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.addFilter(RedactingFilter([PLAIN_KEY]))
    logger = logging.getLogger("paicli.test.encoded")
    logger.propagate = False
    logger.addHandler(handler)
    try:
        logger.warning("upstream said %s", json.dumps({"basic": _blob("svc:", PLAIN_KEY)}))
    finally:
        logger.removeHandler(handler)
        handler.close()
    stored = path.read_text(encoding="utf-8")
    assert "upstream said" in stored and _blob("svc:", PLAIN_KEY)[8:-4] not in stored


@pytest.mark.parametrize(
    "text",
    [
        "auth: required",
        "auth = AuthenticationMiddleware",
        "the key-value store keeps it",
        "tls.key: ./certs/server.key",
        "?sig=abc&x=1",
        "Private-Lines: 2 of the file format",
        "bot 12345:abc replied",
        "xapp-controller-deployment",
        "see the dapi docs for details",
        "passphrase: ok",
        "AccountName=devstore;EndpointSuffix=core.windows.net",
        '{"auth": "Ym9vbGVhbg=="}',  # base64 of a word without a colon: not a docker credential
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert Redactor().text(text) == text


def test_a_putty_block_ends_at_the_first_line_that_is_not_base64_to_its_end() -> None:
    text = "Private-Lines: 2\nQUJDREVGR0g=\nSUpLTE1OT1A=\nPrivate-MAC: 9f\n"
    assert Redactor().text(text) == f"Private-Lines: 2 {REDACTED}\nPrivate-MAC: 9f\n"


def test_the_input_history_masks_configured_keys(tmp_path: Path) -> None:
    from paicli.cli.repl_prompt import RedactedFileHistory

    path = tmp_path / "input.history"
    RedactedFileHistory(str(path), [PLAIN_KEY]).store_string(f"用这个 key 试试 {PLAIN_KEY}")
    stored = path.read_text(encoding="utf-8")
    assert "用这个 key 试试" in stored and PLAIN_KEY not in stored
