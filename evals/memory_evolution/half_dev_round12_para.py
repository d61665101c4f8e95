"""Round 12 of the dev half (memchange2, issue 37): a correction that names its subject in other words.

Hand-written, in my own words, before the product change; no test case seen. Each case is one project:

- `fix` cases (chains of 2-3 `/save` lines): the later line carries a change marker and names the stored
  subject differently: another word form, a noun for a verb, a modifier for a head (`retry limit for webhooks`
  / `webhook retries are capped at`), a synonym verb, a possessive, a passive replacement, the product name
  moving between the subject and the value. Values: numbers with units, sizes, durations, times of day,
  versions with a product name, counts (Chinese numerals and count words), tools, places, names. Only the
  last line may stay a truth on the subject; some cases also store a look-alike first (`beside`), which must
  stay a truth.
- `alike` cases: a stored fact, then a new line that must supersede nothing: another component with the same
  kind of value, an added fact (`also`, 也), a plan or a question, or a second subject in the same sentence.
  The stored fact is a setup fact (a loss counts as "setup facts lost"); the new line is the chain.

`[...]` marks a value span in a line (the oracle judge quotes it). `CASES` replaces the grid generator for
this half (`__main__.cases_of`); `HALF` is only there for the runner's shape.
"""

from __future__ import annotations

import re
from dataclasses import replace

from evals.memory_evolution.cases import Case, Meaning, Role, Statement
from evals.memory_evolution.half_dev_round10 import HALF as BASE
from evals.memory_evolution.spec import Lang

HALF = replace(BASE, name="dev12para")

_SPAN = re.compile(r"\[([^\]]*)\]")

# (id, language, lines, look-alike stored first or "")
FIX: tuple[tuple[str, Lang, tuple[str, ...], str], ...] = (
    # ---- English: the subject said another way, with a change marker ----
    ("en-release-cadence", "en", ("The mobile team ships a release every [two weeks].", "Mobile releases now go out [every week]."), ""),
    ("en-retry-cap", "en", ("The retry limit for webhooks is [3].", "Webhook retries are capped at [5] now."), "Email retries are limited to [4]."),
    ("en-lint-passive", "en", ("We lint with [flake8].", "flake8 was replaced by [Ruff] for linting."), ""),
    ("en-upload-cap", "en", ("The maximum upload size is [10 MB].", "Uploads are now capped at [25 MB]."), "The maximum download size is [200 MB]."),
    ("en-session-timeout", "en", ("The session timeout is [30 minutes].", "Sessions now time out after [15 minutes]."), ""),
    ("en-nightly-time", "en", ("The nightly job runs at [2 am].", "Nightly runs were moved to [4:30 am]."), ""),
    ("en-gateway-version", "en", ("Our API gateway is [Kong 3.4].", "We upgraded the gateway to [Kong 3.6]."), ""),
    ("en-kafka-moves", "en", ("The Kafka version is [3.5].", "We're on [Kafka 3.7] now."), ""),
    ("en-oncall-owner", "en", ("[Hannah] owns the on-call rotation.", "The on-call rotation is now owned by [Omar]."), ""),
    ("en-artifact-noun", "en", ("Build artifacts are stored in [Artifactory].", "Artifact storage moved to [Nexus]."), ""),
    ("en-coverage", "en", ("Code coverage must be at least [80%].", "The coverage threshold is now [85%]."), ""),
    ("en-staging-region", "en", ("Our staging cluster runs in [Frankfurt].", "The staging cluster is in [Dublin] now."), ""),
    ("en-pool-size", "en", ("The database connection pool holds [20] connections.", "The DB pool size is now [40]."), "The Redis pool holds [10] connections."),
    ("en-standup", "en", ("The team standup is at [9:15].", "Standups now start at [10:00]."), ""),
    ("en-webhook-timeout", "en", ("Payment webhooks time out after [10 seconds].", "The payment webhook timeout was raised to [30 seconds]."), ""),
    ("en-frontend-host", "en", ("The frontend is deployed by [Vercel].", "Frontend deployments go through [Netlify] now."), ""),
    ("en-image-3", "en", ("Docker images are built with [Kaniko].", "Image builds switched to [BuildKit].", "We build images with [Kaniko] again."), ""),
    ("en-cache-3", "en", ("The cache TTL is [5 minutes].", "Cached entries now expire after [10 minutes].", "Cache expiry is back to [5 minutes]."), ""),
    ("en-error-tracker", "en", ("Our error tracker is [Sentry].", "Errors are tracked in [Bugsnag] now."), ""),
    ("en-approver", "en", ("Release approvals are handled by [Priya].", "[Marco] approves releases now."), ""),
    ("en-test-runner-poss", "en", ("The project's test runner is [Jest].", "Our tests run on [Vitest] now."), ""),
    ("en-secrets", "en", ("We store secrets in [Vault].", "Secret storage moved to [AWS Secrets Manager]."), ""),
    ("en-min-sdk", "en", ("The Android app's minimum SDK is [26].", "The Android min SDK was bumped to [29]."), "The iOS app's minimum version is [iOS 15]."),
    ("en-workers", "en", ("The worker count is [4].", "We now run [8] workers."), ""),
    ("en-log-shipping", "en", ("Logs are shipped to [Datadog].", "Log shipping now goes to [Grafana Loki]."), ""),
    ("en-backup-keep-3", "en", ("Database backups are retained for [7 days].", "Backup retention is now [14 days].", "We keep backups for [30 days] now."), ""),
    ("en-review-count", "en", ("Every pull request needs [two] approvals.", "PRs now require [one] approval."), ""),
    ("en-python-version", "en", ("The service runs on [Python 3.11].", "We're on [Python 3.12] now."), ""),
    # ---- Chinese ----
    ("zh-parallel-cap", "zh", ("同时最多跑 [3] 个构建", "构建并发上限现在调到 [6] 个"), ""),
    ("zh-upload-limit", "zh", ("上传文件最大 [20MB]", "上传大小限制改成 [50MB] 了"), "下载文件最大 [500MB]"),
    ("zh-backup-time", "zh", ("每天凌晨[两点]做全量备份", "全量备份现在挪到[四点]了"), ""),
    ("zh-api-timeout", "zh", ("接口超时时间是 [5 秒]", "接口现在 [10 秒] 超时"), ""),
    ("zh-review-people", "zh", ("代码评审要[两个人]通过", "评审通过人数改成[一个人]了"), ""),
    ("zh-session", "zh", ("会话保持[三十分钟]", "会话有效期现在是[十五分钟]"), ""),
    ("zh-release-day", "zh", ("每周[四]下午发版", "发版日现在改到周[二]了"), ""),
    ("zh-log-tool", "zh", ("日志服务用的是 [ELK]", "日志现在换成 [Loki] 了"), ""),
    ("zh-test-env-place", "zh", ("测试环境部署在[杭州]机房", "测试环境迁到[深圳]了"), "生产环境部署在[北京]机房"),
    ("zh-node-moves", "zh", ("前端的 Node 版本是 [18]", "前端现在用 [Node 20]"), ""),
    ("zh-pool", "zh", ("数据库连接池大小是 [20]", "连接池现在调到 [50] 了"), ""),
    ("zh-oncall-name", "zh", ("值班由[王磊]负责", "现在[陈静]值班"), ""),
    ("zh-retry-gap", "zh", ("重试间隔是 [30 秒]", "重试之间现在隔[一分钟]"), ""),
    ("zh-registry-3", "zh", ("镜像仓库用 [Harbor]", "镜像现在推到 [Nexus]", "镜像仓库又换回 [Harbor] 了"), ""),
    ("zh-coverage", "zh", ("单元测试覆盖率要求 [80%]", "覆盖率门槛现在提到 [90%] 了"), ""),
    ("zh-pr-approvals", "zh", ("每个 PR 至少要[一个]审批", "PR 审批人数现在改成[两个]了"), ""),
    ("zh-worker-3", "zh", ("后台任务跑 [4] 个 worker", "worker 数量现在加到[八个]", "后台任务的 worker 又改回 [4] 个"), ""),
    # ---- mixed ----
    ("mix-ci-timeout", "mix", ("CI 的超时是 [30 分钟]", "CI jobs 现在 [60 分钟] 超时"), ""),
    ("mix-replicas", "mix", ("staging 的 replicas 是 [2]", "staging 现在跑 [4] 个 replicas"), "production 的 replicas 是 [6]"),
    ("mix-deps", "mix", ("我们用 [Poetry] 管理依赖", "dependency management 换成 [uv] 了"), ""),
    ("mix-rate-limit", "mix", ("API 的 rate limit 是每分钟 [100] 次", "API 限流现在调到每分钟 [300] 次"), ""),
    ("mix-redis-moves", "mix", ("Redis 版本是 [6.2]", "现在用的是 [Redis 7.2]"), ""),
    ("mix-nightly-time", "mix", ("nightly build 在 [3 点] 跑", "nightly builds 现在改到 [5 点]"), ""),
    ("mix-linter", "mix", ("linter 用的是 [flake8]", "lint 现在换成 [Ruff] 了"), ""),
    ("mix-deploy-3", "mix", ("deploy 频率是[每周一次]", "deploy 现在改成[每天一次]", "部署频率又回到[每周一次]了"), ""),
)  # fmt: skip

# (id, language, the stored line, the new line that must leave it a truth)
ALIKE: tuple[tuple[str, Lang, str, str], ...] = (
    # another component, the same kind of value
    ("en-other-upload", "en", "The max upload size is [10 MB].", "The max download size is [50 MB] now."),
    ("en-other-retries", "en", "Webhook retries are capped at [5].", "Email retries are capped at [3] now."),
    ("en-other-job-time", "en", "The nightly job runs at [2 am].", "The weekly report job now runs at [6 am]."),
    ("en-other-storage", "en", "Build artifacts are stored in [Artifactory].", "Test reports are now stored in [S3]."),
    ("en-other-version", "en", "Our API gateway is [Kong 3.4].", "Our service mesh is now [Istio 1.20]."),
    ("en-other-app", "en", "The Android app's minimum SDK is [26].", "The iOS app's minimum version is now [iOS 16]."),
    ("en-other-session", "en", "The session timeout is [30 minutes].", "The admin session timeout is [10 minutes] now."),
    ("en-other-deploy", "en", "The frontend is deployed by [Vercel].", "The docs site is deployed by [Netlify] now."),
    ("en-other-pool", "en", "The database connection pool holds [20] connections.", "The Redis pool now holds [50] connections."),
    ("en-other-approver", "en", "Release approvals are handled by [Priya].", "Incident reviews are handled by [Marco] now."),
    ("en-other-retention", "en", "Database backups are retained for [7 days].", "Audit logs are now retained for [90 days]."),
    ("en-other-python", "en", "The service runs on [Python 3.11].", "The data pipeline runs on [Python 3.12] now."),
    ("zh-other-upload", "zh", "上传文件最大 [20MB]", "下载文件最大现在是 [100MB]"),
    ("zh-other-parallel", "zh", "同时最多跑 [3] 个构建", "测试并发上限现在调到 [8] 个"),
    ("zh-other-timeout", "zh", "接口超时时间是 [5 秒]", "数据库查询超时现在是 [10 秒]"),
    ("zh-other-duty", "zh", "值班由[王磊]负责", "发布审批现在由[陈静]负责"),
    ("zh-other-env", "zh", "测试环境部署在[杭州]机房", "生产环境现在迁到[深圳]了"),
    ("zh-other-runtime", "zh", "前端的 Node 版本是 [18]", "后端现在用 [Java 21]"),
    ("zh-other-tool", "zh", "日志服务用的是 [ELK]", "监控现在换成 [Prometheus] 了"),
    ("zh-other-ttl", "zh", "会话保持[三十分钟]", "验证码有效期现在是[五分钟]"),
    ("mix-other-ci", "mix", "CI 的超时是 [30 分钟]", "CD pipeline 现在 [60 分钟] 超时"),
    ("mix-other-replicas", "mix", "staging 的 replicas 是 [2]", "production 现在跑 [6] 个 replicas"),
    ("mix-other-version", "mix", "Redis 版本是 [6.2]", "Postgres 现在升到 [16] 了"),
    ("mix-other-linter", "mix", "linter 用的是 [flake8]", "formatter 现在换成 [Black] 了"),
    ("en-other-standup", "en", "The team standup is at [9:15].", "The design review now starts at [10:00]."),
    ("en-other-coverage", "en", "Code coverage must be at least [80%].", "The mutation score threshold is now [60%]."),
    ("en-other-workers", "en", "The worker count is [4].", "We now run [8] crawler threads."),
    ("en-other-region", "en", "Our staging cluster runs in [Frankfurt].", "The analytics cluster is in [Dublin] now."),
    ("en-other-owner", "en", "[Hannah] owns the on-call rotation.", "The release calendar is now owned by [Omar]."),
    ("zh-other-backup", "zh", "每天凌晨[两点]做全量备份", "增量备份现在挪到[四点]了"),
    ("zh-other-coverage", "zh", "单元测试覆盖率要求 [80%]", "集成测试通过率门槛现在提到 [95%] 了"),
    ("zh-other-pool", "zh", "数据库连接池大小是 [20]", "线程池现在调到 [50] 了"),
    ("mix-other-deps", "mix", "我们用 [Poetry] 管理依赖", "docs build 现在换成 [MkDocs] 了"),
    ("mix-other-rate", "mix", "API 的 rate limit 是每分钟 [100] 次", "登录接口限流现在调到每分钟 [10] 次"),
    ("mix-other-nightly", "mix", "nightly build 在 [3 点] 跑", "weekly cleanup 现在改到 [5 点]"),
    # an added fact
    ("en-added-lint", "en", "We lint with [flake8].", "We also run [Black] for formatting now."),
    ("en-added-upload", "en", "Uploads are capped at [10 MB].", "We also cap avatar uploads at [2 MB] now."),
    ("en-added-tracker", "en", "Our error tracker is [Sentry].", "We additionally send crash reports to [Crashlytics] now."),
    ("zh-added-log", "zh", "日志服务用的是 [ELK]", "另外我们现在也用 [Sentry] 收集错误"),
    ("zh-added-review", "zh", "代码评审要[两个人]通过", "发版现在也要[两个人]审批"),
    ("mix-added-ci", "mix", "CI 的超时是 [30 分钟]", "CI 现在也跑 [SonarQube] 扫描"),
    # a plan or a question
    ("en-ask-retries", "en", "Webhook retries are capped at [5].", "Should webhook retries be capped at [8] now?"),
    ("en-plan-secrets", "en", "We store secrets in [Vault].", "We might move secret storage to [AWS Secrets Manager]."),
    ("en-plan-sdk", "en", "The Android app's minimum SDK is [26].", "We plan to bump the Android min SDK to [29] next quarter."),
    ("zh-ask-parallel", "zh", "同时最多跑 [3] 个构建", "要不要把构建并发上限调到 [6] 个？"),
    ("zh-plan-env", "zh", "测试环境部署在[杭州]机房", "我们在考虑把测试环境迁到[深圳]"),
    ("mix-ask-ci", "mix", "CI 的超时是 [30 分钟]", "CI 超时是不是该改成 [60 分钟]？"),
    # a second subject in the same sentence carries the change
    ("en-second-upload", "en", "The max upload size is [10 MB].", "The download limit changed to [50 MB]; uploads stay as they are."),
    ("en-second-lint", "en", "We lint with [flake8].", "Formatting moved to [Black]; linting is unchanged."),
    ("en-second-pool", "en", "The database connection pool holds [20] connections.", "The database stays as is, but the HTTP client pool now holds [100] connections."),
    ("zh-second-env", "zh", "测试环境部署在[杭州]机房", "生产环境迁到[深圳]了，测试环境不动"),
    ("zh-second-review", "zh", "代码评审要[两个人]通过", "评审流程不变，发版审批现在改成[一个人]"),
    ("mix-second-replicas", "mix", "staging 的 replicas 是 [2]", "staging 不变，production 现在改成 [8] 个 replicas"),
)  # fmt: skip


def _statement(marked: str, topic: str, role: Role = "chain") -> Statement:
    text = _SPAN.sub(r"\1", marked)
    spans = _SPAN.findall(marked)
    value = spans[-1] if spans else text
    meaning = Meaning(topic, "", value, False, value)
    return Statement(text, text, "save", role, f"d12-{topic}", meaning)


def _question(marked: str) -> str:
    """The stored line with its value cut out: what a user would ask about it."""
    return re.sub(r"\s+", " ", _SPAN.sub(" ", marked)).strip(" .。")


def _fix(id_: str, lang: Lang, lines: tuple[str, ...], beside: str) -> Case:
    setup = (_statement(beside, f"{id_}-beside", "neighbour"),) if beside else ()
    chain = tuple(_statement(line, id_) for line in lines)
    shape = f"fix{len(lines)}" + ("-beside" if beside else "")
    return Case(
        f"dev12para-{id_}",
        "dev12para",
        lang,
        id_,
        shape,
        f"/memchange2-eval/{id_}",
        setup,
        chain,
        _question(lines[0]),
    )


# a stored line written once for a correction and again for a look-alike keeps one meaning (the oracle reads
# a meaning by its text): the correction's subject
_TOPIC_OF = {_SPAN.sub(r"\1", line): id_ for id_, _, lines, _ in FIX for line in lines}


def _alike(id_: str, lang: Lang, stored: str, new: str) -> Case:
    topic = _TOPIC_OF.get(_SPAN.sub(r"\1", stored), f"{id_}-stored")
    setup = (_statement(stored, topic, "neighbour"),)
    chain = (_statement(new, f"{id_}-new"),)
    return Case(
        f"dev12para-{id_}",
        "dev12para",
        lang,
        id_,
        "alike",
        f"/memchange2-eval/{id_}",
        setup,
        chain,
        _question(stored),
    )


CASES = tuple(_fix(*row) for row in FIX) + tuple(_alike(*row) for row in ALIKE)
