"""Patterns compiled at their first use (issue 49): nothing is compiled when the accessor is made, the first
call compiles with the given flags, later calls give back that same pattern, and a module's shapes that a text
never reaches stay uncompiled (the secret shapes: only those whose hint the text holds)."""

from __future__ import annotations

import re

import pytest

from paicli import redact
from paicli.lazyre import lazy_pattern


def test_nothing_is_compiled_until_the_first_call() -> None:
    broken = lazy_pattern("(unclosed")  # compiling it would raise
    with pytest.raises(re.error):
        broken()


def test_the_first_call_compiles_with_the_flags_and_later_calls_reuse_it() -> None:
    words = lazy_pattern(r"key\d", re.IGNORECASE)
    first = words()
    assert first.findall("KEY1 key2 kex3") == ["KEY1", "key2"]
    assert words() is first


def test_a_text_without_a_shapes_hint_leaves_that_shape_uncompiled() -> None:
    pem = next(shape for shape, _, hints in redact._PATTERNS if hints == ("private key",))
    pem.cache_clear()  # type: ignore[attr-defined]  # functools.cache's own
    redactor = redact.Redactor()
    assert redactor.text("你好，今天写单元测试") == "你好，今天写单元测试"
    assert pem.cache_info().currsize == 0  # type: ignore[attr-defined]
    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----"
    assert redactor.text(block) == f"-----{redact.REDACTED} PRIVATE KEY-----"
    assert pem.cache_info().currsize == 1  # type: ignore[attr-defined]
