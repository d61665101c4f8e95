"""Issue 37 (memchange2): a correction that names its subject in other words still supersedes; each rule is
tested beside the look-alike that must stay apart. Subjects and values are my own, not the eval's nor the
lead's trials."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.config.run_values import MemoryValues
from paicli.memory import evolve
from paicli.memory.change_values import values
from paicli.memory.entry import new_fact
from paicli.memory.manager import MemoryManager
from paicli.memory.marked_change import pick, score
from paicli.memory.neighbours import neighbours
from paicli.memory.results import WriteStatus

from .helpers import CLOCK, env, memory


def changes(stored: str, incoming: str) -> bool:
    return score(stored, incoming) > 0


# ---- the marker: a verb that sets an amount anew ---------------------------------------------------------


@pytest.mark.parametrize(
    "incoming",
    [
        "The image cache limit was raised to 8 GB.",
        "We bumped the image cache limit to 8 GB.",
        "The image cache limit got increased to 8 GB.",
    ],
)
def test_a_verb_that_sets_an_amount_anew_marks_a_change(incoming: str) -> None:
    assert changes("The image cache limit is 4 GB.", incoming)


def test_the_same_amount_without_such_a_verb_or_marker_is_no_change() -> None:
    assert not changes("The image cache limit is 4 GB.", "The image cache limit is 8 GB on big hosts.")


@pytest.mark.parametrize("incoming", ["索引并发调到 8 个", "索引并发已经加到 8 个", "索引并发提到 8 个了"])
def test_a_chinese_verb_of_setting_before_to_marks_a_change(incoming: str) -> None:
    assert changes("索引并发是 4 个", incoming)


def test_a_chinese_word_that_only_opens_like_one_is_no_marker() -> None:
    assert not changes("索引并发是 4 个", "索引并发调用方有 8 个")


# ---- the value: a span of time in any unit, English numerals, `every week` -------------------------------


def test_a_span_of_time_is_one_kind_of_value_whatever_its_unit() -> None:
    assert values("锁等待 90 秒").slots == {("duration", "90")}
    assert values("lock waits 1.5 minutes").slots == {("duration", "90")}
    assert changes("锁等待上限是 30 秒", "锁等待上限现在改成两分钟")


def test_a_count_and_a_span_of_time_are_two_kinds() -> None:
    assert not changes("锁等待重试 3 次", "锁等待现在改成两分钟")


def test_an_english_numeral_before_its_unit_is_a_number_and_elsewhere_is_not() -> None:
    assert values("Merges need two sign-offs.").slots == values("Merges need 2 sign-offs.").slots
    assert values("One of the mirrors is slow.").slots == set()
    assert changes("Merges need two sign-offs.", "Merges now need three sign-offs.")


def test_every_week_is_a_span_of_one_week() -> None:
    assert changes(
        "The theme catalogue is refreshed every three days.", "Catalogue refreshes happen every day now."
    )
    # `周一` inside `每周一次` is no Monday
    assert values("每周一次").slots == {("duration", "604800"), ("number:次", "1")}


# ---- the subject: word forms, derived nouns, counted units, compounds, possessives -----------------------


def test_a_verb_and_the_noun_made_from_it_name_one_subject() -> None:
    assert changes("Fonts are stored in Backblaze.", "Font storage moved to Cloudflare R2.")
    assert changes("Hotfixes are approved by Keiko.", "Hotfix approval now goes through Ravi.")


def test_a_derived_noun_does_not_join_two_things_that_each_have_their_own_word() -> None:
    assert not changes("Fonts are stored in Backblaze.", "Video storage moved to Cloudflare R2.")


def test_the_unit_a_number_counts_names_the_subject() -> None:
    assert changes("The crawler count is 6.", "We now run 12 crawlers.")
    assert not changes("The crawler count is 6.", "We now run 12 uploader threads.")


def test_a_bare_number_and_a_counted_one_are_one_kind() -> None:
    assert changes("The search index holds 3 shards.", "The search index shard count is now 5.")


def test_a_word_written_in_two_is_the_same_word() -> None:
    assert changes(
        "Report exports time out after 20 seconds.", "The report export timeout was raised to 60 seconds."
    )


def test_a_possessive_is_the_thing_it_belongs_to() -> None:
    assert changes(
        "The kiosk app's minimum API level is 24.", "The kiosk app minimum API level was bumped to 28."
    )


def test_a_chinese_word_and_the_compound_it_opens_name_one_subject() -> None:
    assert changes("每周三上午对账", "对账日现在改到周五了")
    assert not changes("每周三上午对账", "结算日现在改到周五了")


# ---- names: a name beside a changed number is a subject word, a product with its version is a value ------


def test_a_name_that_qualifies_the_subject_keeps_two_things_apart() -> None:
    assert not changes(
        "Stripe refunds are capped at 3 retries.", "Adyen refunds are capped at 5 retries now."
    )
    assert changes("Stripe refunds are capped at 3 retries.", "Stripe refunds are capped at 5 retries now.")


def test_a_product_and_its_version_is_the_value_not_a_subject_word() -> None:
    assert changes("The message broker is RabbitMQ 3.12.", "The broker is NATS 2.10 now.")
    assert not changes(
        "The Windows client's minimum build is 19045.", "The macOS client's minimum version is macOS 13 now."
    )


def test_the_owner_named_in_another_word_form_is_the_same_owner() -> None:
    assert changes("The cache limit for thumbnails is 2 GB.", "Thumbnail cache is capped at 3 GB now.")
    assert not changes("The cache limit for thumbnails is 2 GB.", "Avatar cache is capped at 3 GB now.")


def test_among_two_candidates_the_one_that_names_the_subject_is_picked() -> None:
    stored = ["Audit exports are limited to 4 per hour.", "The export limit for invoices is 10 per hour."]
    assert pick(stored, "Invoice exports are capped at 20 per hour now.") == 1


# ---- the candidate filter: another word form is a neighbour ----------------------------------------------


def test_another_word_form_makes_a_stored_fact_a_neighbour() -> None:
    stored = [
        new_fact(text, clock=CLOCK) for text in ("The maximum attachment size is 5 MB.", "Lint runs on push.")
    ]
    found = neighbours(stored, new_fact("Attachments are now capped at 15 MB.", clock=CLOCK))
    assert [e.content for e in found] == ["The maximum attachment size is 5 MB."]


# ---- through the store --------------------------------------------------------------------------------


def _manager(tmp_path: Path) -> MemoryManager:
    root = tmp_path / "repo"
    root.mkdir(exist_ok=True)
    return MemoryManager(memory(tmp_path / "mem"), root, MemoryValues.parse(env()), clock=CLOCK)


def _truths(mgr: MemoryManager) -> list[str]:
    return sorted(e.content for e in mgr.list_all() if evolve.is_truth(e))


def test_a_paraphrased_correction_supersedes_and_its_look_alike_stays(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    mgr.store_fact("The maximum download size is 500 MB.")
    mgr.store_fact("The maximum attachment size is 5 MB.")
    result = mgr.store_fact("Attachments are now capped at 15 MB.")
    assert result.status is WriteStatus.SUPERSEDED
    assert _truths(mgr) == ["Attachments are now capped at 15 MB.", "The maximum download size is 500 MB."]


def test_a_chain_of_three_ends_with_the_last_value_only(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    mgr.store_fact("锁等待上限是 30 秒")
    mgr.store_fact("锁等待上限现在改成两分钟")
    mgr.store_fact("锁等待上限又改回 30 秒了")
    assert _truths(mgr) == ["锁等待上限又改回 30 秒了"]


def test_a_question_the_parser_reads_for_sure_still_supersedes_nothing(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    mgr.store_fact("Refund retries are capped at 5.")
    mgr.store_fact("Should refund retries be capped at 8 now?")
    assert _truths(mgr) == ["Refund retries are capped at 5.", "Should refund retries be capped at 8 now?"]


# ---- a plain `also` adds a fact -----------------------------------------------------------------------


def test_a_plain_also_adds_a_fact_even_where_the_parser_reads_a_change(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    mgr.store_fact("The admin panel is styled with Bootstrap.")
    mgr.store_fact("The admin panel also uses Tailwind now.")
    assert _truths(mgr) == [
        "The admin panel also uses Tailwind now.",
        "The admin panel is styled with Bootstrap.",
    ]
