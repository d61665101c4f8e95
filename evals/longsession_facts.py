"""The user's own facts through compaction (issue 38): a long session in which the user states 15 plain facts
early, run with summarisers that work, fail, or return garbage, hollow or cut-off summaries.

The facts carry no rule word (不要/禁止/每次/记住/约定…): they are plain statements of hosts, branch names, ports,
paths and people, in English and Chinese. Two sets, worded differently: `TUNING` is the one the compaction code
may be looked at against; `HELD_OUT` is never tuned on and only reported. A fact counts as kept when its
`check` value (the identifier, number, path or name it states) is still in the session's last request.

The session is long enough that summaries are needed (answers no clearing can shrink), so the summariser's
behaviour decides what survives; bench_longsession checks that summaries were actually requested.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from paicli.testing.openai_server import Reply, prompt_text


@dataclass(frozen=True)
class Fact:
    statement: str  # what the user says, as a plain statement
    check: str  # the value that must survive (found verbatim in the last request)


TUNING: tuple[Fact, ...] = (
    Fact("staging 数据库的主机是 db-stg-02.orion.internal", "db-stg-02.orion.internal"),
    Fact("发版分支叫 release/2027-q1", "release/2027-q1"),
    Fact("the payments service listens on port 8443", "8443"),
    Fact("日志写在 /var/log/orion/app.log", "/var/log/orion/app.log"),
    Fact("代码评审找 Zhang Wei", "Zhang Wei"),
    Fact("监控面板的地址是 grafana.ops.example.net", "grafana.ops.example.net"),
    Fact("our hotfix branch is hotfix/orion-1142", "hotfix/orion-1142"),
    Fact("Redis 跑在 6380 端口", "6380"),
    Fact("生产配置在 deploy/helm/values-prod.yaml", "deploy/helm/values-prod.yaml"),
    Fact("产品负责人是李思雨", "李思雨"),
    Fact("the CI runner image is ghcr.io/orion/ci:3.11", "ghcr.io/orion/ci:3.11"),
    Fact("消息队列的 topic 名是 orders.v2.events", "orders.v2.events"),
    Fact("backups go to s3://orion-backup/nightly", "s3://orion-backup/nightly"),
    Fact("对外 API 的超时是 45 秒", "45 秒"),
    Fact("on-call this week is Priya Raman", "Priya Raman"),
)

# Never tuned on: different wording, different shapes (host:port, a quoted cron value, a home path, a person
# named in a passive clause), reported beside the tuning set.
HELD_OUT: tuple[Fact, ...] = (
    Fact("预发环境的 Kafka 在 kafka-pre-3.corp.lan:9092", "kafka-pre-3.corp.lan:9092"),
    Fact("we cut releases from the branch named train/2027.03", "train/2027.03"),
    Fact("管理后台走 7001 端口", "7001"),
    Fact(
        "the nginx config lives at /etc/nginx/sites-enabled/orion.conf", "/etc/nginx/sites-enabled/orion.conf"
    ),
    Fact("数据迁移由陈嘉怡负责", "陈嘉怡"),
    Fact("性能测试机是 perf-box-17", "perf-box-17"),
    Fact("feature work goes on feat/ledger-rewrite", "feat/ledger-rewrite"),
    Fact("Postgres replica answers on 5544", "5544"),
    Fact("服务证书放在 ~/.orion/keys/service.pem", "~/.orion/keys/service.pem"),
    Fact("our designer is Tomás Ortega", "Tomás Ortega"),
    Fact("基础镜像用 registry.orion.cn/base/python:3.12-slim", "registry.orion.cn/base/python:3.12-slim"),
    Fact("周报任务的 cron 表达式是 '15 3 * * 1'", "15 3 * * 1"),
    Fact("the metrics bucket is gs://orion-metrics-eu", "gs://orion-metrics-eu"),
    Fact("测试账号叫 qa_runner_02", "qa_runner_02"),
    Fact("客户那边的联系人是 Anna Kowalska", "Anna Kowalska"),
)

FACT_SETS: dict[str, tuple[Fact, ...]] = {"tuning": TUNING, "held-out": HELD_OUT}

# Turns that state a fact (15 of the first 18); the others, and every later turn, are routine requests.
FACT_TURNS: tuple[int, ...] = (1, 2, 3, 4, 5, 7, 8, 9, 10, 12, 13, 14, 15, 17, 18)
# Routine requests: long (about 60-80 tokens), each one different (its subject and its ordinal), stating no
# value (no identifier, number, path or name), so only the facts carry what a summary must keep.
SUBJECTS = ("订单表", "用户表", "库存服务", "支付回调", "报表任务", "搜索索引", "消息消费者")
ROUTINE = (
    "请运行命令看看{subject}第 {turn} 批的数据量，顺便说明一下和上一批相比有什么变化，差别很大的话把可能的原因列出来",
    "帮我检查一下{subject}相关的模块在第 {turn} 轮改动之后有没有问题，重点看边界情况和错误处理，发现问题先告诉我",
    "继续刚才{subject}的工作，把第 {turn} 步还没做完的部分做完，做完以后简单总结一下改了什么、为什么这样改",
    "把{subject}目前的结果整理一下，按模块分组列出来，每组写清楚现状、风险和下一步打算，第 {turn} 轮先做个初稿",
    "看看{subject}的日志里第 {turn} 段时间有没有报错或者告警，有的话按出现次数排个序，并说明最可能的原因是什么",
    "再确认一下{subject}的测试能不能全部通过，第 {turn} 次跑的时候如果有失败的用例，把失败原因和涉及的代码位置告诉我",
)
# The wording probe: the same statements with a rule-word prefix; what survives must not change.
REMEMBER_PREFIX = "请记住这些约定："

SUMMARISERS = ("ok", "failing", "garbage", "hollow", "cut45")
CUT_SHARE = 0.45
HEADINGS = (
    "## 当前目标与成功条件",
    "## 用户要求与已确认决定",
    "## 已完成工作及证据",
    "## 未解决问题与下一步",
)
GARBAGE = "好的，我明白了。" + "以下是一些想法，仅供参考。" * 12
HOLLOW = (
    f"{HEADINGS[0]}\n继续完成用户交代的任务。\n{HEADINGS[1]}\n按用户之前的说明处理。\n"
    f"{HEADINGS[2]}\n已经完成了若干步骤。\n{HEADINGS[3]}\n继续处理后续的问题。"
)


def fact_index(turn: int) -> int | None:
    return FACT_TURNS.index(turn) if turn in FACT_TURNS else None


def turn_text(turn: int, facts: Sequence[Fact], prefix: str = "") -> str:
    """The user's input of `turn`: a fact stated plainly (with `prefix` before it, for the wording probe) or
    a routine request; every turn's text is unique (its number), so the bench can find it verbatim."""
    index = fact_index(turn)
    if index is not None and index < len(facts):
        return f"第 {turn} 轮：{prefix}{facts[index].statement}。先看看相关模块再回答。"
    routine = ROUTINE[turn % len(ROUTINE)].format(subject=SUBJECTS[turn % len(SUBJECTS)], turn=turn)
    return f"第 {turn} 轮：{routine}。"


def answer_text(turn: int) -> str:
    """An answer clearing cannot shrink (about 300 tokens): the history grows until summaries are needed."""
    return f"第 {turn} 轮完成：" + "已核对相关模块和最近的改动，数据量与预期一致，没有发现新的报错。" * 10


def keeping_summary(body: dict[str, Any], facts: Sequence[Fact]) -> str:
    """A summariser that keeps what it is given: every fact whose value its input shows goes into the summary."""
    text = prompt_text(body)
    kept = "".join(f"- {fact.statement}\n" for fact in facts if fact.check in text)
    return (
        f"{HEADINGS[0]}\n检查模块并回答用户的问题。\n{HEADINGS[1]}\n{kept}"
        f"{HEADINGS[2]}\n已读取若干模块文件，核对了数据量。\n{HEADINGS[3]}\n继续处理后续的请求。"
    )


def summary_reply(mode: str, body: dict[str, Any], facts: Sequence[Fact]) -> Reply | str:
    """What a summariser of `mode` answers to any summary request (the first one, and any repair)."""
    if mode == "failing":
        return Reply.error(500, "summary model down")
    if mode == "garbage":
        return GARBAGE
    if mode == "hollow":
        return HOLLOW
    full = keeping_summary(body, facts)
    if mode == "cut45":
        return Reply.text(full[: int(len(full) * CUT_SHARE)], finish_reason="length")
    return full


def facts_kept(last_request: str, facts: Sequence[Fact]) -> int:
    return sum(1 for fact in facts if fact.check in last_request)
