"""Round 14 of the dev half (memauto3, issue 37): a chain told through the automatic path, in the way people talk.

Hand-written, in my own words, before the product change; no test case seen. Each case is one project and a
chain of three lines, most of them said in passing inside a turn, not saved:

- `negend` (A, then B, then B is over): only the denial may remain a truth on the subject afterwards;
- `three` (A, then B, then C): only C may remain;
- `keep` (A, then B, then a twin that must store nothing and leave B the truth): a question, a plan, a
  conditional, a one-off remark about today, or a line quoted from a file or a command's output.

The updates are what the automatic path meets in real turns: a long sentence with a clause before or after the
fact (`After the audit in March, …`, `…, which the platform group runs`), a preamble of the user's own
(`Quick note for later:`, `FYI,`, `顺便记一下：`, `对了，`), a bare note without a verb (`default branch: develop`),
a subject whose own words look like a remark about today (`告警` inside the subject, a `today's` in a name),
in English, Chinese and code-switched text.

A line is the user's whole turn; `{...}` marks the quote a careful extractor picks from it (no braces: the whole
line), `[...]` a value span inside it. A line's path letter is `a` (automatic), `s` (/save of the quote) or `t`
(save_memory of the quote). Every row runs on its own paths and, when those are not all automatic, once more with
every line automatic. `CASES` replaces the grid generator for this half (`__main__.cases_of`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Literal

from evals.memory_evolution.cases import Case, Meaning, Path, Statement
from evals.memory_evolution.half_dev_round10 import HALF as BASE
from evals.memory_evolution.spec import Lang

HALF = replace(BASE, name="dev14auto")

_SPAN = re.compile(r"\[([^\]]*)\]")
_QUOTE = re.compile(r"\{([^}]*)\}")
_PATHS: dict[str, Path] = {"s": "save", "t": "tool", "a": "auto"}
Shape = Literal["negend", "three", "keep"]

# (id, language, shape, paths of the three lines, (first, second, third line))
ROWS: tuple[tuple[str, Lang, Shape, str, tuple[str, str, str]], ...] = (
    # ---- English: long sentences around the update ----
    ("en-secrets-audit", "en", "negend", "aaa", ("Secrets are stored in [AWS Secrets Manager].", "After the audit in March, {we moved the secrets into [HashiCorp Vault], which the platform group runs}.", "{Secrets are no longer kept in Vault}, we gave that up last week."), ),
    ("en-queue-since", "en", "negend", "saa", ("The job queue is [Sidekiq].", "{Since the rewrite of the billing worker, the job queue has been [Celery]}.", "Honestly {we're not using Celery for the job queue anymore}."), ),
    ("en-logs-which", "en", "three", "aaa", ("Application logs are shipped to [Papertrail].", "{Application logs are shipped to [Loki], which the SRE team set up in the spring}.", "{Application logs now go to [Datadog Logs]} because Loki kept running out of disk."), ),
    ("en-search-because", "en", "three", "saa", ("The search backend is [Elasticsearch 7].", "{Because of the licence change, the search backend is now [OpenSearch 2]}.", "{The search backend moved to [Meilisearch]} after the last load test."), ),
    ("en-proxy-when", "en", "negend", "aaa", ("Our reverse proxy is [nginx].", "{When we rebuilt the edge last year we switched the reverse proxy to [Traefik]}.", "{Traefik is not our reverse proxy anymore}."), ),
    # ---- English: preambles of the user's own ----
    ("en-registry-quicknote", "en", "negend", "aaa", ("Container images are pushed to [Docker Hub].", "Quick note for later: {container images are pushed to [GHCR] now}.", "FYI, {we no longer push container images to GHCR}."), ),
    ("en-monitor-fyi", "en", "three", "aaa", ("Uptime checks run on [Pingdom].", "FYI, {uptime checks run on [Better Stack] now}.", "Just so you know, {uptime checks moved to [Checkly]}."), ),
    ("en-cdn-heads", "en", "negend", "saa", ("The CDN in front of the site is [Cloudflare].", "Side note: {the CDN in front of the site is [Fastly] these days}.", "Also, for what it's worth, {Fastly isn't the CDN in front of the site anymore}."), ),
    ("en-db-remember", "en", "three", "aaa", ("The analytics database is [ClickHouse].", "Oh and one more thing, {the analytics database is [BigQuery] now}.", "Worth remembering: {the analytics database moved to [Snowflake]}."), ),
    # ---- English: bare notes without a verb ----
    ("en-branch-bare", "en", "negend", "aaa", ("Default branch: [master]", "Update, {default branch: [develop]}", "{develop is not the default branch anymore}"), ),
    ("en-node-bare", "en", "three", "aaa", ("Node version for the frontend: [18]", "{Node version for the frontend: [20]}", "{Node version for the frontend: [22]}, bumped it this morning"), ),
    ("en-region-bare", "en", "negend", "saa", ("Primary region: [eu-west-1]", "Heads-up — {primary region: [us-east-2]}", "{us-east-2 is no longer the primary region}"), ),
    # ---- English: a subject whose words look like a remark about today ----
    ("en-today-name", "en", "three", "aaa", ("The today's-picks widget is served by [the recs service].", "{The today's-picks widget is served by [the catalog service] now}.", "{The today's-picks widget is served by [the edge worker]} since the redesign."), ),
    ("en-alert-subject", "en", "negend", "aaa", ("Alert routing is handled by [PagerDuty].", "{Alert routing is handled by [Opsgenie] now}.", "{Opsgenie no longer handles alert routing}."), ),
    # ---- English twins: must store nothing, B stays the truth ----
    ("en-keep-question", "en", "keep", "aaa", ("Secrets are stored in [AWS Secrets Manager].", "FYI, {secrets are stored in [HashiCorp Vault] now}.", "{Are secrets still stored in Vault}, or did that change?"), ),
    ("en-keep-plan", "en", "keep", "aaa", ("The job queue is [Sidekiq].", "Quick note for later: {the job queue is [Celery] now}.", "{We might move the job queue to RQ next quarter}, not decided."), ),
    ("en-keep-condition", "en", "keep", "aaa", ("The reverse proxy is [nginx].", "{The reverse proxy is [Traefik] these days}.", "{If Traefik keeps dropping connections we'll stop using it as the reverse proxy}."), ),
    ("en-keep-today", "en", "keep", "aaa", ("Container images are pushed to [Docker Hub].", "{Container images are pushed to [GHCR] now}.", "{Today images are pushed to Quay} because GHCR is down."), ),
    ("en-keep-file", "en", "keep", "aaa", ("The CDN in front of the site is [Cloudflare].", "{The CDN in front of the site is [Fastly] now}.", "The README says:\n> {the CDN in front of the site is Akamai}\nis that stale?"), ),
    ("en-keep-output", "en", "keep", "aaa", ("Primary region: [eu-west-1]", "{Primary region: [us-east-2]}", "Here is what the script printed:\n```\n{primary region: ap-south-1}\n```"), ),
    # ---- Chinese ----
    ("zh-cache-preamble", "zh", "negend", "aaa", ("缓存服务用的是 [Memcached]", "顺便记一下：{缓存服务现在用 [Redis 7]}", "对了，{缓存服务已经不用 Redis 了}"), ),
    ("zh-alert-subject", "zh", "three", "aaa", ("告警通知发到[企业微信群]", "对了，{告警通知现在发到[钉钉群]}", "{告警通知改成发到[飞书值班群]了}"), ),
    ("zh-alert-negend", "zh", "negend", "saa", ("告警规则由 [Prometheus] 管理", "{告警规则改由 [Grafana Alerting] 管理了}", "{告警规则已经不归 Grafana 管了}"), ),
    ("zh-ci-long", "zh", "three", "aaa", ("构建流水线跑在 [Jenkins] 上", "上个月机房搬迁以后，{构建流水线就换到了 [GitLab CI] 上}", "{构建流水线又迁到 [Argo Workflows] 了}，原因是要和部署统一"), ),
    ("zh-pool-value", "zh", "three", "aaa", ("数据库连接池大小是 [20]", "{连接池调到 [40] 了}", "{连接池现在是 [32]}"), ),
    ("zh-branch-bare", "zh", "negend", "aaa", ("默认分支：[master]", "更新一下，{默认分支：[develop]}", "{默认分支不再是 develop 了}"), ),
    ("zh-reviewer-fyi", "zh", "negend", "saa", ("代码评审由[王磊]负责", "说一声，{代码评审现在由[陈静]负责}", "{陈静已经不负责代码评审了}"), ),
    ("zh-docs-long", "zh", "three", "aaa", ("接口文档放在 [Swagger UI]", "为了方便外部团队查阅，{接口文档已经搬到 [Apifox] 上了}", "{接口文档现在放在 [Stoplight]}"), ),
    ("zh-keep-question", "zh", "keep", "aaa", ("缓存服务用的是 [Memcached]", "顺便记一下：{缓存服务现在用 [Redis 7]}", "{缓存服务是不是不用 Redis 了}？"), ),
    ("zh-keep-plan", "zh", "keep", "aaa", ("构建流水线跑在 [Jenkins] 上", "{构建流水线换到了 [GitLab CI] 上}", "{下个季度打算把构建流水线迁到 Tekton}，还没定"), ),
    ("zh-keep-condition", "zh", "keep", "aaa", ("告警通知发到[企业微信群]", "{告警通知现在发到[钉钉群]}", "{要是钉钉群再收不到告警，就改发飞书}"), ),
    ("zh-keep-today", "zh", "keep", "aaa", ("数据库连接池大小是 [20]", "{连接池调到 [40] 了}", "{今天连接池临时调成 10}，压测完就改回去"), ),
    ("zh-keep-output", "zh", "keep", "aaa", ("默认分支：[master]", "{默认分支：[develop]}", "命令输出是这样的：\n```\n{默认分支：release}\n```"), ),
    # ---- code-switched ----
    ("mix-queue-preamble", "mix", "negend", "aaa", ("message queue 用的是 [RabbitMQ]", "顺便说下，{message queue 现在换成 [Kafka] 了}", "FYI，{message queue 已经不用 Kafka 了}"), ),
    ("mix-deploy-long", "mix", "three", "aaa", ("deploy target 是 [Heroku]", "为了省钱，{deploy target 换成了 [Fly.io]}，上周刚切过去", "{deploy target 现在是 [Render]}"), ),
    ("mix-branch-bare", "mix", "negend", "aaa", ("default branch：[main]", "对了，{default branch：[trunk]}", "{default branch 不再是 trunk 了}"), ),
    ("mix-alert-subject", "mix", "three", "aaa", ("alert channel 是 [#ops]", "{alert channel 改成 [#oncall] 了}", "{alert channel 现在是 [#sre-pager]}"), ),
    ("mix-lint-en", "mix", "negend", "saa", ("linter 用 [ESLint]", "Quick note: {linter 现在用 [Biome]}", "{Biome 已经不用作 linter 了}"), ),
    ("mix-keep-question", "mix", "keep", "aaa", ("message queue 用的是 [RabbitMQ]", "{message queue 现在换成 [Kafka] 了}", "{message queue 还是 Kafka 吗}？"), ),
    ("mix-keep-today", "mix", "keep", "aaa", ("deploy target 是 [Heroku]", "{deploy target 换成了 [Fly.io]}", "{今天 deploy target 先用 Railway}，Fly.io 在维护"), ),
)  # fmt: skip


def _text(marked: str) -> str:
    return _SPAN.sub(r"\1", marked)


def _quote_part(line: str) -> str:
    found = _QUOTE.search(line)
    return found.group(1) if found else line


def _clean(text: str) -> str:
    return text.strip().rstrip(".。")


def _statement(
    lang: Lang, line: str, path: Path, family: str, meaning: Meaning, expect: Meaning | None = None
) -> Statement:
    quote = _clean(_text(_quote_part(line)))
    turn = _text(_QUOTE.sub(r"\1", line)) if path == "auto" else quote
    if path == "tool":
        turn = BASE.remember[lang].format(X=quote)
    return Statement(quote, turn, path, "chain", family, meaning, expect)


Row = tuple[str, Lang, Shape, str, tuple[str, str, str]]


def _case(row: Row, paths: str, topic: dict[str, str], round_: str, folder: str) -> Case:
    name, lang, shape, _, lines = row
    id_ = topic[_clean(_text(lines[0]))]
    family = f"d{round_}-{shape}"
    chain: list[Statement] = []
    steps = lines if shape == "three" else lines[:2]
    for step, line in enumerate(steps):
        value = _SPAN.findall(_quote_part(line))[-1]
        chain.append(
            _statement(lang, line, _PATHS[paths[step]], family, Meaning(id_, "", value, False, value))
        )
    if shape != "three":
        last, path = lines[2], _PATHS[paths[2]]
        held = chain[-1].meaning
        quote = _clean(_quote_part(last))
        if shape == "negend":  # the denial's meaning: B no longer holds, carried by the whole quote
            chain.append(_statement(lang, last, path, family, Meaning(id_, "", held.value, True, quote)))
        else:  # a twin is about nothing the store may keep; B stays the truth
            chain.append(
                _statement(lang, last, path, family, Meaning(f"{name}-twin", "", quote, False, quote), held)
            )
    question = re.sub(r"\s+", " ", _SPAN.sub(" ", _quote_part(lines[0]))).strip(" .。:：")
    tag = "" if paths == row[3] else "-auto"
    return Case(
        f"dev{round_}auto-{name}{tag}",
        f"dev{round_}auto",
        lang,
        name,
        shape,
        f"/{folder}-eval/{name}{tag}",
        (),
        tuple(chain),
        question,
    )


def cases_of(rows: tuple[Row, ...], round_: str, folder: str) -> tuple[Case, ...]:
    """Each row as written and, when it is not all automatic, once more all automatic (`round_`: `14`, `15`;
    `folder`: the project folder's name). Rows that open with the same line share one subject (the oracle reads a
    meaning by its text)."""
    topic = {_clean(_text(r[4][0])): r[0] for r in reversed(rows)}
    cases: list[Case] = []
    for row in rows:
        cases.append(_case(row, row[3], topic, round_, folder))
        if row[3] != "aaa":
            cases.append(_case(row, "aaa", topic, round_, folder))
    return tuple(cases)


CASES = cases_of(ROWS, "14", "memauto3")
