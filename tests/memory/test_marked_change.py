"""Issue 37 (memchange): the marked-change rule. Each rule is tested with the look-alike that must stay unrelated;
subjects and values are my own, not the eval's nor the lead's trial."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from paicli.memory import evolve
from paicli.memory.change_values import values
from paicli.memory.entry import MemoryEntry, new_fact
from paicli.memory.judge import parse_request
from paicli.memory.manager import MemoryManager
from paicli.memory.marked_change import pick, score
from paicli.memory.results import WriteStatus
from paicli.testing.scripted_llm import Request, ScriptedLLM

from .helpers import CLOCK, repo_manager


def changes(stored: str, incoming: str) -> bool:
    return score(stored, incoming) > 0


# ---- 1. a change marker is needed; any tense, either language ------------------------------------------


@pytest.mark.parametrize(
    "incoming",
    [
        "Crash dumps go to Azure Blob now.",
        "Crash dumps were moved to Azure Blob.",
        "We are switching crash dumps to Azure Blob.",
        "Crash dumps go to Azure Blob instead.",
    ],
)
def test_a_new_value_in_another_frame_with_a_change_marker_is_a_change(incoming: str) -> None:
    assert changes("Crash dumps are shipped to S3.", incoming)


def test_the_same_new_value_without_a_change_marker_is_not() -> None:
    assert not changes("Crash dumps are shipped to S3.", "Crash dumps go to Azure Blob.")


def test_chinese_markers_mark_a_change_and_their_absence_does_not() -> None:
    assert changes("构建缓存放在 /srv/cache", "构建缓存现在挪到 /mnt/cache")
    assert changes("构建缓存放在 /srv/cache", "构建缓存迁到 /mnt/cache 了")
    assert not changes("构建缓存放在 /srv/cache", "构建缓存有一份在 /mnt/cache")


# ---- 2. questions, plans and added facts change nothing ---------------------------------------------------


@pytest.mark.parametrize(
    "incoming",
    [
        "Should crash dumps move to Azure Blob now?",
        "Do crash dumps go to Azure Blob now",
        "We might move crash dumps to Azure Blob.",
        "We are considering moving crash dumps to Azure Blob.",
        "Crash dumps now also go to Azure Blob.",
        "Crash dumps go to Azure Blob now as well.",
    ],
)
def test_a_question_a_plan_or_an_added_fact_is_no_change(incoming: str) -> None:
    assert not changes("Crash dumps are shipped to S3.", incoming)


@pytest.mark.parametrize(
    "incoming",
    ["要不要把构建缓存换到 /mnt/cache？", "构建缓存可能会迁到 /mnt/cache", "构建缓存也会放一份到 /mnt/cache"],
)
def test_a_chinese_question_plan_or_addition_is_no_change(incoming: str) -> None:
    assert not changes("构建缓存放在 /srv/cache", incoming)


# ---- 3. the subject: shared words after lemmas, stems, abbreviations and Chinese heads ----------------------


def test_a_subject_in_another_word_form_is_the_same_subject() -> None:
    assert changes("We monitor with Nagios.", "Nagios is out, monitoring uses Prometheus now.")


def test_an_abbreviation_names_the_same_subject() -> None:
    assert changes("Our database is MariaDB 10.", "The DB is MariaDB 11 now.")
    assert changes("Our continuous integration runs on Drone.", "CI moved to Woodpecker.")


def test_a_chinese_head_names_the_same_subject() -> None:
    assert changes("接口重试 3 次", "重试次数改成 4 次了")
    assert changes("预发数据库放在 /data/pg", "预发库现在放在 /data/pg16")


def test_only_the_kind_of_the_value_in_common_is_no_shared_subject() -> None:
    assert not changes("接口重试 3 次", "超时次数改成 4 次了")


def test_the_same_frame_about_another_component_is_not_the_same_subject() -> None:
    assert changes("The admin panel is built with Vite.", "The admin panel moved to Astro.")
    assert not changes("The admin panel is built with Vite.", "The landing page is built with Astro now.")
    assert not changes("The staging cluster runs Kafka 3.", "The analytics cluster runs Pulsar now.")
    assert not changes("管理后台用 Vite 构建", "官网现在换成 Astro 构建了")


def test_two_things_that_each_name_what_the_other_lacks_are_two_things() -> None:
    # the same head and frame with a contrasting qualifier: another component even when most words are shared
    assert not changes("The backend builds run on Node 18.", "The frontend builds run on Node 20 again.")
    assert not changes("The watch app targets iOS 17.", "Mobile app targets iOS 15 instead of iOS 17.")
    assert not changes("订单服务的数据库用 MySQL", "支付服务的数据库现在换成 TiDB 了")
    assert changes("The frontend builds run on Node 18.", "The frontend builds run on Node 20 again.")


def test_a_shared_verb_alone_is_no_shared_subject() -> None:
    assert not changes("Audit logs are kept for 30 days.", "Traces are now kept for 7 days.")


def test_a_change_of_another_subject_in_a_clause_of_its_own_is_not_a_change_of_this_one() -> None:
    assert not changes("The database is MariaDB 10.", "The database stays, but the queue moved to NATS now.")
    assert changes(
        "Invoices are sent by Postmark.", "Invoices are no longer sent by Postmark; Mailgun does it."
    )


def test_doing_the_stored_verb_again_is_a_change() -> None:
    assert changes("The CLI is written in Go.", "We rewrote the CLI in Zig.")
    assert not changes("The CLI is written in Go.", "We rewrote the docs site in Zig.")


# ---- 4. the value: a slot of the same type with another value ---------------------------------------------


def test_chinese_numerals_are_numbers() -> None:
    assert ("number:人", "2") in values("评审需要两个人").slots
    assert values("评审需要两个人").slots == values("评审需要 2 个人").slots
    assert changes("评审需要两个人", "评审现在只需要一个人")
    assert not changes("评审需要两个人", "评审现在需要 2 个人")  # the same value, written in digits


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("Backups run on Sundays.", "Backups moved to Wednesdays."),
        ("The nightly job starts at 2:00.", "The nightly job moved to 3:30."),
        ("周会在周二下午", "周会现在改到周四上午"),
        ("Uploads are limited to 8 MB.", "The upload limit is 16 MB now."),
    ],
)
def test_days_times_and_numbers_with_units_are_compared_as_values(stored: str, incoming: str) -> None:
    assert changes(stored, incoming)


def test_a_new_value_of_another_type_is_no_change() -> None:
    assert not changes("Backups run on Sundays.", "Backups moved to Glacier now.")


def test_two_new_and_two_old_values_of_one_type_are_left_alone() -> None:
    assert not changes("iOS 端的审批人是张伟", "Android 端的审批人现在是李娜")


# ---- 5. ambiguity: a tie between stored truths is never guessed ---------------------------------------------


def test_the_one_best_stored_truth_is_picked_and_a_tie_is_left_alone() -> None:
    stored = ["The mobile build runs on Bitrise.", "Release notes live in Confluence."]
    assert pick(stored, "The mobile build moved to Codemagic.") == 0
    tie = ["The iOS build runs on Bitrise.", "The Android build runs on Bitrise."]
    assert pick(tie, "The build moved to Codemagic now.") is None


# ---- 6. through the store: supersedes, never for sure ---------------------------------------------------


_manager = repo_manager


def _entry(text: str) -> MemoryEntry:
    return new_fact(text, clock=CLOCK)


def _truths(mgr: MemoryManager) -> list[str]:
    return sorted(e.content for e in mgr.list_all() if evolve.is_truth(e))


def test_a_marked_change_supersedes_the_stored_truth_in_the_store(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    mgr.store_fact("Crash dumps are shipped to S3.")
    mgr.store_fact("The admin panel is built with Vite.")
    result = mgr.store_fact("Crash dumps go to Azure Blob now.")
    assert result.status is WriteStatus.SUPERSEDED
    assert _truths(mgr) == ["Crash dumps go to Azure Blob now.", "The admin panel is built with Vite."]


def test_an_abbreviation_alone_makes_the_stored_truth_a_neighbour(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    mgr.store_fact("Our continuous integration runs on Drone.")
    result = mgr.store_fact("CI moved to Woodpecker.")
    assert result.status is WriteStatus.SUPERSEDED
    assert _truths(mgr) == ["CI moved to Woodpecker."]


def test_a_look_alike_leaves_every_truth_standing_in_the_store(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    mgr.store_fact("The admin panel is built with Vite.")
    mgr.store_fact("The landing page is built with Astro now.")
    mgr.store_fact("Should the admin panel move to Astro now?")
    assert len(_truths(mgr)) == 3


@pytest.mark.parametrize(
    "incoming",
    [
        "制品仓库是不是该换成 Artifactory？",
        "The artifact store might be Artifactory soon.",
        "制品仓库另外还接了 Artifactory",
    ],
)
def test_a_question_a_maybe_or_an_addition_undoes_an_unsure_change_the_parser_read(
    tmp_path: Path, incoming: str
) -> None:
    stored = "制品仓库用 Nexus" if not incoming.isascii() else "The artifact store is Nexus."
    assert evolve.relate_all([_entry(stored)], _entry(incoming), {})[0][1] == "none"
    mgr = _manager(tmp_path)
    mgr.store_fact(stored)
    mgr.store_fact(incoming)
    assert _truths(mgr) == sorted([stored, incoming])


def test_a_certain_change_the_parser_read_stands_whatever_the_hedges() -> None:
    related = evolve.relate_all([_entry("制品仓库用 Nexus")], _entry("制品仓库现在换成 Artifactory 了"), {})
    assert [(kind, certain) for _, kind, certain in related] == [("changed", True)]


def test_a_judge_that_calls_a_marked_change_unrelated_undoes_it(tmp_path: Path) -> None:
    def reply(request: Request) -> str:
        parsed = parse_request(request.messages[-1].text)
        assert parsed is not None
        return json.dumps({"relations": [{"id": label, "relation": "unrelated"} for label, _ in parsed[1]]})

    llm = ScriptedLLM()
    llm.default_reply = reply
    mgr = _manager(tmp_path, llm)
    mgr.store_fact("Crash dumps are shipped to S3.")
    result = mgr.store_fact("Crash dumps go to Azure Blob now.")
    assert result.status is WriteStatus.SUPERSEDED  # the local rule at once; the judge is asked after
    assert mgr.wait_background(30)
    assert llm.calls == 1
    assert _truths(mgr) == ["Crash dumps are shipped to S3.", "Crash dumps go to Azure Blob now."]


def test_the_rule_s_libraries_load_neither_at_start_up_nor_for_a_write_without_a_marker() -> None:
    code = (
        "import sys, paicli.memory.evolve, paicli.memory.manager\n"
        "from paicli.memory.marked_change import pick\n"
        "loaded = lambda: sorted(m for m in ('cn2an', 'lemminflect') if m in sys.modules)\n"
        "print(loaded())\n"
        "assert pick(['The cache is Redis 6.'], 'The cache is Redis 7.') is None\n"
        "print(loaded())\n"
        "assert pick(['值班的是两个人'], '现在值班只要一个人') == 0\n"
        "print(loaded())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:3] == ["[]", "[]", "['cn2an']"]
