"""Copies in a big store that the look-alike rules missed (issue 37): short sentences repeated with other values
or said of a component, and another project's copy kept while this project's own statement ranked further down."""

from __future__ import annotations

from paicli.memory.lookalikes import look_alike, shape, spread_classes


def _alike(left: str, right: str) -> bool:
    return look_alike(shape(left), shape(right))


def test_a_short_sentence_is_a_look_alike_of_its_copies_only() -> None:
    assert _alike("PR 合并方式是 squash merge", "PR 合并方式是 rebase cdn")  # other values
    assert _alike("端到端测试用 Playwright，跑 pnpm test:e2e", "网关的端到端测试用 Cypress，跑 pnpm test:e7e")
    assert not _alike("后端用 Java", "前端用 Java")  # another subject
    assert not _alike("端到端测试用 Playwright", "网关端到端测试用 Playwright 和别的")  # not said of an owner
    assert not _alike("用 Java", "用 Go")  # too short to be anything's copy
    assert not _alike("测试用 JSON 样例", "测试用的 JSON 样例")  # an owner needs a name before its marker


def test_this_projects_statement_further_down_takes_a_place_from_another_projects_copy() -> None:
    ours = {
        "后端框架是 Spring Boot 3.2.5",
        "缓存用 Redis 7，默认 TTL 10 分钟",
        "日志输出 JSON 格式，必须带 traceId",
    }
    items = [
        "后端框架是 Django Boot 4.1.0",  # another project's copy (a global fact with its values)
        "缓存用 Redis 7，默认 TTL 10 分钟",
        "日志输出 JSON 格式，必须带 traceId",
        "前端构建工具是 Vite 5，开发服务器端口 5173",
        "后端框架是 Spring Boot 3.2.5",
    ]

    def home(text: str) -> bool:
        return text in ours

    got = list(spread_classes([items], str, lambda _: 0, 3, 20, home, "后端框架"))
    # the copy leaves the places; this project's statement gets one in its own order, after what ranked before it
    assert got[:3] == [items[1], items[2], "后端框架是 Spring Boot 3.2.5"]
    assert got[3:] == [items[3], items[0]]  # the others keep their order; the copy goes last
    # without a look further than the places (scan), the copy stays
    assert list(spread_classes([items], str, lambda _: 0, 3, 3, home, "后端框架"))[:1] == [items[0]]
