"""Round 13 of the dev half (memreturn, issue 37): a return to an earlier value, and a correction that names only
the new value of a labelled slot.

Hand-written, in my own words, before the product change; no test case seen. Each case is one project:

- `fix` cases (chains of 2-4 lines): only the last line may stay a truth on the subject.
  - returns (A -> B -> back to A, A -> B -> C -> back to A): the return names A and a word of return (`again`,
    `back on`, `back to`, 还是, 又换回, 改回) with the subject said otherwise than in B's line, or names B as
    the one leaving (`B moved teams; A does it again`);
  - value-only corrections: the new line names its slot only by a label the old line also carried (a product
    with its version: `Safari 15 and newer` -> `minimum Safari version is now 16`; `Go 1.21` -> `升级到 Go 1.22
    了`), or a count in number words (`三个人` -> `两个人`, `three reviewers` -> `two`).
  A line written `auto:` goes through automatic extraction inside a turn, the others through `/save`.
- `alike` cases: a stored fact, then a new line that must supersede nothing: another slot with the same label
  (`the Go version for the CLI` / `for the build scripts`), a return of another subject, `again` meaning a
  repetition (`the nightly build failed again`), a count of another thing.
- `keep` cases (added after the first product change, before the second): a chain A -> B, then a line that
  names A with a word of return but about another thing, or asks or plans: B must stay the only truth.

`[...]` marks a value span in a line (the oracle judge quotes it). `CASES` replaces the grid generator for
this half (`__main__.cases_of`); `HALF` is only there for the runner's shape.
"""

from __future__ import annotations

import re
from dataclasses import replace

from evals.memory_evolution.cases import Case, Meaning, Path, Role, Statement
from evals.memory_evolution.half_dev_round10 import HALF as BASE
from evals.memory_evolution.spec import Lang

HALF = replace(BASE, name="dev13ret")

_SPAN = re.compile(r"\[([^\]]*)\]")
_AUTO = "auto:"

# (id, language, lines, look-alike stored first or "")
FIX: tuple[tuple[str, Lang, tuple[str, ...], str], ...] = (
    # ---- returns, English ----
    ("en-registry-back", "en", ("Our npm packages are published to [Verdaccio].", "Packages go to [GitHub Packages] now.", "We publish to [Verdaccio] again."), ""),
    ("en-approver-leaves", "en", ("Deploy approvals are given by [Lena].", "[Tomas] approves deploys now.", "Tomas moved to another team; [Lena] approves deploys again."), ""),
    ("en-search-back-on", "en", ("The search service runs on [Elasticsearch].", "Search moved to [OpenSearch].", "We're back on [Elasticsearch] for search."), ""),
    ("en-canary-4", "en", ("Canary traffic is [5%].", "Canary traffic was raised to [10%].", "Canary traffic is now [20%].", "Canary traffic is back to [5%]."), ""),
    ("en-paging-again", "en", ("Incident pages go to [PagerDuty].", "Pages are routed through [Opsgenie] now.", "[PagerDuty] handles paging again."), "Status updates go to [Statuspage]."),
    ("en-font-4", "en", ("The docs use the [Inter] font.", "The docs font is now [Roboto].", "We switched the docs font to [Lato].", "The docs are on [Inter] again."), ""),
    ("en-owner-stepped-down", "en", ("[Keiko] owns the billing service.", "Billing service ownership moved to [Dmitri].", "Dmitri stepped down, so [Keiko] owns billing again."), ""),
    ("en-auto-queue-back", "en", ("auto:Our job queue is [Sidekiq].", "auto:We moved background jobs to [GoodJob] now.", "auto:Background jobs are back on [Sidekiq]."), ""),
    # ---- returns, Chinese ----
    ("zh-migrations-still", "zh", ("数据库迁移脚本由[赵敏]维护", "迁移脚本现在交给[孙浩]维护", "孙浩调走了，迁移脚本还是[赵敏]来维护"), ""),
    ("zh-mq-change-back", "zh", ("消息队列用的是 [RabbitMQ]", "消息队列换成 [Kafka] 了", "队列还是改回 [RabbitMQ] 吧"), ""),
    ("zh-cores-4", "zh", ("构建机有 [4] 核", "构建机升到 [8] 核了", "构建机现在是 [16] 核", "构建机又换回 [4] 核了"), ""),
    ("zh-cdn-again", "zh", ("静态资源走[阿里云] CDN", "静态资源现在改走[腾讯云] CDN", "CDN 又换回[阿里云]了"), "图片存储用的是[七牛]"),
    ("zh-auto-gateway", "zh", ("auto:我们的网关用 [Nginx]", "auto:网关已经换成 [Envoy] 了", "auto:网关又改回 [Nginx] 了"), ""),
    # ---- returns, mixed ----
    ("mix-docs-back", "mix", ("文档站点用 [Docusaurus]", "docs site 换成 [VitePress] 了", "docs 又换回 [Docusaurus] 了"), ""),
    ("mix-codeowner-still", "mix", ("code owner 是[刘洋]", "code owner 现在是[何静]", "还是[刘洋]做 code owner"), ""),
    ("mix-cache-back-to", "mix", ("缓存用 [Memcached]", "cache 现在是 [Redis]", "cache is back to [Memcached]"), ""),
    # ---- value-only corrections of a labelled slot ----
    ("en-safari-min", "en", ("The web client supports [Safari 15] and newer.", "Minimum Safari version is now [16]."), ""),
    ("en-gradle-label", "en", ("CI builds use [Gradle 7.6].", "[Gradle 8.5] is what CI uses now."), ""),
    ("en-ruby-moved", "en", ("The storefront runs on [Ruby 3.1].", "We moved the storefront to [Ruby 3.3]."), ""),
    ("en-terraform-upgraded", "en", ("Our infrastructure code pins [Terraform 1.5].", "Upgraded to [Terraform 1.7] now."), ""),
    ("zh-go-upgrade", "zh", ("后端用 [Go 1.21]", "升级到 [Go 1.22] 了"), ""),
    ("zh-ios-min", "zh", ("App 最低支持 [iOS 15]", "现在最低支持 [iOS 16]"), ""),
    ("mix-java-now", "mix", ("后端跑在 [Java 17] 上", "现在是 [Java 21] 了"), ""),
    ("mix-auto-postgres", "mix", ("auto:我们的主库是 [PostgreSQL 13]", "auto:主库已经升到 [PostgreSQL 16] 了"), ""),
    # ---- counts in number words ----
    ("en-reviewers-two", "en", ("Every schema change needs [three] reviewers.", "Schema changes need only [two] reviewers now."), ""),
    ("en-oncall-down", "en", ("The on-call rotation has [four] engineers.", "We're down to [three] engineers on call now."), ""),
    ("zh-signoff-people", "zh", ("发布需要[两个人]签字", "现在[一个人]签字就行"), ""),
    ("zh-shards", "zh", ("搜索索引分成[五个]分片", "索引现在改成[三个]分片了"), ""),
    ("mix-replicas-words", "mix", ("worker 开了[六个]", "worker 现在减到[四个]了"), ""),
)  # fmt: skip

# (id, language, the stored line, the new line that must leave it a truth)
ALIKE: tuple[tuple[str, Lang, str, str], ...] = (
    # another slot with the same label
    ("en-go-other-part", "en", "The Go version for the CLI is [1.21].", "The Go version for the build scripts is now [1.22]."),
    ("en-safari-other-product", "en", "The web client supports [Safari 15] and newer.", "Minimum Chrome version is now [120]."),
    ("en-gradle-other-build", "en", "CI builds use [Gradle 7.6].", "The Android sample app uses [Gradle 8.5] now."),
    ("zh-node-other-site", "zh", "CI 的 Node 版本是 [18]", "文档站的 Node 版本现在是 [20]"),
    ("zh-go-other-tool", "zh", "后端用 [Go 1.21]", "运维脚本升级到 [Python 3.12] 了"),
    ("mix-java-other-service", "mix", "后端跑在 [Java 17] 上", "Android 端现在是 [Kotlin 2.0] 了"),
    # a return of another subject
    ("en-return-other", "en", "Deploy approvals are given by [Lena].", "[Lena] writes the release notes again."),
    ("en-return-other-tool", "en", "The search service runs on [Elasticsearch].", "Logging is back on [Graylog]."),
    ("zh-return-other", "zh", "数据库迁移脚本由[赵敏]维护", "周报又改回[孙浩]来写了"),
    ("mix-return-other", "mix", "缓存用 [Memcached]", "session store 又换回 [Redis] 了"),
    # `again` / 又 for a repetition, not a return
    ("en-again-failed", "en", "CI runs on [Python 3.11].", "The flaky login test failed again on Python 3.12."),
    ("en-again-outage", "en", "Incident pages go to [PagerDuty].", "Opsgenie sent a duplicate alert again today."),
    ("en-again-retry", "en", "Failed jobs are retried [3] times.", "The import job failed again after 5 attempts."),
    ("zh-again-failed", "zh", "失败的任务重试 [2] 次", "今天部署又失败了 3 次"),
    ("zh-again-slow", "zh", "构建机有 [4] 核", "构建又慢了，跑了 8 分钟"),
    # a count of another thing
    ("en-count-other", "en", "Every schema change needs [three] reviewers.", "Every release needs two sign-offs now."),
    ("zh-count-other", "zh", "发布需要[两个人]签字", "值班现在是一个人"),
    ("mix-count-other", "mix", "worker 开了[六个]", "scheduler 现在只开两个实例"),
)  # fmt: skip

# (id, language, a chain of two lines on one subject, a line after it that must leave the chain's last line the
# only truth on the subject: it names the first value with `again` / 又 / 还是, about another thing)
KEEP: tuple[tuple[str, Lang, tuple[str, str], str], ...] = (
    ("en-keep-again-failed", "en", ("The API tests run on [Python 3.10].", "The API tests moved to [Python 3.13]."), "A flaky import test failed again on Python 3.10 in the legacy job."),
    ("en-keep-other-duty", "en", ("Security sign-off is done by [Ingrid].", "[Pavel] signs off security reviews now."), "Ingrid writes the changelog again."),
    ("en-keep-other-back", "en", ("The metrics store is [InfluxDB].", "Metrics moved to [VictoriaMetrics]."), "The IoT team is back on InfluxDB."),
    ("zh-keep-other-box", "zh", ("打包机有 [6] 核", "打包机升到 [12] 核了"), "测试机还是 6 核"),
    ("zh-keep-other-queue", "zh", ("任务队列用的是 [Celery]", "任务队列换成 [Dramatiq] 了"), "定时任务又改回 Celery 了"),
    ("mix-keep-other-person", "mix", ("release manager 是[郭涛]", "release manager 现在是[龙梅]"), "郭涛又去负责 onboarding 文档了"),
    ("mix-keep-ask-back", "mix", ("搜索用 [Meilisearch]", "search 现在是 [Typesense]"), "search 要不要改回 Meilisearch？"),
    ("en-keep-plan-back", "en", ("Uptime checks run in [Pingdom].", "Uptime checks are done by [Checkly] now."), "We might go back to Pingdom for uptime checks next year."),
)  # fmt: skip

_ZH_TURN = "对了，{}。"
_EN_TURN = "By the way, {}"


def written_statement(marked: str, topic: str, role: Role = "chain", tag: str = "d13") -> Statement:
    """A marked line as a statement of a written round (`auto:` lines reach the store through a turn)."""
    path: Path = "save"
    if marked.startswith(_AUTO):
        marked, path = marked[len(_AUTO) :], "auto"
    text = _SPAN.sub(r"\1", marked)
    spans = _SPAN.findall(marked)
    value = spans[-1] if spans else text
    meaning = Meaning(topic, "", value, False, value)
    turn = text
    if path == "auto":
        turn = (_EN_TURN if text.isascii() else _ZH_TURN).format(text.rstrip("。"))
    return Statement(text, turn, path, role, f"{tag}-{topic}", meaning)


_statement = written_statement


def _question(marked: str) -> str:
    """The stored line with its value cut out: what a user would ask about it."""
    marked = marked.removeprefix(_AUTO)
    return re.sub(r"\s+", " ", _SPAN.sub(" ", marked)).strip(" .。")


def _fix(id_: str, lang: Lang, lines: tuple[str, ...], beside: str) -> Case:
    setup = (_statement(beside, f"{id_}-beside", "neighbour"),) if beside else ()
    chain = tuple(_statement(line, id_) for line in lines)
    shape = f"fix{len(lines)}" + ("-beside" if beside else "")
    return Case(
        f"dev13ret-{id_}",
        "dev13ret",
        lang,
        id_,
        shape,
        f"/memreturn-eval/{id_}",
        setup,
        chain,
        _question(lines[0]),
    )


# a stored line written once for a correction and again for a look-alike keeps one meaning (the oracle reads
# a meaning by its text): the correction's subject
_TOPIC_OF = {_SPAN.sub(r"\1", line.removeprefix(_AUTO)): id_ for id_, _, lines, _ in FIX for line in lines}


def _alike(id_: str, lang: Lang, stored: str, new: str) -> Case:
    topic = _TOPIC_OF.get(_SPAN.sub(r"\1", stored), f"{id_}-stored")
    setup = (_statement(stored, topic, "neighbour"),)
    chain = (_statement(new, f"{id_}-new"),)
    return Case(
        f"dev13ret-{id_}",
        "dev13ret",
        lang,
        id_,
        "alike",
        f"/memreturn-eval/{id_}",
        setup,
        chain,
        _question(stored),
    )


def _keep(id_: str, lang: Lang, lines: tuple[str, str], aside: str) -> Case:
    chain = tuple(_statement(line, id_) for line in lines)
    after = replace(_statement(aside, f"{id_}-aside"), expect=chain[-1].meaning)
    return Case(
        f"dev13ret-{id_}",
        "dev13ret",
        lang,
        id_,
        "keep",
        f"/memreturn-eval/{id_}",
        (),
        (*chain, after),
        _question(lines[0]),
    )


CASES = (
    tuple(_fix(*row) for row in FIX)
    + tuple(_alike(*row) for row in ALIKE)
    + tuple(_keep(*row) for row in KEEP)
)
