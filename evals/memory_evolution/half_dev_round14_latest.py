"""Round 14 of the dev half (memlatest, issue 37): the current truth reaches the question when it was said in
other words than the question.

Hand-written, in my own words, before the product change; no test case seen. Each case is one project: a few
look-alikes on other subjects of the same project (sharing a word or two with the question), then a chain of
2-4 lines on one subject whose first line names the subject as the question does and whose later lines say the
new value in other words (a verb of change, a short name, a pronoun-less fragment: `Standup got moved to 10:15`
after `The team standup is at 9:30`), then a question worded like neither. The count that matters here is the
runner's "latest injected": the chain's last value is among the facts injected for the question. Only the last
line may stay a truth on the subject, so "stale injected" must stay 0.

A line written `auto:` goes through automatic extraction inside a turn, the others through `/save`. `[...]`
marks a value span in a line (the oracle judge quotes it). `CASES` replaces the grid generator for this half
(`__main__.cases_of`); `HALF` is only there for the runner's shape.
"""

from __future__ import annotations

import re
from dataclasses import replace

from evals.memory_evolution.cases import Case, Role, Statement
from evals.memory_evolution.half_dev_round10 import HALF as BASE
from evals.memory_evolution.half_dev_round13_ret import written_statement
from evals.memory_evolution.spec import Lang

HALF = replace(BASE, name="dev14latest")

_SPAN = re.compile(r"\[([^\]]*)\]")
_AUTO = "auto:"

# (id, language, chain lines, the question, look-alikes on other subjects stored first)
FIX: tuple[tuple[str, Lang, tuple[str, ...], str, tuple[str, ...]], ...] = (
    # ---- English ----
    ("en-standup-moved", "en", ("The team standup is at [9:30].", "Standup got moved to [10:15]."), "What time is the team standup?", ("The team retro happens at [16:00] on Fridays.",)),
    ("en-ci-runner", "en", ("Our CI pipeline runs on [Jenkins].", "We migrated CI to [GitHub Actions] last month."), "Which service runs the CI pipeline?", ("The release pipeline is triggered by [tags].",)),
    ("en-db-host", "en", ("The production database is hosted on [AWS RDS].", "Prod DB lives on [Cloud SQL] now."), "Where is the production database hosted?", ("The staging database is hosted on [a local VM].",)),
    ("en-review-owner", "en", ("Code review for the payments module is done by [Priya].", "[Marco] took over payments reviews."), "Who does code review for the payments module?", ("Code review for the search module is done by [Yuki].",)),
    ("en-timeout-3", "en", ("The HTTP client timeout is [30] seconds.", "Bumped it to [45] seconds after the outage.", "Client calls give up after [60] s now."), "How long is the HTTP client timeout?", ("The HTTP server keep-alive is [75] seconds.",)),
    ("en-linter", "en", ("Python code is linted with [flake8].", "Switched linting over to [ruff]."), "What linter checks the Python code?", ("Python code is formatted with [black].",)),
    ("en-branch-rename", "en", ("The default branch is [master].", "We renamed it to [main] last week."), "What's the default git branch called?", ("Feature branches start with [feat/].",)),
    ("en-coverage", "en", ("Test coverage must stay above [80%].", "The coverage bar was lowered to [70%]."), "What is the minimum test coverage?", ("Integration tests must finish within [10] minutes.",)),
    ("en-auto-chat", "en", ("auto:Our team chat is [Slack].", "auto:Everyone moved over to [Mattermost] in May."), "Which chat tool does the team use?", ("The team wiki is [Notion].",)),
    ("en-node-4", "en", ("The frontend builds with [Node 16].", "Frontend is on [Node 18] now.", "Upgraded the frontend toolchain to [Node 20].", "We're on [Node 22] for the frontend these days."), "Which Node version builds the frontend?", ("The backend builds with [Java 17].",)),
    ("en-deploy-day", "en", ("Production deploys happen on [Tuesdays].", "Deploys were shifted to [Thursdays]."), "On which day are production deploys done?", ("Production backups happen on [Sundays].",)),
    # ---- Chinese ----
    ("zh-standup", "zh", ("团队站会在早上[九点半]", "站会挪到[十点一刻]了"), "团队站会几点开？", ("团队复盘会在周五下午[四点]",)),
    ("zh-registry", "zh", ("镜像仓库用的是 [Harbor]", "现在镜像都推到 [阿里云 ACR] 上了"), "我们的镜像仓库是哪个？", ("代码仓库用的是 [GitLab]",)),
    ("zh-reviewer", "zh", ("支付模块的代码评审由[王磊]负责", "支付那块的评审改成[陈静]看了"), "支付模块的代码谁来评审？", ("搜索模块的代码评审由[刘畅]负责",)),
    ("zh-pool-3", "zh", ("数据库连接池大小是 [20]", "连接池调到 [40] 了", "池子最后定成 [32]"), "数据库连接池设置多大？", ("数据库超时时间是 [5] 秒",)),
    ("zh-log-keep", "zh", ("线上日志保留[七天]", "日志现在存[三十天]"), "线上日志保留多久？", ("线上告警发到[飞书]群",)),
    ("zh-auto-mq", "zh", ("auto:我们的消息队列用的是 [RocketMQ]", "auto:后来迁到 [Pulsar] 了"), "消息队列用的什么？", ("我们的任务调度用的是 [XXL-JOB]",)),
    ("zh-release-cycle", "zh", ("版本发布周期是[两周]", "现在改成[每周]发一次版"), "版本多久发布一次？", ("版本号遵循[语义化版本]规范",)),
    ("zh-owner-handover", "zh", ("监控系统由[赵强]维护", "赵强转岗了，监控交给[孙悦]"), "谁在维护监控系统？", ("日志系统由[钱坤]维护",)),
    # ---- mixed ----
    ("mix-cache", "mix", ("缓存层用的是 [Redis]", "cache 这块换成 [Dragonfly] 了"), "缓存层用什么？", ("消息层用的是 [NATS]",)),
    ("mix-oncall", "mix", ("on-call 轮值是[每周]换一次", "rotation 现在[两周]一换"), "on-call 轮值多久换一次？", ("on-call 告警走 [PagerDuty]",)),
    ("mix-k8s", "mix", ("生产集群的 Kubernetes 版本是 [1.27]", "prod cluster 升到 [1.29] 了"), "生产集群 Kubernetes 是哪个版本？", ("测试集群的 Kubernetes 版本是 [1.30]",)),
    ("mix-api-owner", "mix", ("API gateway 由[周婷]负责", "gateway 现在归[吴昊]管"), "谁负责 API gateway？", ("API 文档由[郑凯]负责",)),
    # ---- the later lines name only the value and its label (a product with its version, a person) ----
    ("en-python-bump", "en", ("The data pipeline runs on [Python 3.10].", "Bumped to [Python 3.12] this sprint."), "Which interpreter does the data pipeline use?", ("The data warehouse runs on [Snowflake].",)),
    ("en-postgres-3", "en", ("Our reporting database is [PostgreSQL 13].", "Now on [PostgreSQL 15].", "Moved up to [PostgreSQL 16] over the weekend."), "What reporting database do we run?", ("Our reporting dashboards are built in [Metabase].",)),
    ("en-pager-back", "en", ("Outage alerts are sent to [PagerDuty].", "Alerts go through [Opsgenie] now.", "[PagerDuty] handles them again."), "Where do outage alerts get sent?", ("Outage reports are written in [Confluence].",)),
    ("en-android-min", "en", ("The mobile app supports [Android 10] and up.", "Minimum Android is [12] now."), "What is the oldest Android the mobile app runs on?", ("The mobile app is released through [Firebase App Distribution].",)),
    ("zh-jdk-up", "zh", ("订单服务跑在 [JDK 11] 上", "升级到 [JDK 21] 了"), "订单服务用哪个 JDK？", ("订单服务部署在[杭州]机房",)),
    ("zh-mysql-up", "zh", ("账务库用的是 [MySQL 5.7]", "已经升到 [MySQL 8.0] 了"), "账务库是什么数据库？", ("账务库每天凌晨[两点]备份",)),
    ("mix-vue-up", "mix", ("管理后台前端用 [Vue 2]", "现在是 [Vue 3] 了"), "管理后台前端用什么框架？", ("管理后台的登录走 [SSO]",)),
    ("mix-gradle-up", "mix", ("Android 工程用 [Gradle 7.4] 构建", "升到 [Gradle 8.7] 了"), "Android 工程的构建工具是什么版本？", ("Android 工程的签名证书放在 [Vault]",)),
    ("mix-auto-ide", "mix", ("auto:团队统一用 [IntelliJ IDEA] 写代码", "auto:大家后来都换到 [VS Code] 了"), "团队用什么 IDE？", ("团队统一用 [Figma] 做设计",)),
)  # fmt: skip


def _statement(marked: str, topic: str, role: Role = "chain") -> Statement:
    return written_statement(marked, topic, role, "d14")


def _fix(id_: str, lang: Lang, lines: tuple[str, ...], question: str, alikes: tuple[str, ...]) -> Case:
    setup = tuple(_statement(line, f"{id_}-alike{n}", "neighbour") for n, line in enumerate(alikes))
    chain = tuple(_statement(line, id_) for line in lines)
    return Case(
        f"dev14latest-{id_}",
        "dev14latest",
        lang,
        id_,
        f"fix{len(lines)}",
        f"/memlatest-eval/{id_}",
        setup,
        chain,
        question,
    )


CASES = tuple(_fix(*row) for row in FIX)
