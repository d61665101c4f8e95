"""Issue 37 (memrole): who holds which duty. Every frame of a responsibility statement reaches one normal form
(thing, duty, person) that the supersession rules compare; each rule has a look-alike that must stay unrelated.
The things and people here are not the eval's."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.config.run_values import MemoryValues
from paicli.memory import evolve
from paicli.memory.manager import MemoryManager
from paicli.memory.relation import relation
from paicli.memory.role_words import COARSE, REVIEW, WRITE
from paicli.memory.subject import Relation, claim_of

from .helpers import CLOCK, env, memory


def _holders(text: str) -> list[tuple[str, str, str, bool]]:
    """(thing, duty, person, negated) of each reading that names a duty."""
    return [
        (r.subject.thing, r.subject.duty, r.value, r.negated)
        for r in claim_of(text).readings
        if r.subject is not None and r.subject.duty
    ]


@pytest.mark.parametrize(
    "text",
    [
        "负责监控大盘的是刘洋",  # cleft
        "监控大盘由刘洋维护",  # agentive
        "监控大盘归刘洋管",  # belonging
        "刘洋负责监控大盘",  # active
        "监控大盘的负责人是刘洋",  # possessive
        "监控大盘这块是刘洋在管",  # copula, holder, duty verb last
        "监控大盘以后由刘洋来审批",
        "刘洋接手了监控大盘",  # a take-over naming only the new holder
        "监控大盘交接给刘洋了",
    ],
)
def test_every_chinese_frame_of_one_holder_reaches_one_normal_form(text: str) -> None:
    assert _holders(text) == [("监控大盘", COARSE, "刘洋", False)]


@pytest.mark.parametrize(
    "text",
    [
        "The person who looks after the billing service is Kenji.",
        "The billing service is maintained by Kenji.",
        "Kenji owns the billing service.",
        "The billing service owner is Kenji.",
        "Kenji is the new owner of the billing service.",
        "Kenji is in charge of the billing service.",
        "The billing service is signed off by Kenji.",
        "Kenji took over the billing service.",
        "The billing service has been handed over to Kenji.",
        "billing service 由 Kenji 负责",
        "billing service 的 owner 是 Kenji",
    ],
)
def test_every_english_and_mixed_frame_of_one_holder_reaches_one_normal_form(text: str) -> None:
    assert _holders(text) == [("billingservice", COARSE, "kenji", False)]


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("负责监控大盘的是刘洋", "监控大盘现在归马丽管"),
        ("监控大盘由刘洋维护", "马丽负责监控大盘"),
        ("监控大盘的负责人是刘洋", "监控大盘改由马丽负责"),
        ("The billing service owner is Kenji", "Sara maintains the billing service now."),
        ("Kenji is in charge of the billing service.", "The billing service is now handled by Sara."),
    ],
)
def test_a_new_holder_in_another_frame_supersedes_the_stored_holder(stored: str, incoming: str) -> None:
    assert relation(stored, incoming) == Relation("changed", True)


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("刘洋也负责数据库备份", "刘洋不再负责监控大盘"),  # the same person on another thing
        ("Kenji also owns the search index.", "Kenji no longer owns the billing service; Sara does"),
        ("前端发布由马丽负责", "后端发布改由刘洋负责"),  # the other side of the thing
        ("Orion 项目的监控大盘由刘洋负责", "监控大盘由马丽负责"),  # another project's thing
    ],
)
def test_a_holder_of_another_thing_is_unrelated(stored: str, incoming: str) -> None:
    assert relation(stored, incoming).kind == "none"


@pytest.mark.parametrize(
    ("text", "new", "old"),
    [
        ("刘洋把监控大盘交给了马丽", "马丽", "刘洋"),
        ("监控大盘从刘洋手里转给了马丽", "马丽", "刘洋"),
        ("马丽从刘洋那里接过了监控大盘", "马丽", "刘洋"),
        ("监控大盘原来是刘洋负责，现在换成马丽了", "马丽", "刘洋"),
        ("Kenji handed the billing service over to Sara.", "sara", "kenji"),
        ("Sara took over the billing service from Kenji.", "sara", "kenji"),
    ],
)
def test_a_handover_naming_both_people_gives_the_new_holder_and_denies_the_old_one(
    text: str, new: str, old: str
) -> None:
    assert [h[2] for h in _holders(text)] == [new]
    assert old in claim_of(text).denied
    stored = "监控大盘由刘洋维护" if "监控" in text else "Kenji owns the billing service."
    assert relation(stored, text).kind == "changed"


@pytest.mark.parametrize(
    ("stored", "denial"),
    [
        ("监控大盘由刘洋维护", "刘洋不再负责监控大盘"),
        ("监控大盘归刘洋管", "监控大盘已经不归刘洋管了"),
        ("Kenji owns the billing service.", "Kenji stopped maintaining the billing service."),
        ("The billing service owner is Kenji", "Kenji is not responsible for the billing service anymore."),
    ],
)
def test_a_denial_alone_ends_the_holder_without_inventing_a_new_one(stored: str, denial: str) -> None:
    assert [h[3] for h in _holders(denial)] == [True]  # one negated reading, no positive one
    assert relation(stored, denial) == Relation("changed", True)
    other = stored.replace("刘洋", "马丽").replace("Kenji", "Sara")
    assert relation(other, denial).kind == "none"  # it denies someone who does not hold the duty


@pytest.mark.parametrize(
    "text",
    [
        "监控大盘换人了，现在是马丽",
        "监控大盘不是刘洋负责了，是马丽",
        "刘洋不再管监控大盘了，马丽接手",
        "Kenji no longer owns the billing service; Sara does.",
        "The billing service isn't Kenji's job anymore, Sara has it now.",
    ],
)
def test_a_clause_without_a_thing_continues_the_thing_before_it(text: str) -> None:
    positive = [h for h in _holders(text) if not h[3]]
    assert [(h[0], h[2]) for h in positive] in ([("监控大盘", "马丽")], [("billingservice", "sara")])


def test_two_duties_contrasted_on_one_thing_keep_their_fine_classes() -> None:
    text = "Ravi writes the runbook and Mei reviews it."
    assert _holders(text) == [("runbook", WRITE, "ravi", False), ("runbook", REVIEW, "mei", False)]
    assert _holders("运维手册的编写是刘洋，审核是马丽") == [
        ("运维手册", WRITE, "刘洋", False),
        ("运维手册", REVIEW, "马丽", False),
    ]
    # one duty said alone is the coarse relation: it does not overrule the contrasted statement
    assert relation(text, "Omar owns the runbook now.").kind == "none"
    assert relation(text, "The runbook moved from Mei to Omar.").kind == "none"


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        ("路由配置由马丽维护", "路由配置"),  # 由 inside 路由 is no marker
        ("代码评审流程换人了，现在是马丽", "代码评审流程"),  # a duty word inside the thing's name
        ("Orion 项目的监控大盘由马丽负责", "监控大盘"),  # the owner qualifier is kept apart
    ],
)
def test_words_inside_a_things_name_stay_part_of_it(text: str, thing: str) -> None:
    assert [h[0] for h in _holders(text)] == [thing]


@pytest.mark.parametrize(
    "text",
    ["审批人是李雷", "The gateway timeout is 30 seconds.", "发布窗口在周五", "The nightly job runs at 2am."],
)
def test_a_statement_without_a_holder_of_a_thing_is_left_to_the_general_parser(text: str) -> None:
    assert _holders(text) == []


def test_a_thing_named_by_its_head_is_the_same_thing() -> None:
    assert relation("Kenji owns the API docs.", "Sara owns the docs now.").kind == "changed"


@pytest.mark.parametrize(
    "chain",
    [
        (
            "负责监控大盘的是刘洋",
            "监控大盘改由马丽负责",
            "马丽把监控大盘交给了周杰",
            "监控大盘又回到刘洋手里了",
        ),
        ("The billing service owner is Kenji", "Kenji no longer owns the billing service; Sara does"),
        ("监控大盘由刘洋维护", "马丽接手了监控大盘", "马丽不再负责监控大盘"),
    ],
)
def test_each_chain_ends_with_its_last_statement_as_the_only_truth(
    tmp_path: Path, chain: tuple[str, ...]
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    mgr = MemoryManager(memory(tmp_path / "mem"), root, MemoryValues.parse(env()), clock=CLOCK)
    look_alikes = ["刘洋也负责数据库备份", "Kenji also owns the search index.", "前端发布由马丽负责"]
    for text in look_alikes:
        mgr.store_fact(text)
    for text in chain:
        mgr.store_fact(text)
    assert sorted(e.content for e in mgr.list_all() if evolve.is_truth(e)) == sorted(
        [chain[-1], *look_alikes]
    )


@pytest.mark.parametrize(
    ("stored", "incoming", "old"),
    [
        ("监控大盘由刘洋维护", "监控大盘的负责人原来是刘洋，现在由马丽负责", "刘洋"),
        (
            "Kenji owns the billing service.",
            "The billing service owner used to be Kenji, now Sara owns it.",
            "kenji",
        ),
    ],
)
def test_a_possessive_beside_another_frame_is_read_with_it(stored: str, incoming: str, old: str) -> None:
    assert relation(stored, incoming) == Relation("changed", True)  # not a duplicate of the stored holder
    assert old in claim_of(incoming).denied
    look_alike = stored.replace("监控大盘", "数据库备份").replace("billing service", "search index")
    assert relation(look_alike, incoming).kind == "none"


@pytest.mark.parametrize(
    "text", ["发布审批人是刘洋", "刘洋管发布审批", "发布由刘洋审批", "发布审批由刘洋负责", "刘洋负责发布"]
)
def test_a_duty_named_after_the_thing_is_the_duty_not_part_of_the_thing(text: str) -> None:
    assert [h[0] for h in _holders(text)] == ["发布"]
    assert relation("发布窗口由刘洋定", text).kind == "none"  # `发布窗口` is another thing
