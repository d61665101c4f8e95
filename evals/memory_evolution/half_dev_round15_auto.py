"""Round 15 of the dev half (memauto4, issue 37): a change told through the automatic path, framed the way people
frame an update.

Hand-written, in my own words, before the product change; no test case seen. Each case is one project and a
chain of three lines, most of them said in passing inside a turn (same mechanics as round 14):

- `negend` (A, then B, then B is over): only the denial may remain a truth on the subject afterwards;
- `three` (A, then B, then C): only C may remain;
- `keep` (A, then B, then a twin that must store nothing and leave B the truth).

The updates carry what round 14 did not: the user's own framing before the statement (a label closed by a colon
or a dash: `To close the loop on this:`, `说明一下：`, `Status change —`), a time that dates the change at the start
of the sentence (`Since Tuesday, …`, `上周起，…`, `这个月开始…`), and a line that holds two facts joined by `and`,
`以及` or `；`, one of them the change. The twins put the same framing or the same opening time before a
question, a plan, a conditional, a one-off remark about today, or words quoted from a file or a command's output.

A line is the user's whole turn; `{...}` marks the quote a careful extractor picks from it (no braces: the whole
line), `[...]` a value span inside it. Path letters: `a` automatic, `s` /save of the quote, `t` save_memory.
"""

from __future__ import annotations

from dataclasses import replace

from evals.memory_evolution.half_dev_round10 import HALF as BASE
from evals.memory_evolution.half_dev_round14_auto import Row, cases_of

HALF = replace(BASE, name="dev15auto")


# (id, language, shape, paths of the three lines, (first, second, third line))
ROWS: tuple[Row, ...] = (
    # ---- English: the user's own framing before the update ----
    ("en-deploy-loop", "en", "three", "aaa", ("Deploys go through [Jenkins].", "To close the loop on this: {deploys go through [Argo CD] now}.", "One more update on that — {deploys go through [Spinnaker]}."), ),
    ("en-bugs-flag", "en", "negend", "aaa", ("Bugs are tracked in [Jira].", "Worth flagging for later: {bugs are tracked in [Linear] now}.", "For the avoidance of doubt, {we don't track bugs in Linear anymore}."), ),
    ("en-design-docs", "en", "three", "aaa", ("The design docs live in [Confluence].", "Correction to what I said before: {the design docs live in [Notion]}.", "Status change — {the design docs live in [the repo wiki] now}."), ),
    ("en-sso-context", "en", "negend", "saa", ("Single sign-on goes through [Okta].", "Some context for later: {single sign-on goes through [Keycloak] these days}.", "Small correction: {single sign-on no longer goes through Keycloak}."), ),
    ("en-flags-side", "en", "three", "aaa", ("Feature flags are managed in [LaunchDarkly].", "Update from my side — {feature flags are managed in [Unleash] now}.", "For your records: {feature flags are managed in [Flagsmith]}."), ),
    # ---- English: a time that dates the change opens the sentence ----
    ("en-prod-since", "en", "three", "aaa", ("Production deploys are approved in [ServiceNow].", "{Since Tuesday, production deploys are approved in [Jira Service Management]}.", "{As of the last release, production deploys are approved in [GitHub Environments]}."), ),
    ("en-format-month", "en", "negend", "aaa", ("Python code is formatted with [black].", "{Starting this month, Python code is formatted with [ruff format]}.", "{Since the toolchain cleanup, Python code is no longer formatted with ruff format}."), ),
    ("en-standup-move", "en", "three", "saa", ("The team standup happens on [Zoom].", "{Since the move to the new office, the team standup happens on [Google Meet]}.", "{From next sprint on, the team standup happens on [Slack huddles]}."), ),
    ("en-node-week", "en", "three", "aaa", ("The API runs on Node [18].", "{Since January the API runs on Node [20]}.", "{Last week the API moved to Node [22]}."), ),
    ("en-backup-outage", "en", "negend", "aaa", ("Backups are replicated to [us-west-2].", "{Since the outage in May, backups are replicated to [eu-central-1]}.", "{Backups are no longer replicated to eu-central-1}."), ),
    # ---- English: two facts in one line, one of them the change ----
    ("en-staging-and", "en", "three", "aaa", ("The staging database is [PostgreSQL 14].", "{The staging database is [PostgreSQL 16] now} and the cache stays on Redis.", "The CI cache lives in S3 and {the staging database is [Aurora PostgreSQL] these days}."), ),
    ("en-errors-semi", "en", "negend", "aaa", ("Error tracking is done in [Sentry].", "Logs are in Loki; {error tracking is done in [Rollbar] now}.", "{Error tracking isn't done in Rollbar anymore}; we dropped the contract."), ),
    ("en-mobile-and", "en", "three", "saa", ("The mobile app is built with [Fastlane].", "We renamed the repo, and {the mobile app is built with [Bitrise] now}.", "{The mobile app is built with [Codemagic]} and releases ship on Thursdays."), ),
    # ---- English twins: must store nothing, B stays the truth ----
    ("en-keep-today", "en", "keep", "aaa", ("Production deploys are approved in [ServiceNow].", "{Since Tuesday, production deploys are approved in [Jira Service Management]}.", "{Today production deploys are approved in ServiceNow again} while Jira is patched."), ),
    ("en-keep-label-plan", "en", "keep", "aaa", ("Feature flags are managed in [LaunchDarkly].", "{Feature flags are managed in [Unleash] now}.", "To close the loop on this: {we might manage feature flags in Flagsmith next quarter}."), ),
    ("en-keep-since-question", "en", "keep", "aaa", ("Python code is formatted with [black].", "{Starting this month, Python code is formatted with [ruff format]}.", "Since the upgrade, {is Python code still formatted with ruff format}?"), ),
    ("en-keep-label-if", "en", "keep", "aaa", ("Error tracking is done in [Sentry].", "{Error tracking is done in [Rollbar] now}.", "Status change — {if Rollbar gets too pricey we'll do error tracking in Bugsnag}."), ),
    ("en-keep-runbook", "en", "keep", "aaa", ("Deploys go through [Jenkins].", "{Deploys go through [Argo CD] now}.", "The old runbook says: {deploys go through Harness}"), ),
    ("en-keep-and-plan", "en", "keep", "aaa", ("Bugs are tracked in [Jira].", "{Bugs are tracked in [Linear] now}.", "Logs are in Loki and {we might track bugs in Shortcut} next quarter."), ),
    ("en-keep-log", "en", "keep", "aaa", ("The API runs on Node [18].", "{Since January the API runs on Node [20]}.", "The build log printed:\n```\n{Since v4 the API runs on Node 16}\n```"), ),
    # ---- Chinese ----
    ("zh-mq-label", "zh", "three", "aaa", ("消息队列用的是 [RabbitMQ]", "说明一下：{消息队列现在用 [Kafka]}", "同步个进展——{消息队列换成了 [Pulsar]}"), ),
    ("zh-registry-label", "zh", "negend", "aaa", ("镜像仓库是 [Harbor]", "跟进一下上次的事：{镜像仓库改成了 [阿里云 ACR]}", "纠正一下：{镜像仓库已经不用阿里云 ACR 了}"), ),
    ("zh-docs-label", "zh", "three", "saa", ("设计文档放在 [语雀]", "更正：{设计文档放在 [飞书文档]}", "最新情况：{设计文档挪到 [Notion] 了}"), ),
    ("zh-meeting-from", "zh", "three", "aaa", ("周会定在 [周一]", "{从这个月起，周会改到 [周三]}", "{自上周五开始，周会改在 [周四]}"), ),
    ("zh-release-since", "zh", "negend", "aaa", ("线上发布走 [Jenkins]", "{上周起，线上发布改走 [Argo CD]}", "{这个月开始线上发布不走 Argo CD 了}"), ),
    ("zh-jdk-year", "zh", "three", "aaa", ("后端跑在 JDK [17] 上", "{今年初开始，后端跑在 JDK [21] 上}", "{从 3.0 版本起后端跑在 JDK [25] 上}"), ),
    ("zh-logs-yiji", "zh", "three", "aaa", ("日志平台是 [ELK]", "{日志平台换成了 [Loki]}，以及告警改走 PagerDuty", "监控还是 Prometheus；{日志平台现在是 [SLS]}"), ),
    ("zh-oss-semi", "zh", "negend", "aaa", ("对象存储用 [MinIO]", "CDN 不变；{对象存储改用 [OSS] 了}", "{对象存储不再用 OSS 了}；CDN 照旧"), ),
    ("zh-keep-today", "zh", "keep", "aaa", ("周会定在 [周一]", "{从这个月起，周会改到 [周三]}", "{今天周会临时挪到周五}"), ),
    ("zh-keep-label-plan", "zh", "keep", "aaa", ("消息队列用的是 [RabbitMQ]", "{消息队列现在用 [Kafka]}", "补充一点：{下个月可能把消息队列换成 NATS}"), ),
    ("zh-keep-label-question", "zh", "keep", "aaa", ("镜像仓库是 [Harbor]", "{镜像仓库改成了 [阿里云 ACR]}", "跟进一下：{镜像仓库是不是换回 Harbor 了}？"), ),
    ("zh-keep-output", "zh", "keep", "aaa", ("线上发布走 [Jenkins]", "{上周起，线上发布改走 [Argo CD]}", "部署脚本的输出：\n```\n{线上发布走 GitHub Actions}\n```"), ),
    ("zh-keep-yiji-if", "zh", "keep", "aaa", ("日志平台是 [ELK]", "{日志平台换成了 [Loki]}", "告警照旧，以及{如果 Loki 扛不住，日志平台就换回 ELK}"), ),
    # ---- code-switched ----
    ("mix-secret-label", "mix", "three", "aaa", ("secret store 用的是 [Vault]", "补一句：{secret store 换成 [Infisical] 了}", "Quick correction：{secret store 现在是 [Doppler]}"), ),
    ("mix-runner-since", "mix", "negend", "aaa", ("CI runner 跑在 [GitHub Actions] 上", "{从 v3 开始，CI runner 跑在 [Buildkite] 上}", "{CI runner 已经不跑在 Buildkite 上了}"), ),
    ("mix-pm-two", "mix", "three", "aaa", ("package manager 是 [npm]", "{package manager 换成 [pnpm] 了}，以及 Node 升到 22", "lockfile 照旧提交；{package manager 现在是 [Bun]}"), ),
    ("mix-keep-label-if", "mix", "keep", "aaa", ("secret store 用的是 [Vault]", "{secret store 换成 [Infisical] 了}", "补充一点：{要是 Infisical 太贵，secret store 就换回 Vault}"), ),
    ("mix-keep-today", "mix", "keep", "aaa", ("CI runner 跑在 [GitHub Actions] 上", "{CI runner 跑在 [Buildkite] 上}", "Heads-up — {今天 CI runner 临时跑在 GitHub Actions 上}"), ),
)  # fmt: skip


CASES = cases_of(ROWS, "15", "memauto4")
