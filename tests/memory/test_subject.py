"""The subject key table (issue 28): same subject with another value, different subjects, paraphrases, zh/en."""

from __future__ import annotations

import pytest

from paicli.memory.relation import relation
from paicli.memory.subject import Kind, Relation, claim_of, subject_of


def relate(stored: str, incoming: str) -> Kind:
    return relation(stored, incoming).kind


# (stored fact, incoming fact, expected relation)
TABLE: list[tuple[str, str, str]] = [
    # same subject, another value (Chinese)
    ("我们项目用的是 Java 17", "项目升级到 Java 21 了，17 已经不用了", "changed"),
    ("测试环境的端口是 8080", "测试环境端口现在是 9090，之前说的 8080 是旧环境的", "changed"),
    ("数据库用 PostgreSQL 15", "数据库换成 MySQL 8", "changed"),
    ("部署负责人是张三", "部署负责人换成李四", "changed"),
    ("配置文件在 /etc/app.yaml", "配置文件改成 /opt/app/config.yaml", "changed"),
    ("构建工具是 Gradle", "构建工具换成 Maven", "changed"),
    ("后端服务端口号是 3000", "后端服务的端口改成 3001", "changed"),
    ("生产部署目标是 k8s 集群 prod-east", "生产部署目标换成 prod-west", "changed"),
    ("团队约定：分支名用小写", "团队约定：分支名用大写", "changed"),
    ("回答一律用中文", "回答一律用英文", "changed"),
    ("Node 版本是 18", "Node 版本升级到 20", "changed"),
    ("日志目录是 logs/app", "日志目录改为 var/log/app", "changed"),
    ("Redis 端口是 6379", "Redis 端口现在是 6380", "changed"),
    ("主分支叫 master", "主分支改成 main", "changed"),
    ("前端包管理器用 npm", "前端包管理器换成 pnpm", "changed"),
    # same subject, another value (English)
    ("The API port is 8080", "The API port is now 9090", "changed"),
    ("We use Java 17", "We upgraded to Java 21", "changed"),
    ("The build tool is Gradle", "The build tool is Maven now", "changed"),
    ("Python version is 3.10", "Python version is 3.12", "changed"),
    ("The config file is config/dev.yaml", "The config file is config/prod.yaml", "changed"),
    # a correction cue naming the old value, without a new value on the same subject
    ("CI 用 Jenkins", "我们不再用 Jenkins 了", "corrects"),
    ("CI uses Jenkins", "We no longer use Jenkins", "corrects"),
    # paraphrases and re-statements: same subject, same value
    ("测试环境的端口是 8080", "测试环境端口是 8080", "same"),
    ("我们项目用的是 Java 17", "项目用 Java 17", "same"),
    ("构建工具是 Gradle", "我们的构建工具是 Gradle", "same"),
    ("The API port is 8080", "API port is 8080", "same"),
    ("后端服务端口号是 3000", "后端服务的端口是 3000", "same"),
    ("数据库用 PostgreSQL 15", "数据库使用 PostgreSQL 15", "same"),
    # different subjects
    ("项目用 Java 17", "项目用 Python 3.11", "none"),
    ("构建工具是 Gradle", "测试框架是 pytest", "none"),
    ("测试环境端口是 8080", "生产环境端口是 8080", "none"),
    ("Node 版本是 18", "Java 升级到 21，17 已经不用了", "none"),
    ("Redis 端口是 6379", "MySQL 端口是 3306", "none"),
    ("The API port is 8080", "The admin port is 9000", "none"),
    ("部署负责人是张三", "测试负责人是李四", "none"),
    ("配置文件在 /etc/app.yaml", "日志目录是 /var/log/app", "none"),
    ("We use Java 17", "We use Kotlin 1.9", "none"),
    ("CI 用 Jenkins", "我们不再用 Travis 了", "none"),
    ("回答一律用中文", "代码注释用英文", "none"),
    # no subject at all: nothing to relate
    ("每次发布前跑三遍测试", "每次发布前跑五遍测试", "none"),
    ("喜欢简洁的回答", "讨厌冗长的解释", "none"),
    ("记得先跑测试", "项目用 Java 17", "none"),
]


@pytest.mark.parametrize(("stored", "incoming", "expected"), TABLE)
def test_relation_table(stored: str, incoming: str, expected: str) -> None:
    assert relate(stored, incoming) == expected


def test_table_is_large_enough() -> None:
    assert len(TABLE) >= 40
    assert {kind for _, _, kind in TABLE} == {"changed", "corrects", "same", "none"}


def test_subject_and_value_of_a_statement() -> None:
    subject = subject_of("我们项目用的是 Java 17")
    assert subject is not None and subject.render() == "java"
    assert claim_of("我们项目用的是 Java 17").readings[0].value == "17"
    assert claim_of("测试环境端口现在是 9090，之前说的 8080 是旧环境的").readings[0].value == "9090"


# Each local rule of issue 37, on the issue's own shapes (the eval's held-out phrasings are not used here).
@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("部署环境在 AWS 东京区", "部署环境不在 AWS 东京区"),
        ("CI 跑在 GitHub Actions 上", "CI 不跑在 GitHub Actions 上"),
        ("缩进用 4 个空格", "缩进不用 4 个空格，用 tab"),
        ("The build tool is Maven", "The build tool is not Maven"),
    ],
)
def test_a_negation_changes_the_value_and_never_confirms_it(stored: str, incoming: str) -> None:
    assert relation(stored, incoming) == Relation("changed", True)


def test_a_negation_with_a_replacement_states_the_new_value() -> None:
    claim = claim_of("缩进不用 4 个空格，用 tab")
    assert claim.readings[0].value == "tab" and not claim.readings[0].negated
    assert "4个空格" in claim.denied


@pytest.mark.parametrize(
    ("stored", "incoming", "expected"),
    [
        ("backend JDK version 是 21", "The backend JDK version is 21 now.", "same"),
        ("release approver 是周敏", "The release approver is 李娜 now", "changed"),
        ("连接池大小是 20", "pool size 20", "none"),  # no shared subject words across languages
    ],
)
def test_values_compare_the_same_in_either_language_frame(stored: str, incoming: str, expected: str) -> None:
    assert relate(stored, incoming) == expected


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("数据库连接池大小是 20", "连接池调到 40 了"),
        ("The default branch is main", "The branch is trunk now."),
        ("发布审批人是李娜", "审批人换成周敏了"),
    ],
)
def test_a_subject_that_holds_the_other_matches_with_less_certainty(stored: str, incoming: str) -> None:
    assert relation(stored, incoming) == Relation("changed", False)


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [("连接池调到 40 了", "连接池现在是 32"), ("发布审批人是李娜", "发布审批人现在是周敏")],
)
def test_a_correction_that_names_only_the_new_value_changes_it(stored: str, incoming: str) -> None:
    assert relate(stored, incoming) == "changed"


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("The build tool is Maven", "We moved off Maven last sprint, it's Gradle now."),
        ("The backend is on JDK 17", "The backend is on JDK 21 now, we dropped 17."),
        ("发布审批人是李娜", "发布审批人还是周敏，李娜那条作废"),
    ],
)
def test_old_value_wording_is_read_by_grammar(stored: str, incoming: str) -> None:
    assert relate(stored, incoming) in (
        "changed",
        "corrects",
    )  # corrects: no subject of its own, names the old


def test_again_is_not_glued_into_the_value() -> None:
    assert claim_of("The default branch is main again.").readings[0].value == "main"
    assert relate("The default branch is main", "The default branch is main again.") == "same"
    assert relate("默认分支是 trunk", "默认分支又是 main 了") == "changed"


def test_another_components_subject_is_a_different_subject() -> None:
    assert relation("移动端的发布审批人是李娜", "发布审批人是周敏") == Relation("none", True)
    assert (
        relate("For the data team, the release approver is Li Na.", "The release approver is Zhou Min.")
        == "none"
    )
    assert (
        relate("The default branch of the Hermes project is develop", "The default branch is main") == "none"
    )


def test_a_value_first_sentence_is_read_both_ways() -> None:
    assert (
        relate("The production region is AWS Tokyo", "AWS Singapore is our production region.") == "changed"
    )
    assert relate("发布审批人是李娜", "李娜已经不是发布审批人了") == "changed"


def test_a_part_of_a_stored_fact_is_no_duplicate_of_it() -> None:
    assert relate("仓库的主语言是 Kotlin，构建工具是 Gradle", "构建工具是 Gradle") == "none"
    assert relate("构建工具是 Gradle", "仓库的主语言是 Kotlin，构建工具是 Gradle") == "none"
    assert relate("仓库的主语言是 Kotlin，构建工具是 Gradle", "构建工具换成 Maven") == "changed"


def test_a_statement_without_a_predicate_has_no_claim() -> None:
    assert claim_of("每次发布前跑三遍测试").readings == ()
    assert relation("每次发布前跑三遍测试", "每次发布前跑五遍测试") == Relation("none", False)


def test_a_clock_time_is_one_value_not_a_key_and_a_value() -> None:
    assert relate("每周例会在 9:30", "每周例会改到 10:00 了") == "changed"
    assert relate("Standup is at 9:30", "Standup is at 9:30.") == "same"
    assert [r.value for r in claim_of("会议时间是 9:30").readings] == ["9:30"]
    assert [r.value for r in claim_of("端口:8080").readings] == ["8080"]  # a key and a value still


def test_the_copular_verbs_of_english_link_a_subject_to_its_value() -> None:
    assert relate("The deploy target is eu-west-1", "The deploy target remains eu-west-1") == "same"
    assert relate("The deploy target is eu-west-1", "The deploy target became us-east-2") == "changed"


@pytest.mark.parametrize(
    ("text", "subject", "value"),
    [
        ("Switched the backend build tool to Gradle.", "backend build tool", "gradle"),
        ("Reverted the release approver to Zhou Min", "release approver", "zhoumin"),
        ("switched release approver to 王强 了", "release approver", "王强"),
    ],
)
def test_a_sentence_that_opens_with_its_verb_has_the_object_as_subject(
    text: str, subject: str, value: str
) -> None:
    """No subject before the verb (a note in the speaker's own voice): the verb's object is the subject and the
    target preposition introduces the value."""
    reading = claim_of(text).readings[0]
    assert reading.subject is not None and reading.subject.render() == subject
    assert reading.value == value and not reading.negated


def test_a_sentence_that_opens_with_its_verb_names_the_old_value_after_from() -> None:
    claim = claim_of("Moved the default branch from main to trunk.")
    assert claim.readings[0].value == "trunk" and "main" in claim.denied
    assert (
        relation("The default branch is main.", "Moved the default branch from main to trunk.").kind
        == "changed"
    )


def test_a_sentence_that_opens_with_a_verb_but_has_no_target_states_nothing() -> None:
    assert not claim_of("Fixed the bug in the parser.").parsed


@pytest.mark.parametrize(
    ("text", "negated"),
    [("Jenkins is used for the CI.", False), ("Jenkins is no longer used for the CI.", True)],
)
def test_a_passive_sentence_gives_its_grammatical_subject_as_the_value(text: str, negated: bool) -> None:
    reading = claim_of(text).readings[0]
    assert reading.subject is not None and reading.subject.render() == "ci"
    assert (reading.value, reading.negated) == ("jenkins", negated)
    assert relation("The CI runs on Jenkins.", text).kind == ("changed" if negated else "same")


@pytest.mark.parametrize(
    "text", ["The staging database stopped using MySQL.", "We stopped using MySQL for the staging database."]
)
def test_a_verb_of_ceasing_denies_the_value_after_it(text: str) -> None:
    reading = claim_of(text).readings[0]
    assert reading.subject is not None and reading.subject.render() == "staging database"
    assert (reading.value, reading.negated) == ("mysql", True)
    assert relation("The staging database is MySQL.", text).kind == "changed"


def test_the_agent_of_a_replacement_is_the_new_value() -> None:
    text = "Gradle has been replaced by Bazel as the backend build tool."
    claim = claim_of(text)
    assert (
        claim.readings[0].subject is not None and claim.readings[0].subject.render() == "backend build tool"
    )
    assert claim.readings[0].value == "bazel" and "gradle" in claim.denied
    assert relation("The backend build tool is Gradle.", text) == Relation("changed", True)


def test_a_denial_without_a_verb_names_its_subject_after_for() -> None:
    reading = claim_of("No longer Jenkins for the CI.").readings[0]
    assert reading.subject is not None and reading.subject.render() == "ci"
    assert (reading.value, reading.negated) == ("jenkins", True)
    assert relation("The CI is Jenkins.", "No longer Jenkins for the CI.").kind == "changed"


@pytest.mark.parametrize(
    "text",
    ["We're not using MySQL for the staging database.", "The staging database has stopped being MySQL."],
)
def test_a_progressive_or_perfect_verb_is_no_part_of_the_denied_value(text: str) -> None:
    reading = claim_of(text).readings[0]
    assert reading.subject is not None and reading.subject.render() == "staging database"
    assert (reading.value, reading.negated) == ("mysql", True)
    assert relation("The staging database is MySQL.", text) == Relation("changed", True)
