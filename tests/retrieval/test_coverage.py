"""The keyword tier with the local index is the share of the question a memory holds (`memory/coverage.py`):
a query term is held in any of its forms (identifier part, stem, concept), and terms naming one concept count
once. These cases lost their place to a big store's copies when only literal substrings counted (issue 37)."""

from __future__ import annotations

from datetime import timedelta, timezone

from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.memory.coverage import units
from paicli.memory.entry import MemoryEntry
from paicli.memory.retriever import MemoryRetriever
from tests.memory.helpers import NOW, entry
from tests.retrieval.fakes import ListStore

COMPONENTS = ["网关", "报表模块", "用户中心", "结算模块", "风控服务", "消息中心"]


def _fact(text: str, entry_id: str, project: str | None = "/repo") -> MemoryEntry:
    scope = "project" if project else "global"
    return entry(text, scope, project, entry_id=entry_id, when=NOW - timedelta(days=3))


def _ranked(entries: list[MemoryEntry], query: str, vector: bool = True) -> list[str]:
    env = EnvLookup(environ={"PAICLI_MEMORY_VECTOR": "on" if vector else "off"})
    retriever = MemoryRetriever(
        ListStore(entries), MemoryValues.parse(env), clock=lambda: NOW, zone=timezone.utc
    )
    return [item.entry.id for item in retriever.rank(query, entries, NOW, "/repo")]


def _copies(value: str) -> list[MemoryEntry]:
    """Other facts of this project's components and other projects' global facts, each with `value` swapped in."""
    own = [_fact(f"{name}的缓存用 {value}，默认过期 9 分钟", f"c{i}") for i, name in enumerate(COMPONENTS)]
    return own + [_fact(f"样式用 Tailwind {value}，不要写 less 文件 {i}", f"g{i}", None) for i in range(6)]


def test_a_word_inside_a_code_identifier_is_held() -> None:
    entries = [
        *_copies("user"),
        *_copies("email"),
        _fact("UserRepository.findByEmail 对邮箱做了小写归一化", "fact"),
    ]
    assert _ranked(entries, "user repository email lookup")[0] == "fact"


def test_an_english_question_meets_the_chinese_memory_before_copies_holding_one_of_its_words() -> None:
    entries = [*_copies("application"), _fact("应用日志在 Loki 里保留 14 天", "fact")]
    ranked = _ranked(entries, "How long are application logs kept")
    assert ranked[0] == "fact"
    assert _ranked(entries, "How long are application logs kept", vector=False)[0] != "fact"  # the reference


def test_a_stem_holds_the_term() -> None:
    entries = [*_copies("fixtures"), _fact("Python 测试用 pytest，新测试优先用 fixture", "fact")]
    assert _ranked(entries, "running tests with fixtures")[0] == "fact"


def test_terms_of_one_concept_count_once() -> None:
    assert units({"web", "frontend", "testing", "end"}) == [["end"], ["frontend", "web"], ["testing"]]
    entries = [
        _fact("前端用 pnpm 管理依赖", "frontend"),  # holds web and frontend: one concept
        _fact("端到端测试用 Playwright，跑 pnpm test:e2e", "e2e"),  # holds testing, and is closer in meaning
    ]
    assert _ranked(entries, "end to end testing for the web frontend")[0] == "e2e"


def test_an_ascii_term_inside_a_longer_word_is_not_held() -> None:
    entries = [_fact("用户平时用 IntelliJ IDEA", "ide"), _fact("讲笑话时 tell jokes plainly", "joke")]
    assert _ranked(entries, "tell me") == ["joke"]


def test_on_a_tie_this_projects_statement_comes_before_its_components_and_those_before_other_projects() -> (
    None
):
    entries = [
        _fact("网关的回复里不要使用 helm", "gateway"),
        _fact("报表模块的样式用 helm，不要写 less 文件", "reports"),
        _fact("回复里不要使用 helm", "elsewhere", None),
        _fact("回滚用 helm rollback，不要手动改 Deployment，也不要改 Service 和 ConfigMap", "ours"),
    ]
    ranked = _ranked(entries, "helm 的用法")
    assert ranked[0] == "ours"
    assert set(ranked[1:3]) == {"gateway", "reports"} and ranked[3] == "elsewhere"
    # a question that names the component is about it
    assert _ranked(entries, "网关 helm")[0] == "gateway"


def test_another_projects_fact_holds_the_question_only_in_its_words() -> None:
    entries = [
        _fact("For the Pavo-200 project, the code indentation uses tabs.", "stem", None),
        _fact("For the Vega-5 project, 主数据库是 TiDB", "concept", None),
        _fact("Going forward, the CI will be GitLab CI.", "ours"),
    ]
    # `uses` is `use` only by its stem, `数据库` is `database` only by its concept: not for another project
    assert _ranked(entries, "Which CI platform do we use?")[0] == "ours"
    assert _ranked([*entries, _fact("主数据库是 TiDB", "mine")], "which database")[0] == "mine"
