"""Round 14 of the dev half (memdeny3, issue 37): a denial that names only the value, or names it first.

Hand-written, in my own words, before the product change; no test case seen. Each case is one project and a
chain of two lines: a truth with value A, then a second line that is one of

- `bare`: a denial that names A and no subject at all ("We gave up on Locust", "Loki 下线了");
- `front`: A is the grammatical subject of the denial, and the real subject comes later or not at all ("Gerrit
  is no longer our review tool"), maybe with a replacement clause ("Kong got retired; the gateway is Envoy
  now", "Apollo 下线了，配置改放 Nacos"): the marked value of the line is then the new truth;
- `verb`: Chinese, the value is the object of a verb (用/走/跑) and the denial's subject is a part of the stored
  subject ("前端不用 Webpack 了" after "前端的打包工具是 Webpack");
- `keep`: a look-alike that must leave A the truth: the value also held by another truth and the denial names
  no subject (ambiguous), a denial about another subject that shares the value, a question, a plan, a
  condition, a denial of a value no truth holds.

A bystander stored first (`beside`) must stay a truth in every case. Every row runs twice: on its own write paths
and with every line through the automatic path. `[...]` marks a value span. `CASES` replaces the grid generator
for this half (`__main__.cases_of`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Literal

from evals.memory_evolution.cases import Case, Meaning, Path, Statement
from evals.memory_evolution.half_dev_round10 import HALF as BASE
from evals.memory_evolution.half_dev_round13_neg import marked_text as _text
from evals.memory_evolution.half_dev_round13_neg import quote_of as _quote
from evals.memory_evolution.half_dev_round13_neg import turn_for as _turn
from evals.memory_evolution.spec import Lang

HALF = replace(BASE, name="dev14deny")

_SPAN = re.compile(r"\[([^\]]*)\]")
_PATHS: dict[str, Path] = {"s": "save", "t": "tool", "a": "auto"}
Shape = Literal["bare", "front", "verb", "keep"]

# (id, language, shape, paths of the two lines, (truth, second line), bystander stored first or "")
ROWS: tuple[tuple[str, Lang, Shape, str, tuple[str, str], str], ...] = (
    # ---- English: only the value ----
    ("en-errors-bare", "en", "bare", "sa", ("Our error tracking runs on [Sentry].", "We don't use Sentry anymore."), ""),
    ("en-flags-bare", "en", "bare", "ss", ("Feature flags are managed in [LaunchDarkly].", "LaunchDarkly was dropped."), ""),
    ("en-chat-bare", "en", "bare", "ta", ("The team chat is [Mattermost].", "Mattermost got shut down last week."), "The incident bridge is [Zoom]."),
    ("en-load-bare", "en", "bare", "sa", ("Load testing is done with [Locust].", "We gave up on Locust."), ""),
    ("en-search-bare", "en", "bare", "ss", ("The search index uses [Solr].", "Solr was pulled from production."), ""),
    ("en-analytics-bare", "en", "bare", "sa", ("Product analytics go to [Mixpanel].", "We've stopped paying for Mixpanel."), ""),
    # ---- English: the value first ----
    ("en-review-front", "en", "front", "sa", ("Code review happens in [Gerrit].", "Gerrit is no longer our review tool."), ""),
    ("en-gateway-front", "en", "front", "ss", ("The API gateway is [Kong].", "Kong got retired; the gateway is [Envoy] now."), ""),
    ("en-jobs-front", "en", "front", "ta", ("Background jobs run on [Sidekiq].", "Sidekiq was replaced, jobs now run on [GoodJob]."), ""),
    ("en-design-front", "en", "front", "sa", ("Design files live in [Sketch].", "Sketch isn't where designs live anymore."), ""),
    ("en-lb-front", "en", "front", "ss", ("Our load balancer is [HAProxy].", "HAProxy was decommissioned as the load balancer."), "The TLS certificates come from [Let's Encrypt]."),
    # ---- English: must leave the truth ----
    ("en-keep-ambiguous", "en", "keep", "sa", ("Crash reports go to [Bugsnag].", "We don't use Bugsnag anymore."), "Release health is tracked in [Bugsnag]."),
    ("en-overlap-shared", "en", "front", "sa", ("Crash reports go to [Bugsnag].", "Bugsnag no longer receives our crash reports."), "Release health is tracked in [Bugsnag]."),
    ("en-keep-other-subject", "en", "keep", "ss", ("The search index uses [Elasticsearch].", "We don't use Elasticsearch for logs."), ""),
    ("en-keep-question", "en", "keep", "sa", ("Feature flags are managed in [LaunchDarkly].", "Do we still use LaunchDarkly?"), ""),
    ("en-keep-condition", "en", "keep", "ta", ("The team chat is [Mattermost].", "If Mattermost goes down again we'll stop using it."), ""),
    ("en-keep-plan", "en", "keep", "sa", ("The API gateway is [Kong].", "We plan to drop Kong next quarter."), ""),
    ("en-keep-unheld", "en", "keep", "ss", ("Load testing is done with [Locust].", "We don't use JMeter anymore."), ""),
    # ---- Chinese ----
    ("zh-docs-bare", "zh", "bare", "sa", ("项目文档放在[石墨文档]", "石墨文档已经停用了"), ""),
    ("zh-logs-bare", "zh", "bare", "ss", ("日志平台是 [Loki]", "Loki 下线了"), ""),
    ("zh-apidoc-bare", "zh", "bare", "ta", ("接口文档用 [YApi] 管理", "YApi 也不用了"), "代码托管在 [Gitee]"),
    ("zh-config-front", "zh", "front", "sa", ("配置中心是 [Apollo]", "Apollo 下线了，配置改放 [Nacos]"), ""),
    ("zh-push-front", "zh", "front", "ss", ("消息推送走[个推]", "个推已经不是我们的推送渠道了"), ""),
    ("zh-canary-front", "zh", "front", "sa", ("灰度发布用 [Argo Rollouts]", "Argo Rollouts 撤掉了，灰度改用 [Flagger]"), ""),
    ("zh-bundle-verb", "zh", "verb", "sa", ("前端的打包工具是 [Webpack]", "前端不用 Webpack 了，换成 [Vite]"), ""),
    ("zh-testdb-verb", "zh", "verb", "ss", ("测试环境的数据库是 [PostgreSQL]", "测试环境不跑 PostgreSQL 了"), ""),
    ("zh-crash-verb", "zh", "verb", "ta", ("移动端的崩溃统计是 [Bugly]", "移动端不走 Bugly 了"), ""),
    ("zh-cron-verb", "zh", "verb", "sa", ("服务端的定时任务调度是 [XXL-JOB]", "定时任务不用 XXL-JOB 了"), ""),
    ("zh-keep-ambiguous", "zh", "keep", "sa", ("日志平台是 [Loki]", "Loki 已经停掉了"), "审计日志存到 [Loki]"),
    ("zh-keep-other-subject", "zh", "keep", "ss", ("前端的打包工具是 [Webpack]", "文档站不用 Webpack 了"), ""),
    ("zh-keep-question", "zh", "keep", "sa", ("项目文档放在[石墨文档]", "石墨文档是不是不用了？"), ""),
    ("zh-keep-plan", "zh", "keep", "ta", ("接口文档用 [YApi] 管理", "打算不用 YApi 了"), ""),
    ("zh-keep-condition", "zh", "keep", "sa", ("配置中心是 [Apollo]", "要是 Apollo 再出问题就下线它"), ""),
    # ---- mixed ----
    ("mix-flags-bare", "mix", "bare", "sa", ("feature flag 用 [Unleash] 管理", "Unleash 已经停用了"), ""),
    ("mix-wiki-front", "mix", "front", "ss", ("wiki 放在 [BookStack]", "BookStack 下线了，wiki 改放 [Outline]"), ""),
    ("mix-metrics-bare", "mix", "bare", "ta", ("metrics 存在 [VictoriaMetrics]", "VictoriaMetrics was dropped"), ""),
    ("mix-build-verb", "mix", "verb", "sa", ("backend 的 build tool 是 [sbt]", "build 不走 sbt 了"), ""),
    ("mix-queue-front", "mix", "front", "ss", ("task queue 是 [Celery]", "Celery is no longer our task queue"), ""),
    ("mix-keep-question", "mix", "keep", "sa", ("feature flag 用 [Unleash] 管理", "Unleash 还在用吗？"), ""),
    ("mix-keep-ambiguous", "mix", "keep", "ss", ("metrics 存在 [VictoriaMetrics]", "VictoriaMetrics 下线了"), "traces 也存在 [VictoriaMetrics]"),
    ("mix-keep-other-subject", "mix", "keep", "sa", ("cache 用 [Valkey]", "rate limiter 不用 Valkey 了"), ""),
    ("mix-keep-plan", "mix", "keep", "ta", ("wiki 放在 [BookStack]", "我们打算下线 BookStack"), ""),
)  # fmt: skip


# rows that open with the same line share one subject (the oracle reads a meaning by its text)
_TOPIC = {_SPAN.sub(r"\1", r[4][0]): r[0] for r in reversed(ROWS)}


def _case(index: int, row: tuple[str, Lang, Shape, str, tuple[str, str], str], paths: str) -> Case:
    _, lang, shape, _, (first, last), beside = row
    id_ = _TOPIC[_text(first)]
    text, value = _text(first), _SPAN.findall(first)[-1]
    held = Meaning(id_, "", value, False, value)
    family = f"d14-{shape}"
    chain = [
        Statement(text, _turn(lang, _PATHS[paths[0]], text, index), _PATHS[paths[0]], "chain", family, held)
    ]
    plain, path = _text(last), _PATHS[paths[1]]
    new_values = _SPAN.findall(last)
    if shape == "keep":  # a look-alike is about something else; A stays the truth
        meaning, expect = Meaning(f"{row[0]}-aside", "", _quote(plain), False, _quote(plain)), held
    elif new_values:  # a replacement clause: the line's new value is the truth
        meaning, expect = Meaning(id_, "", new_values[-1], False, new_values[-1]), None
    else:  # the denial's meaning: A no longer holds, carried by the whole line
        meaning, expect = Meaning(id_, "", value, True, _quote(plain)), None
    turn = _turn(lang, path, plain, index + 1)
    chain.append(Statement(plain, turn, path, "chain", family, meaning, expect))
    setup: tuple[Statement, ...] = ()
    if beside:
        btext, bvalue = _text(beside), _SPAN.findall(beside)[-1]
        kept = Meaning(f"{row[0]}-beside", "", bvalue, False, bvalue)
        setup = (Statement(btext, btext, "save", "bystander", "d14-beside", kept),)
    question = re.sub(r"\s+", " ", _SPAN.sub(" ", first)).strip(" .。")
    tag = "" if paths == row[3] else "-auto"
    return Case(
        f"dev14deny-{row[0]}{tag}",
        "dev14deny",
        lang,
        row[0],
        shape,
        f"/memdeny3-eval/{row[0]}{tag}",
        setup,
        tuple(chain),
        question,
    )


def _all() -> tuple[Case, ...]:
    cases: list[Case] = []
    for index, row in enumerate(ROWS):
        cases.append(_case(index, row, row[3]))
        if row[3] != "aa":
            cases.append(_case(index + 1, row, "aa"))
    return tuple(cases)


CASES = _all()
