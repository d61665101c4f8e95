"""The journal beside long_term_memory.json (issue 49): read-your-writes, folding, a torn line, a crash in the
middle of a fold, and the snapshot a big file gets."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from paicli.config.run_values import MemoryValues
from paicli.memory.journal import journal_path_for
from paicli.memory.locked_file import render_json
from paicli.memory.snapshot import snapshot_path_for
from paicli.memory.store import FILE_NAME, LongTermMemory
from paicli.memory.store_io import SNAPSHOT_MIN_ENTRIES
from tests.memory.helpers import CLOCK, entry, env


def journaled(path: Path) -> LongTermMemory:
    """A store that journals every save and folds only when told (fold_delay: an hour)."""
    return LongTermMemory(path, MemoryValues.parse(env()), clock=CLOCK, journal_min=0, fold_delay=3600)


def on_disk(directory: Path) -> list[str]:
    """What a reader of the JSON file alone (the Java PaiCLI) sees."""
    path = directory / FILE_NAME
    if not path.exists():
        return []
    return [item["id"] for item in json.loads(path.read_text(encoding="utf-8"))]


def test_a_save_is_one_journal_line_that_every_paicli_reader_sees_at_once(tmp_path: Path) -> None:
    writer, reader = journaled(tmp_path), journaled(tmp_path)
    first = entry("发布窗口是每周二下午", entry_id="fact-00000001")
    assert writer.write(first).written
    journal = journal_path_for(writer.path)
    assert len(journal.read_bytes().splitlines()) == 2  # the header and one line
    assert on_disk(tmp_path) == []  # the file of record waits for the fold
    assert reader.retrieve("fact-00000001") == first  # another instance reads the journal
    assert (
        LongTermMemory(tmp_path, MemoryValues.parse(env()), clock=CLOCK).size() == 1
    )  # and so does a new one
    assert writer.retrieve("fact-00000001") == first


def test_a_fold_writes_every_committed_fact_into_the_json_file_and_removes_the_journal(
    tmp_path: Path,
) -> None:
    store = journaled(tmp_path)
    ids = []
    for i in range(5):
        result = store.write(entry(f"第 {i} 个服务的端口在配置中心里", entry_id=f"fact-0000000{i}"))
        assert result.written and result.entry is not None
        ids.append(result.entry.id)
    assert store.delete(ids[0])
    before = [e.model_dump() for e in store.get_all()]
    assert store.fold()
    assert on_disk(tmp_path) == ids[1:]
    assert not journal_path_for(store.path).exists()
    assert [e.model_dump() for e in store.get_all()] == before
    assert [
        e.model_dump() for e in LongTermMemory(tmp_path, MemoryValues.parse(env()), clock=CLOCK).get_all()
    ] == before
    written = (tmp_path / FILE_NAME).read_text(encoding="utf-8")
    assert written == render_json(
        LongTermMemory(tmp_path, MemoryValues.parse(env()), clock=CLOCK).get_all()
    )  # the reference layout
    assert not store.fold()  # nothing left to fold


def test_a_torn_last_line_is_ignored_by_readers_and_cut_by_the_next_writer(tmp_path: Path) -> None:
    store = journaled(tmp_path)
    assert store.write(entry("缓存默认 TTL 是 10 分钟", entry_id="fact-aaaaaaaa")).written
    journal = journal_path_for(store.path)
    torn = json.dumps({"put": [entry("半截写入的事实", entry_id="fact-bbbbbbbb").to_json_dict()]})
    with open(journal, "ab") as handle:
        handle.write(torn[: len(torn) // 2].encode("utf-8"))  # a writer killed mid-append: no newline
    reader = journaled(tmp_path)
    assert [e.id for e in reader.get_all()] == ["fact-aaaaaaaa"]
    assert reader.write(entry("日志保留 14 天", entry_id="fact-cccccccc")).written
    lines = journal.read_bytes().split(b"\n")
    assert lines[-1] == b"" and all(json.loads(line) for line in lines[:-1])  # the torn piece is gone
    assert [e.id for e in journaled(tmp_path).get_all()] == ["fact-aaaaaaaa", "fact-cccccccc"]
    assert reader.fold() and on_disk(tmp_path) == ["fact-aaaaaaaa", "fact-cccccccc"]


def test_a_fold_that_died_after_writing_the_file_loses_and_repeats_nothing(tmp_path: Path) -> None:
    store = journaled(tmp_path)
    assert store.write(entry("构建用 Gradle 8", entry_id="fact-11111111")).written
    assert store.write(entry("数据库是 PostgreSQL 15", entry_id="fact-22222222")).written
    assert store.write(entry("数据库是 PostgreSQL 16", entry_id="fact-33333333"), allow_conflict=True).written
    assert store.delete("fact-11111111")
    journal = journal_path_for(store.path)
    saved = tmp_path / "journal-before-the-fold"
    shutil.copyfile(journal, saved)
    expected = [e.model_dump() for e in store.get_all()]
    assert store.fold()
    shutil.copyfile(saved, journal)  # the fold replaced the JSON file, then the process died
    survivor = journaled(tmp_path)
    assert [e.model_dump() for e in survivor.get_all()] == expected  # every line applies again, harmlessly
    assert survivor.fold() and not journal.exists()
    assert [e.model_dump() for e in journaled(tmp_path).get_all()] == expected
    assert on_disk(tmp_path) == ["fact-22222222", "fact-33333333"]


def test_a_fold_that_died_before_replacing_the_file_leaves_the_journal_in_charge(tmp_path: Path) -> None:
    store = journaled(tmp_path)
    assert store.write(entry("接口超时 5 秒", entry_id="fact-44444444")).written
    (tmp_path / f"{FILE_NAME}.orphan.tmp").write_text("[ {", encoding="utf-8")  # a fold killed mid-write
    survivor = journaled(tmp_path)
    assert [e.id for e in survivor.get_all()] == ["fact-44444444"]
    assert survivor.fold() and on_disk(tmp_path) == ["fact-44444444"]
    assert not list(tmp_path.glob("*.tmp"))  # temp files of a killed writer are removed under the lock


def test_a_java_write_between_folds_keeps_the_journaled_facts(tmp_path: Path) -> None:
    store = journaled(tmp_path)
    assert store.write(entry("前端用 pnpm", entry_id="fact-55555555")).written
    # the Java PaiCLI rewrites the file from what it read (the journal is unknown to it)
    (tmp_path / FILE_NAME).write_text(
        render_json([entry("Java 写入的事实", entry_id="fact-66666666")]), "utf-8"
    )
    reader = journaled(tmp_path)
    assert sorted(e.id for e in reader.get_all()) == ["fact-55555555", "fact-66666666"]
    assert reader.fold() and sorted(on_disk(tmp_path)) == ["fact-55555555", "fact-66666666"]


def test_a_big_file_is_snapshotted_and_the_snapshot_read_instead_of_the_file(tmp_path: Path) -> None:
    count = SNAPSHOT_MIN_ENTRIES
    entries = [
        entry(f"第 {i} 条约定：模块 m{i} 的负责人是 u{i}", entry_id=f"fact-{i:08x}") for i in range(count)
    ]
    (tmp_path / FILE_NAME).write_text(render_json(entries), encoding="utf-8")
    parsed = LongTermMemory(tmp_path, MemoryValues.parse(env()), clock=CLOCK, fold_delay=0)
    assert parsed.folder.flush(60)
    assert snapshot_path_for(parsed.path).exists()
    fast = LongTermMemory(tmp_path, MemoryValues.parse(env()), clock=CLOCK, fold_delay=3600)
    assert fast.loaded_from_snapshot and not parsed.loaded_from_snapshot
    assert [e.model_dump() for e in fast.get_all()] == [e.model_dump() for e in entries]
    assert fast.write(entry("新的一条约定", entry_id="fact-ffffffff")).written  # journaled: a big store
    assert on_disk(tmp_path)[-1] == f"fact-{count - 1:08x}"
    assert fast.fold() and on_disk(tmp_path)[-1] == "fact-ffffffff"
    again = LongTermMemory(tmp_path, MemoryValues.parse(env()), clock=CLOCK, fold_delay=3600)
    assert again.loaded_from_snapshot and again.size() == count + 1  # the fold saved a snapshot of its file
    (tmp_path / FILE_NAME).write_text(render_json(entries[:10]), encoding="utf-8")  # changed behind its back
    assert not LongTermMemory(tmp_path, MemoryValues.parse(env()), clock=CLOCK).loaded_from_snapshot
    assert again.size() == 10
