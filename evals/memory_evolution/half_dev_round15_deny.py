"""Round 15 of the dev half (memdeny4): denials and returns that fresh wordings still missed.

Hand-written, in my own words, before the product change; no test case seen. Each case is one project and a
chain of two to three lines; every line but the last states a value (`[...]`), the last is one of

- `ended`: a past habit the sentence itself ends ("used to …, but not anymore", "ran on A until February",
  "以前用 A，现在不用了"), maybe with the replacement in the same sentence (then that value is the truth);
- `verbneg`: "no longer" / "not … any more" / 不再 around a verb that is not a verb of use ("We no longer upload
  release binaries to A", "我们不再往 A 推制品了");
- `owned`: a denial that names only the value of a truth owned by a component or team ("We don't use A
  anymore" after "The data team files bugs in A", "构建不走 A 了" after "后端的构建工具是 A");
- `return`: A, then B, then a return to A, maybe naming B as the one it leaves ("moved off B, back to A"): A is
  the truth and B is retired;
- `keep`: a look-alike that must leave the last value the truth: another subject sharing the value, two owned
  truths holding the value (ambiguous), a question, a condition, a plan, "not only A but also B", "A is no
  longer the only …", a "used to" that ends another habit than the value's (outages with A).

A bystander stored first (`beside`) must stay a truth in every case. Every row runs twice: on its own write paths
and with every line through the automatic path. `CASES` replaces the grid generator (`__main__.cases_of`).
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

HALF = replace(BASE, name="dev15deny")

_SPAN = re.compile(r"\[([^\]]*)\]")
_PATHS: dict[str, Path] = {"s": "save", "t": "tool", "a": "auto"}
Shape = Literal["ended", "verbneg", "owned", "return", "keep"]

# (id, language, shape, paths of the lines, lines, bystander stored first or "")
ROWS: tuple[tuple[str, Lang, Shape, str, tuple[str, ...], str], ...] = (
    # ---- English: a habit the sentence ends ----
    ("en-tickets-ended", "en", "ended", "sa", ("Support tickets are handled in [Zendesk].", "Support tickets used to be handled in Zendesk, but not anymore."), ""),
    ("en-nightly-until", "en", "ended", "ss", ("Nightly builds run on [TeamCity].", "Nightly builds ran on TeamCity until February."), "The staging database is [MariaDB]."),
    ("en-apidocs-ended-rep", "en", "ended", "ta", ("API docs are published with [Redoc].", "We used to publish API docs with Redoc; now we use [Scalar]."), ""),
    ("en-vpn-ended", "en", "ended", "sa", ("The office VPN is [OpenVPN].", "The office VPN was OpenVPN up until last month."), ""),
    ("en-mail-ended", "en", "ended", "ss", ("Transactional email goes through [Mailgun].", "We used to send transactional email through Mailgun, not anymore."), ""),
    # ---- English: no longer around another verb ----
    ("en-binaries-verbneg", "en", "verbneg", "sa", ("Release binaries are uploaded to [Nexus].", "We no longer upload release binaries to Nexus."), ""),
    ("en-traces-verbneg", "en", "verbneg", "ss", ("Traces are exported to [Honeycomb].", "Traces aren't exported to Honeycomb any more."), ""),
    ("en-backups-verbneg", "en", "verbneg", "ta", ("Database backups are copied to [Backblaze].", "We don't copy database backups to Backblaze anymore."), ""),
    ("en-alerts-verbneg", "en", "verbneg", "sa", ("Alerts are routed through [Opsgenie].", "Alerts are no longer routed through Opsgenie."), "Uptime checks run on [Pingdom]."),
    # ---- English: only the value of an owned truth ----
    ("en-bugs-owned", "en", "owned", "sa", ("The data team files bugs in [Linear].", "We don't use Linear anymore."), ""),
    ("en-deploy-owned", "en", "owned", "ss", ("The platform team deploys with [Spinnaker].", "Spinnaker has been retired."), ""),
    # ---- English: returns ----
    ("en-branch-return", "en", "return", "sss", ("The default branch is [master].", "The default branch is now [trunk].", "We're back on [master]."), ""),
    ("en-migrations-return", "en", "return", "sas", ("Schema migrations use [Flyway].", "Schema migrations switched to [Liquibase].", "We reverted to [Flyway] for schema migrations."), ""),
    ("en-font-return", "en", "return", "ssa", ("The editor font is [Fira Code].", "The editor font changed to [Iosevka].", "Moved off Iosevka, back to [Fira Code]."), ""),
    # ---- English: must leave the truth ----
    ("en-keep-other-subject", "en", "keep", "sa", ("The build cache is stored in [MinIO].", "We don't use MinIO for user uploads."), ""),
    ("en-keep-owned-two", "en", "keep", "ss", ("The data team files bugs in [Linear].", "We've stopped using Linear."), "The design team plans sprints in [Linear]."),
    ("en-keep-condition", "en", "keep", "sa", ("Support tickets are handled in [Zendesk].", "If we stop using Zendesk, tickets will go to email."), ""),
    ("en-keep-not-only", "en", "keep", "ta", ("Alerts are routed through [Opsgenie].", "Not only Opsgenie but also Slack gets the alerts."), ""),
    ("en-keep-only-option", "en", "keep", "sa", ("Traces are exported to [Honeycomb].", "Honeycomb is no longer the only place traces go."), ""),
    ("en-keep-question", "en", "keep", "ss", ("Nightly builds run on [TeamCity].", "Are nightly builds still on TeamCity?"), ""),
    ("en-keep-plan", "en", "keep", "sa", ("The office VPN is [OpenVPN].", "We might stop using OpenVPN next year."), ""),
    ("en-keep-still", "en", "keep", "ta", ("Support tickets are handled in [Zendesk].", "We used to have outages with Zendesk, but not anymore."), ""),
    # ---- Chinese ----
    ("zh-ci-ended", "zh", "ended", "sa", ("持续集成用 [GitLab CI]", "以前用 GitLab CI 跑持续集成，现在不用了"), ""),
    ("zh-mq-ended", "zh", "ended", "ss", ("消息队列是 [RocketMQ]", "消息队列之前是 RocketMQ，后来不用了"), ""),
    ("zh-monitor-ended-rep", "zh", "ended", "ta", ("监控用 [Zabbix]", "以前监控用 Zabbix，现在换成 [Prometheus] 了"), ""),
    ("zh-artifacts-verbneg", "zh", "verbneg", "sa", ("制品推送到 [Harbor]", "我们不再往 Harbor 推制品了"), ""),
    ("zh-logs-verbneg", "zh", "verbneg", "ss", ("应用日志同步到 [Graylog]", "应用日志不再同步到 Graylog 了"), "代码托管在 [Gitea]"),
    ("zh-build-owned", "zh", "owned", "sa", ("后端的构建工具是 [Gradle]", "构建不走 Gradle 了"), ""),
    ("zh-dist-owned", "zh", "owned", "ss", ("移动端用 [蒲公英] 分发测试包", "蒲公英已经不用了"), ""),
    ("zh-registry-return", "zh", "return", "sas", ("镜像仓库是 [Harbor]", "镜像仓库换成 [Quay] 了", "又切回 [Harbor] 了"), ""),
    ("zh-format-return", "zh", "return", "sss", ("代码格式化用 [Prettier]", "代码格式化改用 [Biome]", "不用 Biome 了，回到 [Prettier]"), ""),
    ("zh-keep-plan", "zh", "keep", "sa", ("消息队列是 [RocketMQ]", "打算不用 RocketMQ 了"), ""),
    ("zh-keep-other-subject", "zh", "keep", "ss", ("缓存用 [Redis]", "会话不存 Redis 了"), ""),
    ("zh-keep-question", "zh", "keep", "sa", ("监控用 [Zabbix]", "监控还用 Zabbix 吗？"), ""),
    ("zh-keep-not-only", "zh", "keep", "ta", ("告警发到 [钉钉]", "告警不只发到钉钉，也发到邮件"), ""),
    ("zh-keep-owned-two", "zh", "keep", "ss", ("后端的构建工具是 [Gradle]", "构建不用 Gradle 了"), "安卓端的构建工具是 [Gradle]"),
    # ---- mixed ----
    ("mix-ci-ended", "mix", "ended", "sa", ("CI 跑在 [Drone] 上", "CI 以前跑在 Drone 上，现在不是了"), ""),
    ("mix-coverage-verbneg", "mix", "verbneg", "ss", ("coverage report 上传到 [Codecov]", "coverage report 不再上传到 Codecov 了"), ""),
    ("mix-release-owned", "mix", "owned", "ta", ("iOS team 用 [Fastlane] 发版", "Fastlane 不用了"), ""),
    ("mix-linter-return", "mix", "return", "sas", ("linter 是 [ESLint]", "linter 换成 [oxlint] 了", "linter 又回到 [ESLint] 了"), ""),
    ("mix-keep-condition", "mix", "keep", "sa", ("CI 跑在 [Drone] 上", "如果不用 Drone 的话 CI 要重新配"), ""),
    ("mix-keep-only-option", "mix", "keep", "ss", ("coverage report 上传到 [Codecov]", "Codecov is no longer the only coverage service"), ""),
)  # fmt: skip


# rows that open with the same line share one subject (the oracle reads a meaning by its text)
_TOPIC = {_SPAN.sub(r"\1", r[4][0]): r[0] for r in reversed(ROWS)}


def _case(index: int, row: tuple[str, Lang, Shape, str, tuple[str, ...], str], paths: str) -> Case:
    _, lang, shape, _, lines, beside = row
    id_ = _TOPIC[_text(lines[0])]
    family = f"d15-{shape}"
    chain: list[Statement] = []
    held = Meaning(id_, "", "", False, "")
    for step, line in enumerate(lines[:-1]):
        text, value = _text(line), _SPAN.findall(line)[-1]
        held = Meaning(id_, "", value, False, value)
        path = _PATHS[paths[step]]
        chain.append(Statement(text, _turn(lang, path, text, index + step), path, "chain", family, held))
    last = lines[-1]
    plain, path = _text(last), _PATHS[paths[-1]]
    new_values = _SPAN.findall(last)
    if shape == "keep":  # a look-alike is about something else; the last value stays the truth
        meaning, expect = Meaning(f"{row[0]}-aside", "", _quote(plain), False, _quote(plain)), held
    elif new_values:  # a replacement or a return: the line's marked value is the truth
        meaning, expect = Meaning(id_, "", new_values[-1], False, new_values[-1]), None
    else:  # the denial's meaning: the value no longer holds, carried by the whole line
        meaning, expect = Meaning(id_, "", held.value, True, _quote(plain)), None
    turn = _turn(lang, path, plain, index + len(lines))
    chain.append(Statement(plain, turn, path, "chain", family, meaning, expect))
    setup: tuple[Statement, ...] = ()
    if beside:
        btext, bvalue = _text(beside), _SPAN.findall(beside)[-1]
        kept = Meaning(f"{row[0]}-beside", "", bvalue, False, bvalue)
        setup = (Statement(btext, btext, "save", "bystander", "d15-beside", kept),)
    question = re.sub(r"\s+", " ", _SPAN.sub(" ", lines[0])).strip(" .。")
    tag = "" if paths == row[3] else "-auto"
    return Case(
        f"dev15deny-{row[0]}{tag}",
        "dev15deny",
        lang,
        row[0],
        shape,
        f"/memdeny4-eval/{row[0]}{tag}",
        setup,
        tuple(chain),
        question,
    )


def _all() -> tuple[Case, ...]:
    cases: list[Case] = []
    for index, row in enumerate(ROWS):
        cases.append(_case(index, row, row[3]))
        auto = "a" * len(row[4])
        if row[3] != auto:
            cases.append(_case(index + 1, row, auto))
    return tuple(cases)


CASES = _all()
