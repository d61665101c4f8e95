"""Text without Han characters segments exactly as jieba does, without loading its dictionary (issue 33)."""

from __future__ import annotations

import random

import jieba
import pytest

from paicli.memory import tokenize

ALPHABET = "abcXYZ019+#&._%- \t\r\n\u00e9\u00fc\u0436/:,;!?()[]'\"\u3000\uff21\u2014@=~*"
FIXED = [
    "hello",
    "Hello, world!",
    "v1.2.3 and 50% of x.y-z",
    "--flag=value path/to/file.py",
    "a\r\nb\n\tc  d",
    "caf\u00e9 na\u00efve \u0436\u0443\u043a",
    "3.14% 10.5 .5 5.",
    "foo_bar-baz#1&2",
    "emoji \U0001f600 ok",
]


@pytest.mark.parametrize("text", FIXED)
def test_fixed_texts_match_jieba(text: str) -> None:
    assert not tokenize.needs_dictionary(text)
    assert tokenize._segment_without_dictionary(text) == jieba.lcut(text)


def test_random_texts_match_jieba() -> None:
    rng = random.Random(28)
    for _ in range(3000):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 40)))
        if tokenize.needs_dictionary(text):
            continue
        assert tokenize._segment_without_dictionary(text) == jieba.lcut(text), repr(text)


@pytest.mark.parametrize("text", ["项目", "用 C++ 写", "c# code", "AT&T", "混合 text"])
def test_han_text_and_dictionary_words_need_jieba(text: str) -> None:
    assert tokenize.needs_dictionary(text)
