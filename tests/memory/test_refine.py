"""The judge's second look after the local verdict (issue 37): /save and save_memory return at once, the judge
refines off the caller's thread; a lying, malformed or silent judge leaves the local verdict standing."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

from paicli.config.run_values import MemoryValues
from paicli.memory import evolve
from paicli.memory.judge import parse_request
from paicli.memory.manager import MemoryManager
from paicli.memory.results import WriteStatus
from paicli.testing.scripted_llm import Request, ScriptedLLM

from .helpers import CLOCK, env, memory

Relations = Callable[[str, list[tuple[str, str]]], list[dict[str, str]]]


def judge_llm(decide: Relations) -> ScriptedLLM:
    """A loopback light model that answers the judge's protocol with `decide(new, candidates)`."""

    def reply(request: Request) -> str:
        parsed = parse_request(request.messages[-1].text)
        assert parsed is not None, "only judge requests are expected here"
        return json.dumps({"relations": decide(*parsed)}, ensure_ascii=False)

    llm = ScriptedLLM()
    llm.default_reply = reply
    return llm


def manager(tmp_path: Path, llm: ScriptedLLM | None, notices: list[str] | None = None) -> MemoryManager:
    root = tmp_path / "repo"
    root.mkdir(exist_ok=True)
    mgr = MemoryManager(
        memory(tmp_path / "mem"),
        root,
        MemoryValues.parse(env()),
        clock=CLOCK,
        on_notice=notices.append if notices is not None else None,
    )
    if llm is not None:
        mgr.use_judge(llm)
    return mgr


def truths(mgr: MemoryManager) -> list[str]:
    return sorted(e.content for e in mgr.list_all() if evolve.is_truth(e))


def test_the_judge_adds_a_supersession_the_parser_could_not_read(tmp_path: Path) -> None:
    def oracle(new: str, candidates: list[tuple[str, str]]) -> list[dict[str, str]]:
        return [{"id": label, "relation": "updates", "old": "李娜", "new": "周敏"} for label, _ in candidates]

    notices: list[str] = []
    mgr = manager(tmp_path, judge_llm(oracle), notices)
    mgr.store_fact("发布审批人是李娜")
    stored = mgr.store_fact("发布审批的事李娜不干了，周敏顶上")
    assert stored.status is WriteStatus.STORED  # the local verdict, at once
    assert mgr.wait_background(30)
    assert truths(mgr) == ["发布审批的事李娜不干了，周敏顶上"]
    assert len(notices) == 1 and "复核后" in notices[0] and "发布审批人是李娜" in notices[0]


def test_without_a_judge_the_local_verdict_stands(tmp_path: Path) -> None:
    mgr = manager(tmp_path, None)
    mgr.store_fact("发布审批人是李娜")
    mgr.store_fact("发布审批的事李娜不干了，周敏顶上")
    assert mgr.wait_background(1)
    assert truths(mgr) == ["发布审批人是李娜", "发布审批的事李娜不干了，周敏顶上"]


def test_a_silent_judge_changes_nothing(tmp_path: Path) -> None:
    llm = ScriptedLLM()
    llm.default_reply = "好的。"
    notices: list[str] = []
    mgr = manager(tmp_path, llm, notices)
    mgr.store_fact("发布审批人是李娜")
    mgr.store_fact("发布审批的事李娜不干了，周敏顶上")
    assert mgr.wait_background(30)
    assert llm.calls == 1 and notices == []
    assert truths(mgr) == ["发布审批人是李娜", "发布审批的事李娜不干了，周敏顶上"]


def test_a_lying_judge_cannot_touch_what_the_parser_is_sure_of(tmp_path: Path) -> None:
    def liar(new: str, candidates: list[tuple[str, str]]) -> list[dict[str, str]]:
        return [{"id": label, "relation": "unrelated"} for label, _ in candidates]

    mgr = manager(tmp_path, judge_llm(liar))
    mgr.store_fact("部署环境在 AWS 东京区")
    result = mgr.store_fact("部署环境不在 AWS 东京区")  # a certain negation: the judge is not even asked
    assert result.status is WriteStatus.SUPERSEDED and mgr.wait_background(30)
    assert truths(mgr) == ["部署环境不在 AWS 东京区"]


def test_a_judge_that_calls_an_unsure_supersession_unrelated_undoes_it(tmp_path: Path) -> None:
    def unrelated(new: str, candidates: list[tuple[str, str]]) -> list[dict[str, str]]:
        return [{"id": label, "relation": "unrelated"} for label, _ in candidates]

    notices: list[str] = []
    mgr = manager(tmp_path, judge_llm(unrelated), notices)
    mgr.store_fact("数据库连接池大小是 20")
    result = mgr.store_fact("连接池调到 40 了")  # the shorter subject: superseded, but not for sure
    assert result.status is WriteStatus.SUPERSEDED and mgr.wait_background(30)
    assert truths(mgr) == ["数据库连接池大小是 20", "连接池调到 40 了"]
    old = next(e for e in mgr.list_all() if e.content == "数据库连接池大小是 20")
    assert evolve.SUPERSEDED_BY not in old.metadata
    assert any("已恢复" in n for n in notices)


def test_a_contradiction_nothing_settled_becomes_pending(tmp_path: Path) -> None:
    def contradicts(new: str, candidates: list[tuple[str, str]]) -> list[dict[str, str]]:
        return [
            {"id": label, "relation": "contradicts", "old": "30 天", "new": "90 天"}
            for label, _ in candidates
        ]

    mgr = manager(tmp_path, judge_llm(contradicts))
    mgr.store_fact("日志保留 30 天")
    mgr.store_fact("日志现在留 90 天")
    assert mgr.wait_background(30)
    new = next(e for e in mgr.list_all() if e.content == "日志现在留 90 天")
    assert evolve.is_conflict_pending(new) and truths(mgr) == ["日志保留 30 天"]


def test_a_judge_answer_with_unverifiable_spans_falls_back(tmp_path: Path) -> None:
    def made_up(new: str, candidates: list[tuple[str, str]]) -> list[dict[str, str]]:
        return [{"id": label, "relation": "updates", "old": "王五", "new": "赵六"} for label, _ in candidates]

    mgr = manager(tmp_path, judge_llm(made_up))
    mgr.store_fact("发布审批人是李娜")
    mgr.store_fact("发布审批的事李娜不干了，周敏顶上")
    assert mgr.wait_background(30)
    assert truths(mgr) == ["发布审批人是李娜", "发布审批的事李娜不干了，周敏顶上"]


def test_a_save_returns_before_the_judge_answers(tmp_path: Path) -> None:
    asked, release = threading.Event(), threading.Event()

    def slow(request: Request) -> str:
        asked.set()
        assert release.wait(30), "the test never released the judge"
        return "好的。"

    llm = ScriptedLLM()
    llm.default_reply = slow
    mgr = manager(tmp_path, llm)
    mgr.store_fact("发布审批人是李娜")
    result = mgr.store_fact("发布审批的事李娜不干了，周敏顶上")
    assert result.status is WriteStatus.STORED and asked.wait(30)  # returned while the judge is still asked
    assert mgr.background_pending == 1 and not mgr.wait_background(0.01)
    release.set()
    assert mgr.wait_background(30) and mgr.background_pending == 0


def test_extraction_is_refined_in_line(tmp_path: Path) -> None:
    class Quotes:
        def extract(self, text: str, corrects: Callable[[str], bool] | None = None) -> list[str]:
            return [text]

    def oracle(new: str, candidates: list[tuple[str, str]]) -> list[dict[str, str]]:
        return [{"id": label, "relation": "updates", "old": "李娜", "new": "周敏"} for label, _ in candidates]

    mgr = manager(tmp_path, judge_llm(oracle))
    mgr.extractor = Quotes()
    mgr.auto_extract_enabled = True
    mgr.store_fact("发布审批人是李娜")
    assert mgr.wait_background(30)
    mgr.extract_facts_from_user_turn("发布审批的事李娜不干了，周敏顶上")
    assert mgr.background_pending == 0  # nothing queued: it ran on the extraction worker's own thread
    assert truths(mgr) == ["发布审批的事李娜不干了，周敏顶上"]
