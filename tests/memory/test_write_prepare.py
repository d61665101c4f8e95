"""A write reads its fact before it takes the store's lock: the lexicons that reading needs load outside it, so
writers queued on the lock never wait out one another's library loading (tests/cli/test_e2e_sessions.py runs
eight at once)."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
from paicli.memory import evolve
from paicli.memory.entry import new_fact
evolve.prepare(new_fact(sys.argv[1]))
print(" ".join(m for m in ("lemminflect", "cn2an") if m in sys.modules))
"""


def _loaded_by_prepare(text: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, text], capture_output=True, text=True, check=True)
    return set(done.stdout.split())


def test_preparing_an_english_change_loads_the_word_lexicon_before_the_lock() -> None:
    assert "lemminflect" in _loaded_by_prepare("The upload limit was raised to 25 MB")


def test_preparing_a_chinese_numeral_loads_the_numeral_tables_before_the_lock() -> None:
    assert "cn2an" in _loaded_by_prepare("代码评审现在只要一个人批准")
