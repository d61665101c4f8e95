"""Round 13 of the dev half (memneg2, issue 37): a denial that ends a chain, named in other words than the truth.

Hand-written, in my own words, before the product change; no test case seen. Each case is one project and a
chain of three lines: a first value A, a change to B, then a third line that is one of

- `neg`: a denial of B that names it differently from the stored truth: only part of the value (`Buildkite
  agents` -> "no longer use Buildkite", `飞书值班群` -> 不走飞书), the subject in another grammatical shape
  (passive for active, a noun phrase for a verb: "releases are built with X" -> "X isn't used for releases"),
  or B stored under a wording of the subject that differs from A's (so the denial meets only B's value).
  Only the denial may remain a truth on the subject afterwards (B retired);
- `keep`: a look-alike that must leave B the truth: a denial of another subject that shares B's value, a
  question, a condition, a denial of a value B does not hold (the old A, another version of the same product,
  a part of A that B lacks).

Some cases store a bystander first (`beside`) that shares B's value on another subject: it must stay a truth.
Every row runs twice: on its own write paths and with every line through the automatic path. `[...]` marks a
value span. `CASES` replaces the grid generator for this half (`__main__.cases_of`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Literal

from evals.memory_evolution.cases import Case, Meaning, Path, Statement
from evals.memory_evolution.half_dev_round10 import HALF as BASE
from evals.memory_evolution.spec import Lang

HALF = replace(BASE, name="dev13neg")

_SPAN = re.compile(r"\[([^\]]*)\]")
_PATHS: dict[str, Path] = {"s": "save", "t": "tool", "a": "auto"}
Shape = Literal["neg", "keep"]

# (id, language, shape, paths of the three lines, (A, B, third line), bystander stored first or "")
ROWS: tuple[tuple[str, Lang, Shape, str, tuple[str, str, str], str], ...] = (
    # ---- English: the denial names only part of the value ----
    ("en-ci-head", "en", "neg", "ssa", ("Our CI runs on [GitHub Actions].", "CI moved to [Buildkite agents] last month.", "We no longer use Buildkite for CI."), ""),
    ("en-alerts-place", "en", "neg", "saa", ("Alerts go to [the #oncall channel on Slack].", "Alerts now go to [the #sre-pager channel on Teams].", "Alerts aren't on Teams any more."), ""),
    ("en-db-product", "en", "neg", "sta", ("The main database is [Postgres 14].", "The main database was upgraded to [CockroachDB 23].", "We're not on CockroachDB for the main database anymore."), ""),
    ("en-registry-head", "en", "neg", "saa", ("Container images are pushed to [Harbor].", "Images are now pushed to [the Quay registry].", "We stopped pushing images to Quay."), ""),
    ("en-fmt-head", "en", "neg", "tta", ("Code is formatted with [Prettier].", "We format code with [dprint 0.45] now.", "dprint isn't used for formatting anymore."), ""),
    ("en-tracker-head", "en", "neg", "saa", ("Issues are tracked in [Jira].", "Issue tracking moved to [Linear Cloud].", "Nobody tracks issues in Linear now."), ""),
    # ---- English: the subject in another grammatical shape ----
    ("en-release-passive", "en", "neg", "saa", ("Releases are built with [Make].", "Releases are built with [Bazel] now.", "Bazel isn't used for releases any more."), ""),
    ("en-branch-noun", "en", "neg", "ssa", ("Our branching model is [GitFlow].", "The branching model is now [trunk-based].", "We've dropped trunk-based branching."), ""),
    ("en-docs-active", "en", "neg", "sta", ("We host the docs on [Read the Docs].", "The docs are hosted on [GitHub Pages] now.", "GitHub Pages no longer hosts our docs."), ""),
    ("en-secrets-noun", "en", "neg", "saa", ("Secrets are kept in [Vault].", "Secrets are kept in [Doppler] now.", "Doppler is no longer our secret store."), ""),
    ("en-deploy-noun", "en", "neg", "sat", ("We deploy with [Capistrano].", "We deploy with [Kamal] now.", "Kamal deployments have been retired."), ""),
    ("en-schedule-gerund", "en", "neg", "saa", ("Nightly jobs are scheduled by [cron].", "Nightly jobs are scheduled by [Airflow] now.", "We stopped scheduling nightly jobs with Airflow."), ""),
    # ---- English: B stored under another wording of the subject ----
    ("en-broker-key", "en", "neg", "aaa", ("The message broker is [RabbitMQ].", "Our events go through [NATS] now.", "We don't run NATS anymore."), ""),
    ("en-uploads-key", "en", "neg", "saa", ("User uploads are stored in [S3].", "Uploaded files moved to [MinIO].", "MinIO is gone from the upload path."), ""),
    ("en-cache-shared", "en", "neg", "saa", ("The cache is [Memcached].", "The cache moved to [Redis].", "We no longer use Redis for the cache."), "The session store is [Redis]."),
    # ---- English: look-alikes that must leave B the truth ----
    ("en-keep-other-subject", "en", "keep", "ssa", ("The cache is [Memcached].", "The cache moved to [Redis].", "We don't use Redis for the job queue."), ""),
    ("en-keep-question", "en", "keep", "saa", ("Alerts go to [PagerDuty].", "Alerts now go to [Opsgenie].", "Are alerts not on Opsgenie anymore?"), ""),
    ("en-keep-condition", "en", "keep", "sta", ("The CI runs on [CircleCI].", "CI moved to [Buildkite].", "If Buildkite keeps failing we won't use it for CI."), ""),
    ("en-keep-old-version", "en", "keep", "saa", ("The main database is [Postgres 14].", "The main database was upgraded to [Postgres 16].", "We no longer run Postgres 14 anywhere."), ""),
    ("en-keep-old-part", "en", "keep", "ssa", ("Alerts go to [the #oncall channel on Slack].", "Alerts now go to [the #sre channel on Slack].", "The #oncall channel is not used anymore."), ""),
    ("en-keep-passive-other", "en", "keep", "saa", ("Releases are built with [Make].", "Releases are built with [Bazel] now.", "Bazel isn't used for the docs site."), ""),
    ("en-keep-old-value", "en", "keep", "aaa", ("The message broker is [RabbitMQ].", "The message broker is [NATS] now.", "We don't run RabbitMQ anymore."), ""),
    # ---- Chinese ----
    ("zh-ci-head", "zh", "neg", "saa", ("持续集成跑在 [GitLab Runner] 上", "持续集成现在迁到 [Drone CI] 了", "持续集成不再用 Drone 了"), ""),
    ("zh-notify-head", "zh", "neg", "ssa", ("告警发到[钉钉运维群]", "告警现在改发到[飞书值班群]", "告警已经不走飞书了"), ""),
    ("zh-db-product", "zh", "neg", "sta", ("主库是 [MySQL 5.7]", "主库换成了 [TiDB 7]", "主库不再用 TiDB 了"), ""),
    ("zh-build-passive", "zh", "neg", "saa", ("发布包用 [Jenkins] 构建", "发布包现在用 [Tekton] 构建", "Tekton 已经不用来构建发布包了"), ""),
    ("zh-branch-noun", "zh", "neg", "ssa", ("分支按[功能名]命名", "分支现在按[工单号]命名", "分支命名不再按工单号了"), ""),
    ("zh-storage-key", "zh", "neg", "aaa", ("对象存储用的是 [七牛云]", "文件现在存到 [阿里云 OSS]", "阿里云 OSS 已经停用了"), ""),
    ("zh-docs-noun", "zh", "neg", "saa", ("文档托管在[语雀]", "文档现在放在[飞书文档]", "我们不再用飞书文档放文档了"), ""),
    ("zh-cache-shared", "zh", "neg", "saa", ("缓存用 [Memcached]", "缓存改成 [Redis] 了", "缓存不再用 Redis 了"), "会话存储用 [Redis]"),
    ("zh-keep-other-subject", "zh", "keep", "ssa", ("缓存用 [Memcached]", "缓存改成 [Redis] 了", "任务队列不用 Redis"), ""),
    ("zh-keep-question", "zh", "keep", "saa", ("告警发到[钉钉]", "告警现在发到[飞书]", "告警是不是不发飞书了？"), ""),
    ("zh-keep-condition", "zh", "keep", "sta", ("持续集成用 [Jenkins]", "持续集成换成 [Drone] 了", "要是 Drone 再出问题，就不用它了"), ""),
    ("zh-keep-old-version", "zh", "keep", "saa", ("主库是 [MySQL 5.7]", "主库升级到 [MySQL 8.0] 了", "线上已经不用 MySQL 5.7 了"), ""),
    ("zh-keep-old-value", "zh", "keep", "aaa", ("对象存储用的是 [七牛云]", "对象存储现在用 [阿里云 OSS]", "七牛云已经停用了"), ""),
    # ---- mixed ----
    ("mix-ci-head", "mix", "neg", "saa", ("CI 跑在 [GitHub Actions] 上", "CI 现在换成 [Buildkite agents]", "CI 不再用 Buildkite 了"), ""),
    ("mix-alerts-head", "mix", "neg", "ssa", ("alerts 发到 [Slack 的 #ops 频道]", "alerts 现在发到 [Teams 的 #sre 频道]", "alerts 已经不走 Teams 了"), ""),
    ("mix-build-passive", "mix", "neg", "saa", ("release 用 [Make] 构建", "release 现在用 [Bazel] build", "Bazel 已经不用来 build release 了"), ""),
    ("mix-broker-key", "mix", "neg", "aaa", ("message broker 是 [RabbitMQ]", "events 现在走 [NATS]", "NATS 我们已经下线了"), ""),
    ("mix-cache-shared", "mix", "neg", "saa", ("cache 用 [Memcached]", "cache 改成 [Redis] 了", "cache 不再用 Redis 了"), "session store 用 [Redis]"),
    ("mix-keep-other-subject", "mix", "keep", "ssa", ("cache 用 [Memcached]", "cache 改成 [Redis] 了", "job queue 不用 Redis"), ""),
    ("mix-keep-question", "mix", "keep", "saa", ("CI 跑在 [Jenkins] 上", "CI 换成 [Drone] 了", "CI 是不是不用 Drone 了？"), ""),
    ("mix-keep-condition", "mix", "keep", "sta", ("docs 托管在 [Read the Docs]", "docs 现在放在 [GitHub Pages]", "如果 GitHub Pages 挂了，docs 就不放那里了"), ""),
    ("mix-keep-old-part", "mix", "keep", "saa", ("alerts 发到 [Slack 的 #ops 频道]", "alerts 现在发到 [Slack 的 #sre 频道]", "#ops 频道已经不用了"), ""),
)  # fmt: skip


def marked_text(marked: str) -> str:
    return _SPAN.sub(r"\1", marked)


def quote_of(text: str) -> str:
    return text.strip().rstrip(".。")


def turn_for(half_lang: Lang, path: Path, text: str, rotation: int) -> str:
    if path == "tool":
        return BASE.remember[half_lang].format(X=text)
    if path == "save":
        return text
    wrappers = BASE.wrappers[half_lang]
    return wrappers[rotation % len(wrappers)].format(X=text)


# rows that open with the same line share one subject (the oracle reads a meaning by its text)
_TOPIC = {_SPAN.sub(r"\1", r[4][0]): r[0] for r in reversed(ROWS)}


def _case(index: int, row: tuple[str, Lang, Shape, str, tuple[str, str, str], str], paths: str) -> Case:
    _, lang, shape, _, lines, beside = row
    id_ = _TOPIC[marked_text(lines[0])]
    chain: list[Statement] = []
    for step, marked in enumerate(lines[:2]):
        text, value = marked_text(marked), _SPAN.findall(marked)[-1]
        path = _PATHS[paths[step]]
        meaning = Meaning(id_, "", value, False, value)
        chain.append(
            Statement(text, turn_for(lang, path, text, index + step), path, "chain", f"d13-{shape}", meaning)
        )
    last, path = lines[2], _PATHS[paths[2]]
    held = chain[-1].meaning
    if shape == "neg":  # the denial's meaning: B no longer holds, carried by the whole line
        meaning, expect = Meaning(id_, "", held.value, True, quote_of(last)), None
    else:  # a look-alike is about something else; B stays the truth
        meaning, expect = Meaning(f"{row[0]}-aside", "", quote_of(last), False, quote_of(last)), held
    turn = turn_for(lang, path, last, index + 2)
    chain.append(Statement(last, turn, path, "chain", f"d13-{shape}", meaning, expect))
    setup: tuple[Statement, ...] = ()
    if beside:
        text = marked_text(beside)
        kept = Meaning(f"{row[0]}-beside", "", _SPAN.findall(beside)[-1], False, _SPAN.findall(beside)[-1])
        setup = (Statement(text, text, "save", "bystander", "d13-beside", kept),)
    question = re.sub(r"\s+", " ", _SPAN.sub(" ", lines[0])).strip(" .。")
    tag = "" if paths == row[3] else "-auto"
    return Case(
        f"dev13neg-{row[0]}{tag}",
        "dev13neg",
        lang,
        row[0],
        shape,
        f"/memneg2-eval/{row[0]}{tag}",
        setup,
        tuple(chain),
        question,
    )


def _all() -> tuple[Case, ...]:
    cases: list[Case] = []
    for index, row in enumerate(ROWS):
        cases.append(_case(index, row, row[3]))
        if row[3] != "aaa":
            cases.append(_case(index + 1, row, "aaa"))
    return tuple(cases)


CASES = _all()
