"""Chinese text segments through the prefix file exactly as jieba does with its whole dictionary loaded, and a
fresh process with a few stored memories never loads that dictionary for its query (issue 33)."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import jieba
import pytest

from paicli.memory import prefix_dict
from paicli.testing.dictionary_cache import seed_dictionary_cache

ROOT = Path(__file__).resolve().parents[2]
HAN = "的一是了我不人在他有这个上们来到时大地为子中你说生国年着就那和要她出也得里后自以会家可下而过天去能对小多然于心学么之都好看起发当没成只如事把还用第样道想作种开美总从无情己面最女但现前些所同日手又行意动方期它头经长儿回位分爱老因很给名法间斯知世什两次使身者被高已亲其进此话常与活正感项目构建测试配置文件数据库"
OTHER = "abcXYZ0129 ，。！？、；：“”（）《》—…+#&._%-\n\t"


def _corpus() -> list[str]:
    texts = [path.read_text(encoding="utf-8") for path in sorted((ROOT / "prompts").rglob("*.md"))]
    dataset = json.loads((ROOT / "evals" / "retrieval" / "dataset.json").read_text(encoding="utf-8"))
    texts.extend(json.dumps(dataset, ensure_ascii=False).split("\\n"))
    rng = random.Random(33)
    for _ in range(400):
        texts.append(
            "".join(rng.choice(HAN if rng.random() < 0.8 else OTHER) for _ in range(rng.randint(1, 30)))
        )
    return [text for text in texts if text]


@pytest.fixture(scope="module")
def prefix_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    jieba.dt.check_initialized()
    path = tmp_path_factory.mktemp("cache") / prefix_dict.FILE_NAME
    prefix_dict.write(path, jieba.dt.FREQ, jieba.dt.total, prefix_dict.stamp(jieba))
    return path


def test_the_disk_cut_gives_jiebas_own_words(prefix_file: Path) -> None:
    cut = prefix_dict.open_cut(prefix_file, jieba)
    assert cut is not None
    for text in _corpus():
        assert cut(text) == jieba.lcut(text), text[:80]
    assert (prefix_file.stat().st_mode & 0o777) == 0o600


def test_a_partial_file_left_by_an_exit_mid_write_is_dropped_later(tmp_path: Path) -> None:
    path = tmp_path / prefix_dict.FILE_NAME
    old = tmp_path / f"{prefix_dict.FILE_NAME}.123.456.tmp"
    young = tmp_path / f"{prefix_dict.FILE_NAME}.789.1.tmp"
    old.write_bytes(b"partial")
    young.write_bytes(b"another process writing now")
    os.utime(old, (1_000_000, 1_000_000))
    prefix_dict.write(path, {"项目": 3, "项": 0}, 3, "stamp")
    assert not old.exists() and young.exists() and path.is_file()


def test_a_file_from_another_dictionary_or_no_database_is_not_used(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.sqlite3"
    prefix_dict.write(foreign, {"项目": 3, "项": 0}, 3, "jieba 0.0 dict 1")
    assert prefix_dict.open_cut(foreign, jieba) is None
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"not a database at all" * 50)
    assert prefix_dict.open_cut(garbage, jieba) is None
    assert prefix_dict.open_cut(tmp_path / "missing.sqlite3", jieba) is None


SEGMENT = """
import sys, jieba
from paicli.memory import tokenize
words = tokenize.segment(sys.argv[1])
assert tokenize.wait_for_prefix_file(60)
print(" ".join(words))
print("dictionary loaded" if jieba.dt.initialized else "dictionary not loaded")
"""


def _segment(home: Path, text: str) -> list[str]:
    env = {**os.environ, "PAICLI_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-c", SEGMENT, text], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_a_fresh_process_segments_a_query_without_loading_the_dictionary(tmp_path: Path) -> None:
    query = "项目用哪个版本的构建工具"
    first = _segment(tmp_path, query)
    assert first[1] == "dictionary loaded"  # nothing saved yet: jieba loads it and the prefix file is written
    saved = tmp_path / "cache" / prefix_dict.FILE_NAME
    assert saved.is_file() and (saved.stat().st_mode & 0o777) == 0o600
    second = _segment(tmp_path, query)
    assert second == [first[0], "dictionary not loaded"]
    assert first[0].split() == jieba.lcut(query)


def test_bulk_text_past_the_budget_loads_the_dictionary_once(tmp_path: Path) -> None:
    from paicli.memory.tokenize import DISK_CUT_BUDGET

    seed_dictionary_cache(tmp_path)  # as a home is after its first load: both caches saved
    bulk = "长期记忆检索的分词" * (DISK_CUT_BUDGET // 9 + 1)
    words, state = _segment(tmp_path, bulk)
    assert state == "dictionary loaded"
    assert words.split() == jieba.lcut(bulk)


def test_a_corrupt_prefix_file_falls_back_to_the_dictionary(tmp_path: Path) -> None:
    saved = tmp_path / "cache" / prefix_dict.FILE_NAME
    saved.parent.mkdir(parents=True)
    saved.write_bytes(b"\0garbage" * 100)
    words, state = _segment(tmp_path, "偏好设置")
    assert (words, state) == ("偏好 设置", "dictionary loaded")
    connection = sqlite3.connect(saved)  # the load replaced the corrupt file with a good one
    try:
        assert connection.execute("SELECT n FROM freq WHERE word = '偏好'").fetchone() is not None
    finally:
        connection.close()
