"""Issue 37 (memneg): a negation that ends a chain leaves no stale truth, and its look-alikes leave the truth
alone. Each rule is proven through the store's own write path, beside a look-alike that must stay. Subjects and
values are my own, not the eval's nor any trial's."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from paicli.memory import evolve
from paicli.memory.denial import denies, names_value, states_nothing
from paicli.memory.relation import relation, subjectless_denial
from paicli.memory.subject import claim_of

from .helpers import NOW, entry, memory

PROJECT = "/work/negation-demo"


def _truths(tmp_path: Path, chain: list[str]) -> list[str]:
    """Writes the statements in order (one second apart, as /save would) and returns the live truths."""
    store = memory(tmp_path / "memory")
    for step, text in enumerate(chain):
        store.write(entry(text, "project", PROJECT, when=NOW + timedelta(seconds=step)))
    return [e.content for e in store.get_all(PROJECT) if evolve.is_truth(e)]


# --- a denial read at the stored value's own place -----------------------------------------------------------


@pytest.mark.parametrize(
    "denial",
    [
        "We got rid of Pulsar.",
        "We turned Pulsar off.",
        "Pulsar got decommissioned.",
        "Pulsar 那套已经撤了",
        "event bus 已经 drop 掉 Pulsar 了",
    ],
)
def test_a_denial_naming_only_the_current_value_retires_it(tmp_path: Path, denial: str) -> None:
    chain = ["The event bus is NATS.", "The event bus moved to Pulsar.", denial]
    assert _truths(tmp_path, chain) == [denial]


def test_a_subjectless_denial_leaves_another_projects_fact_on_that_value(tmp_path: Path) -> None:
    chain = [
        "For the Vela project, the event bus is Pulsar.",
        "The event bus is Pulsar.",
        "We got rid of Pulsar.",
    ]
    assert _truths(tmp_path, chain) == [chain[0], chain[2]]


@pytest.mark.parametrize(
    ("text", "value", "denied"),
    [
        ("We turned Pulsar off.", "pulsar", True),
        ("We use Pulsar for the event bus, not NATS.", "pulsar", False),  # the contrast's other side
        ("We use Pulsar for the event bus, not NATS.", "nats", True),
        ("The event bus is no longer NATS but Pulsar.", "pulsar", False),  # `but` affirms what follows it
        ("The event bus runs Pulsar instead of NATS.", "pulsar", False),
        ("If we ever drop Pulsar, the bus would be NATS.", "pulsar", False),  # supposed, not stated
        ("Isn't Pulsar the event bus?", "pulsar", False),
    ],
)
def test_a_value_is_denied_only_by_its_own_clause(text: str, value: str, denied: bool) -> None:
    assert denies(text, value) is denied


def test_a_reading_of_the_same_value_whose_clause_denies_it_is_a_change_not_a_confirmation() -> None:
    stored = "The event bus moved to Pulsar."
    assert relation(stored, "Pulsar has been turned off for the event bus.").kind == "changed"
    assert relation("事件总线换到 Pulsar 了", "事件总线已经关掉了Pulsar").kind == "changed"
    assert relation(stored, "We use Pulsar for the event bus, not NATS.").kind == "same"


# --- questions, conditions, other components, values never held ---------------------------------------------


@pytest.mark.parametrize(
    "aside",
    [
        "Isn't the event bus on Pulsar anymore?",
        "If we ever drop Pulsar, the event bus would be NATS.",
        "事件总线是不是不用 Pulsar 了？",
        "The event bus of the billing service is not Pulsar.",
        "The event bus is not Kafka.",
    ],
)
def test_a_look_alike_of_a_denial_leaves_the_truth(tmp_path: Path, aside: str) -> None:
    chain = ["The event bus is NATS.", "The event bus moved to Pulsar.", aside]
    assert "The event bus moved to Pulsar." in _truths(tmp_path, chain)


def test_a_question_or_a_condition_states_nothing_but_a_plain_denial_does() -> None:
    assert states_nothing("Isn't the event bus on Pulsar anymore?")
    assert states_nothing("要是 Pulsar 再出问题，就换掉它")
    assert not states_nothing("The event bus is not on Pulsar anymore.")


def test_a_denial_of_an_older_value_resurrects_nothing(tmp_path: Path) -> None:
    chain = ["The event bus is NATS.", "The event bus moved to Pulsar.", "We got rid of NATS."]
    truths = _truths(tmp_path, chain)
    assert "The event bus moved to Pulsar." in truths
    assert "The event bus is NATS." not in truths


# --- a subjectless denial is about the fact it retired ---------------------------------------------------------


def test_a_later_value_for_the_subject_replaces_a_subjectless_denial(tmp_path: Path) -> None:
    chain = ["The event bus is NATS.", "NATS is gone.", "The event bus is Pulsar now."]
    assert _truths(tmp_path, chain) == [chain[2]]


def test_another_projects_value_leaves_a_subjectless_denial(tmp_path: Path) -> None:
    chain = ["The event bus is NATS.", "NATS is gone.", "For the Vela project, the event bus is Pulsar."]
    assert _truths(tmp_path, chain) == chain[1:]


def test_a_denial_with_a_subject_of_its_own_is_not_subjectless() -> None:
    assert subjectless_denial("We got rid of Pulsar.")
    assert subjectless_denial("Pulsar 已经下线了")
    assert not subjectless_denial("The event bus is not Pulsar.")
    assert not subjectless_denial("The event bus is Pulsar.")


# --- verb-phrase subjects --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "denial",
    [
        "We've stopped shipping releases through Fastlane.",
        "We don't ship releases through Fastlane anymore.",
        "我们不再 ship releases through Fastlane",
    ],
)
def test_a_denial_of_a_doing_retires_the_doing_stated_with_its_verb(tmp_path: Path, denial: str) -> None:
    chain = ["We ship releases through Codemagic.", "We ship releases through Fastlane now.", denial]
    assert _truths(tmp_path, chain) == [denial]


def test_a_gerund_after_a_verb_of_ceasing_reads_as_the_doing_denied() -> None:
    reading = claim_of("We've stopped shipping releases through Fastlane.").readings[0]
    stated = claim_of("We ship releases through Fastlane.").readings[0]
    assert reading.subject == stated.subject
    assert (reading.value, reading.negated) == ("fastlane", True)
    switched = claim_of("We switched to shipping releases through Codemagic.").readings[0]
    assert (switched.subject, switched.value, switched.negated) == (stated.subject, "codemagic", False)


def test_another_teams_denial_of_the_doing_leaves_ours(tmp_path: Path) -> None:
    chain = ["We ship releases through Fastlane.", "The desktop team doesn't ship releases through Fastlane."]
    assert "We ship releases through Fastlane." in _truths(tmp_path, chain)


def test_a_chinese_means_before_a_verb_names_the_doing_as_the_subject(tmp_path: Path) -> None:
    reading = claim_of("我们不再用 Fastlane 发版了").readings[0]
    assert reading.subject is not None and reading.subject.render() == "发版"
    assert (reading.value, reading.negated) == ("fastlane", True)
    chain = ["我们用 Codemagic 发版", "桌面端团队用 Codemagic 发版", "现在我们用 Fastlane 发版了"]
    assert _truths(tmp_path, chain) == chain[1:]  # the other team's fact stays


# --- a return supersedes the current truth ---------------------------------------------------------------------


def test_a_return_glued_to_its_verb_supersedes_the_current_truth(tmp_path: Path) -> None:
    chain = ["我们用 Codemagic 发版", "发版改用 Fastlane 了", "发版又改回用Codemagic了"]
    assert _truths(tmp_path, chain) == [chain[2]]


def test_a_gerund_whose_verb_doubles_its_last_consonant_meets_the_plain_verb(tmp_path: Path) -> None:
    denial = "We've stopped formatting code with Ruff."
    chain = ["We format code with Black.", "We format code with Ruff now.", denial]
    assert _truths(tmp_path, chain) == [denial]


def test_a_verb_whose_own_last_consonant_is_doubled_keeps_it() -> None:
    from paicli.memory.claim_verbs import stem

    assert [stem(w) for w in ("adding", "buzzing", "installing", "passing")] == [
        "add",
        "buzz",
        "install",
        "pass",
    ]
    assert stem("formatting") == stem("format") and stem("committing") == stem("commit")


def test_a_linking_verb_with_an_object_and_its_means_names_a_doing(tmp_path: Path) -> None:
    denial = "We've stopped running the tests with pytest."
    chain = ["We run the tests with nose2.", "We run the tests with pytest now.", denial]
    assert _truths(tmp_path, chain) == [denial]


def test_a_linking_verb_before_its_value_still_links(tmp_path: Path) -> None:
    chain = ["The CI runs on Jenkins.", "The CI runs on GitLab now."]
    assert _truths(tmp_path, chain) == [chain[1]]
    chain = ["We use the Redis cluster for caching.", "We use the Memcached cluster for sessions."]
    assert _truths(tmp_path / "b", chain) == chain  # two things, neither read as a doing with a means


# --- a denial that names the value in part, or the subject in another shape (memneg2) --------------------------


@pytest.mark.parametrize(
    ("chain", "kept"),
    [
        # the name among the value's words: the truth goes, the denial alone stays
        (["The search engine is Solr.", "The search engine moved to OpenSearch 2.11.",
          "We no longer use OpenSearch for the search engine."], []),
        (["搜索引擎是 Solr", "搜索引擎换成了 OpenSearch 2", "搜索引擎不再用 OpenSearch 了"], []),
        # twin: another version of the same product is no part of the value
        (["The search engine is OpenSearch 1.3.", "The search engine was upgraded to OpenSearch 2.11.",
          "We no longer run OpenSearch 1.3 anywhere."], ["The search engine was upgraded to OpenSearch 2.11."]),
        # twin: a part the old value had and the current one lacks
        (["Build logs go to the #ci room on Zulip.", "Build logs now go to the #builds room on Zulip.",
          "The #ci room is not used anymore."], ["Build logs now go to the #builds room on Zulip."]),
    ],
)  # fmt: skip
def test_a_denial_naming_the_value_in_part_retires_it_but_not_another_version(
    tmp_path: Path, chain: list[str], kept: list[str]
) -> None:
    assert _truths(tmp_path, chain) == [*kept, chain[-1]]


@pytest.mark.parametrize(
    ("chain", "kept"),
    [
        # passive statement, denial with the value as its subject and the stored subject after `for`
        (["Invoices are rendered with wkhtmltopdf.", "Invoices are rendered with Gotenberg now.",
          "Gotenberg isn't used for invoices any more."], []),
        (["Invoices are rendered with wkhtmltopdf.", "Invoices are rendered with Gotenberg now.",
          "Gotenberg isn't used for the reports."], ["Invoices are rendered with Gotenberg now."]),
        # a verb and its gerund; a lexical verb and a copula
        (["We compress assets with gzip.", "We compress assets with Brotli now.",
          "Brotli isn't used for compressing assets anymore."], []),
        (["Build logs go to the #ci room on Zulip.", "Build logs now go to the #builds room on Matrix.",
          "Build logs aren't on Matrix any more."], []),
        (["Nightly exports are triggered by cron.", "Nightly exports are triggered by Temporal now.",
          "We stopped triggering nightly exports with Temporal."], []),
        # Chinese: the value first, the subject after the word of purpose
        (["安装包用 NSIS 打包", "安装包现在用 WiX 打包", "WiX 已经不用来打包安装包了"], []),
        # twins: a denial of another subject that shares the value
        (["The session store is Memcached.", "The session store moved to Valkey.",
          "We don't use Valkey for rate limiting."], ["The session store moved to Valkey."]),
        (["会话存储用 Memcached", "会话存储改成 Valkey 了", "限流不用 Valkey"], ["会话存储改成 Valkey 了"]),
    ],
)  # fmt: skip
def test_a_denial_naming_the_subject_in_another_shape_retires_only_that_subjects_value(
    tmp_path: Path, chain: list[str], kept: list[str]
) -> None:
    assert _truths(tmp_path, chain) == [*kept, chain[-1]]


@pytest.mark.parametrize(
    ("stored", "value", "denied", "named"),
    [
        ("CI moved to Buildkite agents.", "buildkiteagents", "buildkite", True),
        ("告警改发到飞书值班群", "飞书值班群", "飞书", True),  # segmented apart, still one name
        ("The DB is Postgres 16.", "postgres16", "postgres14", False),  # another version
        ("CI moved to Buildkite agents.", "buildkiteagents", "buildkiteage", False),  # not a whole word
        ("Logs go to the #ops room on Slack.", "opsroomonslack", "on", False),  # a generic word is no name
        ("部署在杭州机房", "杭州机房", "杭", False),  # nor one Chinese character
    ],
)
def test_a_value_is_named_by_a_run_of_its_whole_words_that_carries_a_name(
    stored: str, value: str, denied: str, named: bool
) -> None:
    assert names_value(stored, value, denied) is named


def test_a_stored_fact_the_parser_cannot_read_is_retired_only_when_the_denial_says_all_of_it(
    tmp_path: Path,
) -> None:
    ours = ["Nightly exports are triggered by cron.", "Nightly exports are triggered by Temporal now."]
    denial = "We stopped triggering nightly exports with Temporal."
    assert _truths(tmp_path / "ours", [*ours, denial]) == [denial]
    # twin: another project's fact on that value keeps its words (`Lyra`) out of the denial and stays
    theirs = "The Lyra project packages the app with Podman."
    chain = [theirs, "We package the app with Buildah.", "From this sprint we package the app with Podman."]
    denial = "We no longer package the app with Podman."
    assert _truths(tmp_path / "theirs", [*chain, denial]) == [theirs, denial]


@pytest.mark.parametrize(
    "chain",
    [
        ["The Draco project signs commits with GPG.", "We sign commits with Sigstore.",
         "We sign commits with GPG now.", "We quit signing commits with GPG last month."],
        ["Lyra 项目用 Podman 打包", "我们用 Buildah 打包", "现在我们用 Podman 打包了", "我们没在用 Podman 打包了"],
    ],
)  # fmt: skip
def test_a_denial_meeting_facts_on_two_subjects_retires_the_one_whose_subject_it_names(
    tmp_path: Path, chain: list[str]
) -> None:
    # the other project's fact shares the value, keeps a word of its own (`Draco`, `Lyra`) and stays
    assert _truths(tmp_path, chain) == [chain[0], chain[-1]]


@pytest.mark.parametrize(
    ("denial", "retires"),
    [
        ("测试组不用 Tilt 部署", False),  # another team's doing: our truth stays
        ("The QA team doesn't deploy with Tilt.", False),
        ("部署已经不用 Tilt 了", True),  # the same doing, named as a noun: retired
        ("We've stopped deploying with Tilt.", True),
    ],
)
def test_a_denial_for_a_subject_the_truth_does_not_tell_is_about_another_thing(
    tmp_path: Path, denial: str, retires: bool
) -> None:
    current = "现在我们用 Tilt 部署了" if not denial.isascii() else "We switched to deploying with Tilt."
    first = "我们用 Skaffold 部署" if not denial.isascii() else "We deploy with Skaffold."
    truths = _truths(tmp_path, [first, current, denial])
    assert (current not in truths) is retires
    assert denial in truths
