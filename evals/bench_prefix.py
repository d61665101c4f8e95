"""Prefix-cache reuse for memory placement `system` (the reference) vs `turn` (paicli's default).

A scripted 30-turn session in which every turn retrieves different long-term memories, against the loopback
server emulating provider prefix caching (longest common token prefix with any earlier request, in 64-token
blocks). Per placement: total prompt tokens, cached tokens, and reuse = cached / ideal, where ideal is the
previous request's size (everything that was already sent once could have been served from cache).

Second part (issue 13): a scripted mixed session (tool calls, a short "thanks" turn, a headline, an offline
request whose web call is refused, `/mode plan`, memories saved mid-session by the model and by `/save`).
Per request: cached / previous request's prompt; the minimum is taken over the requests that follow a plain
append (same tools, the previous request's messages unchanged as a prefix), plus a count of requests whose
tools or system prompt differ from the first request's (must be 0).

Run from the repository root: python -m evals.bench_prefix [--turns 30]
Targets: `turn` median reuse >= 0.95; mixed session: minimum after a plain append >= 0.95.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

from paicli.agent.events import AgentEvent, ModelCallFinished
from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.compose import build_components
from paicli.config.env import EnvLookup
from paicli.config.parsed import ParsedConfig
from paicli.config.settings import load_settings
from paicli.memory.entry import new_fact
from paicli.testing.commands import command
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.tools.approval import AutoApprover

CACHED_PRICE = 0.1  # cached input is billed at roughly a tenth of fresh input by prefix-caching providers

TOPICS = [
    ("数据库", ["订单库使用 PostgreSQL 16", "数据库迁移用 Flyway 管理", "数据库连接池上限是 50"]),
    ("前端", ["前端用 pnpm 管理依赖", "前端组件库是 Ant Design", "前端构建工具是 Vite"]),
    ("测试", ["单元测试框架是 pytest", "测试覆盖率门槛是 80%", "集成测试跑在 docker compose 里"]),
    ("部署", ["部署目标是 Kubernetes 集群", "部署前要先跑冒烟测试", "部署窗口是每周二晚上"]),
    ("日志", ["日志采用结构化 JSON 格式", "日志保留 30 天", "日志里禁止输出用户手机号"]),
    ("缓存", ["缓存使用 Redis 集群", "缓存键统一加 app: 前缀", "缓存过期时间默认 10 分钟"]),
    ("接口", ["接口文档放在 docs/api", "接口统一返回 code/message/data", "接口版本号写在 URL 里"]),
    ("代码风格", ["代码注释使用英文", "代码风格用 ruff 检查", "代码行宽上限 110"]),
    ("发布", ["发布需要两位评审批准", "发布说明写在 CHANGELOG.md", "发布分支命名为 release/x.y"]),
    ("监控", ["监控用 Prometheus 采集", "监控告警发到飞书群", "监控面板在 Grafana"]),
]


def run_session(placement: str, turns: int, root: Path) -> list[tuple[int, int]]:
    home = root / f"home-{placement}"
    project = root / f"project-{placement}"
    project.mkdir(parents=True)
    (project / "README.md").write_text("# demo\n" + "示例项目说明。\n" * 40, encoding="utf-8")
    usages: list[tuple[int, int]] = []

    def responder(body: dict[str, Any]) -> Reply | str:
        messages = body["messages"]
        if messages[-1]["role"] == "user" and len(usages) % 3 == 0:
            return Reply.tool_calls(("read_file", json.dumps({"path": "README.md"})))
        return "好的，" + "已经按记忆里的约定处理。" * 8

    with FakeOpenAIServer(responder=responder, cache_emulation=True) as server:
        env = EnvLookup(
            environ={
                "HOME": str(home),
                "PAICLI_HOME": str(home / ".paicli"),
                "PAICLI_BASE_URL": server.base_url,
                "PAICLI_MODEL": "fake-model",
                "PAICLI_MEMORY_PLACEMENT": placement,
                "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "false",
                "PAICLI_PROMPT_RUNTIME_DATE": "2026-11-30",
                "PAICLI_PROMPT_RUNTIME_ZONE": "UTC",
            },
            cwd=project,
        )
        settings = load_settings(env, cwd=project)
        parts = build_components(settings, ParsedConfig.read(env), AutoApprover(), yes=True)
        for _, facts in TOPICS:
            for fact in facts:
                parts.memory.store.store(
                    new_fact(fact, {"source": "fact", "scope": "global"}, parts.memory.clock)
                )
        backend = AppBackend(parts)

        def sink(event: AgentEvent) -> None:
            if isinstance(event, ModelCallFinished) and event.usage is not None:
                usages.append((event.usage.prompt_tokens, event.usage.cached_tokens))

        for turn in range(turns):
            topic = TOPICS[turn % len(TOPICS)][0]
            backend.run(f"第 {turn + 1} 轮：{topic}方面有什么约定？", "react", sink, CancelToken())
        backend.close()
    return usages


def report(placement: str, usages: list[tuple[int, int]]) -> float:
    total = sum(p for p, _ in usages)
    cached = sum(c for _, c in usages)
    reuse = [cached_i / usages[i - 1][0] for i, (_, cached_i) in enumerate(usages) if i > 0]
    median = statistics.median(reuse)
    weighted = (total - cached) + CACHED_PRICE * cached
    print(
        f"{placement:>6}: requests {len(usages):3d}  prompt tokens {total:9,d}  cached {cached:9,d} "
        f"({cached / total:6.1%})  uncached {total - cached:8,d}  cost-weighted {weighted:10,.0f}  "
        f"reuse median {median:.3f}  p10 {statistics.quantiles(reuse, n=10)[0]:.3f}  min {min(reuse):.3f}"
    )
    return median


MIXED_TURNS = [
    "读一下 README.md，总结一下这个项目",
    "谢谢，今天先到这里",
    "记住：这个项目的构建用 Java 17 和 Gradle",
    "OpenAI 发布新一代推理模型 全面开放",
    "不要联网，直接解释一下 asyncio 的事件循环",
    "/mode plan",
    "列出项目里的文件",
    "/save 发布窗口是每周四晚上八点",
    "发布窗口是什么时候？",
    "Refactor calc",
    "好的",
    "部署方面有什么约定？",
]


def _mixed_responder(body: dict[str, Any]) -> Reply | str:
    if body["messages"][-1]["role"] != "user":
        return "好的，处理完了。" + "结果已经核对过。" * 6
    text = str(body["messages"][-1]["content"])
    if "README" in text:
        return Reply.tool_calls(("read_file", json.dumps({"path": "README.md"})))
    if "记住" in text:
        fact = {"fact": "项目构建工具是 Gradle 8，JDK 版本 17"}
        return Reply.tool_calls(("save_memory", json.dumps(fact, ensure_ascii=False)))
    if "asyncio" in text:
        return Reply.tool_calls(("web_search", json.dumps({"query": "asyncio event loop"})))
    if "列出" in text:
        return Reply.tool_calls(("list_dir", json.dumps({"path": "."})))
    return "好的。" + "这是回答的正文。" * 10


def drive(backend: AppBackend, turns: list[str]) -> list[tuple[int, int]]:
    """Run the inputs (`/mode x` and `/save x` as the commands), close the backend; (prompt, cached) tokens of
    each main-model request."""
    usages: list[tuple[int, int]] = []

    def sink(event: AgentEvent) -> None:
        if isinstance(event, ModelCallFinished) and event.usage is not None:
            usages.append((event.usage.prompt_tokens, event.usage.cached_tokens))

    for turn in turns:
        if turn.startswith("/"):
            command(backend, turn)  # through the command table, as typed at the REPL
        else:
            backend.run(turn, "react", sink, CancelToken())
    backend.close()
    return usages


def run_mixed_session(root: Path) -> list[dict[str, Any]]:
    """Per main-model request: prompt and cached tokens, and whether it only appended to the previous one."""
    home, project = root / "home-mixed", root / "project-mixed"
    project.mkdir(parents=True)
    (project / "README.md").write_text("# calc\n" + "一个命令行计算器。\n" * 20, encoding="utf-8")
    with FakeOpenAIServer(responder=_mixed_responder, cache_emulation=True) as server:
        env = EnvLookup(
            environ={
                "HOME": str(home),
                "PAICLI_HOME": str(home / ".paicli"),
                "PAICLI_BASE_URL": server.base_url,
                "PAICLI_MODEL": "fake-model",
                "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "false",
                "PAICLI_PROMPT_RUNTIME_DATE": "2026-11-30",
                "PAICLI_PROMPT_RUNTIME_ZONE": "UTC",
            },
            cwd=project,
        )
        parts = build_components(
            load_settings(env, cwd=project), ParsedConfig.read(env), AutoApprover(), yes=True
        )
        for _, facts in TOPICS:
            for fact in facts:
                parts.memory.store.store(
                    new_fact(fact, {"source": "fact", "scope": "global"}, parts.memory.clock)
                )
        usages = drive(AppBackend(parts), MIXED_TURNS)
        bodies = list(server.requests)
    rows = []
    for i, (body, (prompt, cached)) in enumerate(zip(bodies, usages, strict=True)):
        previous = bodies[i - 1] if i else None
        append = (
            previous is not None
            and body.get("tools") == previous.get("tools")
            and (body["messages"][: len(previous["messages"])] == previous["messages"])
        )
        rows.append(
            {
                "prompt": prompt,
                "cached": cached,
                "append": append,
                "same_prefix": body.get("tools") == bodies[0].get("tools")
                and body["messages"][0] == bodies[0]["messages"][0],
            }
        )
    return rows


def report_mixed(rows: list[dict[str, Any]]) -> float:
    ratios = [(rows[i]["cached"] / rows[i - 1]["prompt"], rows[i]["append"]) for i in range(1, len(rows))]
    after_append = [ratio for ratio, append in ratios if append]
    changed = sum(1 for row in rows if not row["same_prefix"])
    print(
        f"mixed session ({len(MIXED_TURNS)} inputs, {len(rows)} requests): cached/previous-prompt median "
        f"{statistics.median(r for r, _ in ratios):.3f}  min {min(r for r, _ in ratios):.3f}; after a plain "
        f"append ({len(after_append)} requests): median {statistics.median(after_append):.3f}  "
        f"min {min(after_append):.3f}; requests whose tools or system prompt changed: {changed}"
    )
    return min(after_append)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = {p: run_session(p, args.turns, Path(tmp)) for p in ("system", "turn")}
        mixed = run_mixed_session(Path(tmp))
    print(
        f"prefix-cache reuse over a {args.turns}-turn session (64-token blocks; ideal = previous request size)"
    )
    medians = {p: report(p, u) for p, u in results.items()}
    verdict = "met" if medians["turn"] >= 0.95 else "NOT met"
    print(f"target: turn median reuse >= 0.95 -> {verdict}")
    minimum = report_mixed(mixed)
    print(
        f"target: mixed session minimum after a plain append >= 0.95 -> {'met' if minimum >= 0.95 else 'NOT met'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
