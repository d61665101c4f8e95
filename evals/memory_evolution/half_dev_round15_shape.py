"""Round 15 of the dev half (memshape2): the slot of a fact said in another form, and look-alikes kept apart.

Hand-written, in my own words, before the product change; no test case seen. Each case is one project. Five
classes, in English, Chinese and mixed text, on the `/save` path and the automatic path:

- `bound`: a bound said as a noun (`the maximum queue depth is`) and then as a clause about the thing bounded
  (`the queue holds no more than`, `现在不超过`, `至少要`): the slot is the thing plus the bound's direction.
- `manner`: the value is how something is done (`signed with X`), and the update names the old manner as
  stopped and gives the new one (`we stopped signing … with X; they are signed with Y now`).
- `cond`: a leading condition clause (`When …,` / `…时，`) is part of the fact, not its subject: the same
  condition with a new consequence is an update.
- `pass`: a passive fact whose bare subject takes its verb into the slot: the same verb with a new value is
  an update.
- `comp`: a component's own setting, restated with a new value.

Each class has must-not-supersede twins (`alike`): a lower bound against an upper bound, another thing bounded,
another condition, another verb on the same bare subject, another component. The stored fact is a setup fact
(a loss counts as "setup facts lost"); the new line is the chain.

`[...]` marks a value span in a line. The path column is `s` (`/save`) or `a` (automatic extraction from a turn
that carries the line in a short wrapper). `CASES` replaces the grid generator for this half.
"""

from __future__ import annotations

from dataclasses import replace

from evals.memory_evolution.half_dev_round10 import HALF as BASE
from evals.memory_evolution.half_dev_round13_subj import cases_of
from evals.memory_evolution.spec import Lang

HALF = replace(BASE, name="dev15shape")

_WRAP: dict[Lang, tuple[str, ...]] = {
    "en": ("Heads-up for everyone: {X}", "{X} Worth remembering when you touch that part."),
    "zh": ("跟大家同步一下，{X}。", "{X}，后面改东西的时候注意一下。"),
    "mix": ("FYI，{X}。", "{X}，README 里回头也改一下。"),
}

# (id, language, path, lines)
FIX: tuple[tuple[str, Lang, str, tuple[str, ...]], ...] = (
    # ---- bound: a noun first, then a clause about the thing bounded ----
    ("en-bound-logline", "en", "s", ("The maximum log line length is [4 KB].", "Log lines can be at most [16 KB] now.")),
    ("en-bound-queue", "en", "a", ("The maximum queue depth is [1000].", "The queue holds no more than [5000] messages now.")),
    ("en-bound-sessions", "en", "s", ("The maximum number of concurrent sessions is [3].", "Users can have up to [5] concurrent sessions now.")),
    ("en-bound-runtime", "en", "s", ("The maximum job runtime is [2 hours].", "Jobs are capped at [4 hours] now.")),
    ("en-bound-password", "en", "a", ("The minimum password length is [8 characters].", "Passwords must be at least [12 characters] long now.")),
    ("en-bound-image-3", "en", "s", ("The maximum image size is [2 GB].", "Images can be at most [1 GB] now.", "The maximum image size is [2 GB] again.")),
    ("zh-bound-file", "zh", "s", ("单个文件的大小上限是 [100 MB]", "单个文件现在最多能传 [500 MB] 了")),
    ("zh-bound-members", "zh", "a", ("群成员的最大人数是 [200]", "群成员现在不超过 [500] 人")),
    ("zh-bound-password", "zh", "s", ("密码的最小长度是 [8 位]", "密码现在至少要 [12 位]")),
    ("mix-bound-payload", "mix", "s", ("webhook payload 的最大大小是 [256 KB]", "webhook payload 现在最多 [1 MB]")),
    ("mix-bound-replicas", "mix", "a", ("max replicas 是 [10]", "replicas 现在不超过 [20] 个")),
    # ---- manner: the old manner stopped, the new one given ----
    ("en-manner-tags", "en", "s", ("Release tags are signed with [GPG keys].", "We stopped signing release tags with GPG; they are signed with [SSH keys] now.")),
    ("en-manner-backup", "en", "a", ("Database backups are encrypted with [age].", "We stopped encrypting backups with age; they are encrypted with [KMS] now.")),
    ("en-manner-bundle", "en", "s", ("The frontend is bundled with [Webpack].", "We no longer bundle the frontend with Webpack; it is bundled with [Vite] now.")),
    ("en-manner-pin", "en", "s", ("Python dependencies are pinned with [pip-tools].", "We dropped pip-tools; Python dependencies are pinned with [uv] now.")),
    ("zh-manner-sign", "zh", "s", ("发布包用 [GPG] 签名", "发布包不再用 GPG 签名了，改用 [Sigstore] 签名")),
    ("zh-manner-format", "zh", "a", ("Go 代码用 [gofmt] 格式化", "Go 代码现在不用 gofmt 了，改用 [gofumpt] 格式化")),
    ("mix-manner-lint", "mix", "s", ("Python 代码用 [flake8] lint", "Python 代码不再用 flake8 lint 了，现在用 [ruff] lint")),
    # ---- cond: the same leading condition, a new consequence ----
    ("en-cond-nightly", "en", "s", ("When the nightly build fails, a message goes to [#ci-alerts].", "When the nightly build fails, a message goes to [#build-cops] now.")),
    ("en-cond-disk", "en", "a", ("When a disk fills past 90%, the alert goes to [PagerDuty].", "When a disk fills past 90%, the alert goes to [Opsgenie] now.")),
    ("en-cond-migration", "en", "s", ("If a pull request adds a migration, it needs [two approvals].", "If a pull request adds a migration, it needs [three approvals] now.")),
    ("zh-cond-release", "zh", "s", ("发布失败时，通知发到 [运维群]", "发布失败时，通知现在发到 [值班群]")),
    ("zh-cond-cert", "zh", "a", ("证书快过期时，提醒发给 [张伟]", "证书快过期时，提醒现在发给 [李娜]")),
    ("mix-cond-deploy", "mix", "s", ("deploy 失败时，告警发到 [#ops]", "deploy 失败时，告警现在发到 [#deploy-alerts]")),
    # ---- pass: the same verb on a bare subject, a new value ----
    ("en-pass-scan", "en", "s", ("Container images are scanned with [Trivy].", "Container images are scanned with [Grype] now.")),
    ("en-pass-lint", "en", "a", ("Kotlin code is linted with [ktlint].", "Kotlin code is linted with [detekt] now.")),
    ("zh-pass-test", "zh", "s", ("前端代码用 [Jest] 测试", "前端代码现在用 [Vitest] 测试")),
    # ---- comp: a component's own setting ----
    ("en-comp-android", "en", "s", ("The Android app's minimum SDK level is [24].", "The Android app's minimum SDK level is [26] now.")),
    ("zh-comp-admin", "zh", "a", ("管理后台的会话超时是 [30 分钟]", "管理后台的会话超时现在是 [15 分钟]")),
)  # fmt: skip

# (id, language, path, the stored line, the new line that must leave it a truth)
ALIKE: tuple[tuple[str, Lang, str, str, str], ...] = (
    # a lower bound against an upper bound
    ("en-not-lower-logline", "en", "s", "The maximum log line length is [4 KB].", "Log lines must be at least [64 bytes] long now."),
    ("en-not-upper-password", "en", "a", "The minimum password length is [8 characters].", "Passwords can be up to [64 characters] long now."),
    ("zh-not-lower-members", "zh", "s", "群成员的最大人数是 [200]", "群成员现在至少 [3] 人"),
    ("mix-not-lower-replicas", "mix", "s", "max replicas 是 [10]", "replicas 现在至少 [2] 个"),
    # another thing bounded
    ("en-not-keys", "en", "s", "The maximum number of concurrent sessions is [3].", "Users can have up to [10] API keys now."),
    ("en-not-builds", "en", "a", "The maximum job runtime is [2 hours].", "Builds are capped at [30 minutes] now."),
    ("zh-not-picture", "zh", "s", "单个文件的大小上限是 [100 MB]", "头像图片现在最多 [5 MB]"),
    ("mix-not-response", "mix", "a", "webhook payload 的最大大小是 [256 KB]", "API response 现在最多 [2 MB]"),
    # the same manner on another thing
    ("en-not-commits", "en", "s", "Release tags are signed with [GPG keys].", "We stopped signing commits with GPG; commits are signed with [SSH keys] now."),
    ("zh-not-image-sign", "zh", "s", "发布包用 [GPG] 签名", "Docker 镜像不再用 GPG 签名了，改用 [cosign] 签名"),
    # another condition
    ("en-not-deploy-cond", "en", "s", "When the nightly build fails, a message goes to [#ci-alerts].", "When a deploy fails, a message goes to [#deploys] now."),
    ("en-not-memory-cond", "en", "a", "When a disk fills past 90%, the alert goes to [PagerDuty].", "When memory use passes 80%, the alert goes to [email] now."),
    ("zh-not-rollback-cond", "zh", "s", "发布失败时，通知发到 [运维群]", "回滚完成时，通知现在发到 [产品群]"),
    ("mix-not-test-cond", "mix", "s", "deploy 失败时，告警发到 [#ops]", "test 失败时，告警现在发到 [#qa]"),
    # another verb on the same bare subject
    ("en-not-built", "en", "s", "Container images are scanned with [Trivy].", "Container images are built with [Kaniko] now."),
    ("en-not-formatted", "en", "a", "Kotlin code is linted with [ktlint].", "Kotlin code is formatted with [ktfmt] now."),
    ("en-not-benched", "en", "s", "The Rust crates are tested with [nextest].", "The Rust crates are benchmarked with [criterion] now."),
    ("zh-not-checked", "zh", "s", "Go 代码用 [gofmt] 格式化", "Go 代码现在用 [golangci-lint] 检查"),
    ("mix-not-tested", "mix", "a", "Python 代码用 [flake8] lint", "Python 代码现在用 [pytest] 测试"),
    # another component
    ("en-not-wear", "en", "s", "The Android app's minimum SDK level is [24].", "The Wear OS app's minimum SDK level is [30] now."),
    ("zh-not-client", "zh", "s", "管理后台的会话超时是 [30 分钟]", "用户端的会话超时现在是 [2 小时]"),
)  # fmt: skip


CASES = cases_of(FIX, ALIKE, name="dev15shape", folder="memshape2", wrap=_WRAP, strip=" .。，")
