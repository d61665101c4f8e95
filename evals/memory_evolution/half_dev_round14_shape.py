"""Round 14 of the dev half (memshape, issue 37): the same subject or value said in another form.

Hand-written, in my own words, before the product change; no test case seen. Each case is one project. Four
classes of correction, in English, Chinese and mixed text, on the `/save` path and the automatic path:

- `mod`: a subject with and without its modifier (or 的): the shorter one keeps the longer one's head and part
  of its modifier (`夜间构建的超时时间` / `构建超时`).
- `limit`: a maximum said as a noun on one side and as a verb phrase on the other (`the maximum attachment size
  is` / `attachments can be up to` / `附件最多`).
- `verb`: the value a verb on one side and a noun or gerund on the other (`merged by squashing` / `we rebase`).
- `lang`: the subject in the other language in a mixed chain, where a fact the store already holds names the
  subject in both languages (a bridge line in the setup), and once without one.

Each class has must-not-supersede twins (`alike`): a qualifier that names another thing (`the admin session
timeout` / `the session timeout`; `minimum` / `maximum`; `测试环境` / `预发环境`), another subject with the same
verb or value form. The stored fact is a setup fact (a loss counts as "setup facts lost"); the new line is the
chain.

`[...]` marks a value span in a line. The path column is `s` (`/save`) or `a` (automatic extraction from a turn
that carries the line in a short wrapper). `CASES` replaces the grid generator for this half.
"""

from __future__ import annotations

from dataclasses import replace

from evals.memory_evolution.half_dev_round10 import HALF as BASE
from evals.memory_evolution.half_dev_round13_subj import cases_of
from evals.memory_evolution.spec import Lang

HALF = replace(BASE, name="dev14shape")

_WRAP: dict[Lang, tuple[str, ...]] = {
    "en": ("For the record: {X}", "{X} Please keep that in mind for the next change."),
    "zh": ("提醒一下，{X}。", "{X}，之后写配置的时候按这个来。"),
    "mix": ("更新一下：{X}。", "{X}，wiki 上回头也同步一下。"),
}

# (id, language, path, lines)
FIX: tuple[tuple[str, Lang, str, tuple[str, ...]], ...] = (
    # ---- mod: with and without the modifier or 的 ----
    ("zh-mod-build-timeout", "zh", "s", ("夜间构建的超时时间是 [90 分钟]", "构建超时现在改成 [120 分钟] 了")),
    ("zh-mod-cache-expiry", "zh", "a", ("接口缓存的过期时间是 [5 分钟]", "缓存过期时间现在是 [10 分钟]")),
    ("zh-mod-log-keep", "zh", "s", ("应用日志的保留天数是 [7 天]", "日志保留天数改成 [30 天] 了")),
    ("zh-mod-review-count", "zh", "s", ("代码评审的最少通过人数是 [1 人]", "评审通过人数现在至少 [2 人]")),
    ("zh-mod-pool-3", "zh", "s", ("数据库连接池的大小是 [20]", "连接池大小调到 [40] 了", "数据库连接池大小现在是 [32]")),
    ("en-mod-cache", "en", "s", ("The API response cache expiry is [5 minutes].", "The cache expiry is [15 minutes] now.")),
    ("en-mod-freeze", "en", "a", ("The code freeze window's length is [3 days].", "The freeze length is [5 days] now.")),
    ("en-mod-retention", "en", "s", ("The audit log retention period is [90 days].", "Log retention is [180 days] now.")),
    ("mix-mod-ttl", "mix", "s", ("API 缓存的 TTL 是 [5 分钟]", "缓存 TTL 现在是 [10 分钟]")),
    ("mix-mod-build", "mix", "a", ("nightly build 的超时是 [90 分钟]", "build 超时现在是 [2 小时]")),
    # ---- limit: a maximum as a noun and as a verb phrase ----
    ("en-limit-attach", "en", "s", ("The maximum attachment size is [10 MB].", "Attachments can be up to [25 MB] now.")),
    ("en-limit-body", "en", "a", ("The maximum request body size is [1 MB].", "Request bodies are capped at [4 MB] now.")),
    ("en-limit-retry", "en", "s", ("The maximum number of retries is [3].", "We retry at most [5] times now.")),
    ("en-limit-workers", "en", "s", ("The maximum worker count is [8].", "Workers are limited to [16] now.")),
    ("en-limit-batch-3", "en", "s", ("The maximum batch size is [500].", "Batches are capped at [1000] now.", "The maximum batch size is [500] again.")),
    ("zh-limit-attach", "zh", "s", ("附件大小上限是 [10 MB]", "附件现在最多 [25 MB]")),
    ("zh-limit-conn", "zh", "a", ("最大并发连接数是 [100]", "并发连接现在最多 [200] 个")),
    ("zh-limit-retry", "zh", "s", ("最大重试次数是 [3 次]", "现在最多重试 [5 次]")),
    ("mix-limit-upload", "mix", "s", ("upload 大小上限是 [10 MB]", "upload 现在最多 [50 MB]")),
    ("mix-limit-retry", "mix", "a", ("max retries 是 [3]", "retries 现在最多 [5] 次")),
    # ---- verb: the value as a verb on one side, a noun or gerund on the other ----
    ("en-verb-squash", "en", "s", ("Pull requests are merged by [squashing].", "We stopped squashing; pull requests are [rebased] onto main now.")),
    ("en-verb-sign", "en", "a", ("Container images are signed with [cosign].", "We sign container images with [Notation] now.")),
    ("en-verb-vendor", "en", "s", ("Go dependencies are [vendored] into the repo.", "We stopped vendoring Go dependencies; they are [fetched from the module proxy] now.")),
    ("en-verb-strategy", "en", "s", ("The merge strategy for feature branches is [rebase].", "Feature branches are merged by [squashing] now.")),
    ("en-verb-hotfix-3", "en", "s", ("Hotfix branches are merged by [fast-forward].", "We stopped fast-forwarding hotfix branches; they get a [merge commit] now.", "Hotfix branches are merged by [fast-forward] again.")),
    ("zh-verb-merge", "zh", "s", ("PR 的合并方式是 [squash]", "现在 PR 都用 [rebase] 合并了")),
    ("zh-verb-sign", "zh", "a", ("镜像签名用 [cosign]", "现在用 [Notation] 给镜像签名")),
    ("mix-verb-merge", "mix", "s", ("feature branch 用 [squash] merge", "feature branch 现在改成 [rebase] 了，不再 squashing")),
    # ---- lang: the subject in the other language ----
    ("mix-lang-deploy-3", "mix", "s", ("deploy 工具是 [Helm]", "部署工具现在换成 [Argo CD] 了", "The deploy tool is [Helm] again.")),
    ("mix-lang-search", "mix", "s", ("搜索后端是 [Elasticsearch]", "The search backend is [Meilisearch] now.")),
    ("mix-lang-backup", "mix", "a", ("The backup target is [S3].", "备份目标现在是 [OSS]")),
    ("mix-lang-review", "mix", "s", ("code review 的最少通过人数是 [1]", "代码评审最少通过人数现在是 [2]")),
)  # fmt: skip

# a line the store already holds that names a `lang` case's subject in both languages: (case id, line)
BRIDGE: dict[str, str] = {
    "mix-lang-deploy-3": "部署（deploy）只在工作日做",
    "mix-lang-search": "搜索（search）页面在 /find 下",
    "mix-lang-backup": "备份（backup）任务由运维组维护",
}

# (id, language, path, the stored line, the new line that must leave it a truth)
ALIKE: tuple[tuple[str, Lang, str, str, str], ...] = (
    # a qualifier that names another thing
    ("zh-not-test-domain", "zh", "s", "测试环境的域名是 [test.example.cn]", "预发环境的域名现在是 [pre.example.cn]"),
    ("zh-not-unit-timeout", "zh", "s", "夜间构建的超时时间是 [90 分钟]", "单测超时现在改成 [10 分钟] 了"),
    ("zh-not-image-cache", "zh", "a", "接口缓存的过期时间是 [5 分钟]", "图片缓存过期时间现在是 [1 天]"),
    ("en-not-admin-session", "en", "s", "The session timeout is [30 minutes].", "The admin session timeout is [10 minutes] now."),
    ("en-not-watch-min", "en", "s", "The iOS minimum version is [16].", "The watchOS minimum version is [9] now."),
    ("en-not-image-cache", "en", "a", "The API response cache expiry is [5 minutes].", "The image cache expiry is [1 day] now."),
    ("mix-not-image-ttl", "mix", "s", "API 缓存的 TTL 是 [5 分钟]", "图片 TTL 现在是 [1 天]"),
    # minimum against maximum; another noun under the same limit
    ("en-not-min-attach", "en", "s", "The maximum attachment size is [10 MB].", "The minimum attachment size is [1 KB] now."),
    ("en-not-avatar-cap", "en", "a", "The maximum attachment size is [10 MB].", "Avatars are capped at [2 MB] now."),
    ("en-not-min-workers", "en", "s", "The maximum worker count is [8].", "At least [2] workers run now."),
    ("zh-not-min-conn", "zh", "s", "最大并发连接数是 [100]", "最小空闲连接数现在是 [10]"),
    ("zh-not-avatar", "zh", "s", "附件大小上限是 [10 MB]", "头像现在最多 [2 MB]"),
    ("mix-not-download", "mix", "a", "upload 大小上限是 [10 MB]", "download 现在最多 [100 MB]"),
    # another subject under the same value form
    ("en-not-release-rebase", "en", "s", "Pull requests are merged by [squashing].", "We rebase release branches now."),
    ("en-not-sign-tags", "en", "a", "Container images are signed with [cosign].", "We sign git tags with [SSH keys] now."),
    ("en-not-vendor-js", "en", "s", "Go dependencies are [vendored] into the repo.", "We stopped vendoring JavaScript packages; they are [installed from npm] now."),
    ("zh-not-sign-pkg", "zh", "s", "镜像签名用 [cosign]", "现在用 [GPG] 给安装包签名"),
    ("mix-not-hotfix", "mix", "s", "feature branch 用 [squash] merge", "hotfix branch 现在改成 [rebase] 了"),
    # the other language, another subject
    ("mix-not-test-tool", "mix", "s", "deploy 工具是 [Helm]", "测试工具现在换成 [pytest] 了"),
    ("mix-not-index", "mix", "a", "搜索后端是 [Elasticsearch]", "The cache backend is [Redis] now."),
)  # fmt: skip


CASES = cases_of(FIX, ALIKE, name="dev14shape", folder="memshape", wrap=_WRAP, bridges=BRIDGE)
