"""Round 12 of the dev half (memneg, issue 37): a negation that ends a chain, in many wordings, on every path.

Shapes: `negend` (A, then B, then B denied), `negate`, `negrep`, `return`, and two look-alike shapes that must
leave the current truth alone: `aside` (a negated question, a denial about another component or team, a denial of
a value the chain never held, a hypothetical) and `contrast` (the current value said again beside one it never
was). The denials come in many wordings per language (English: got rid of, is gone, retired, turned off, gave up
on, removed, no longer, not in use, without, no more, phased out, decommissioned, stopped …; Chinese: 不再, 不用了,
停用, 下线, 弃用, 去掉, 拿掉, 没在用, 取消, 撤了, 关掉 …; code-switched), with the subject named or left out
(`We got rid of Kafka.`). Two frames: noun-phrase subjects (`the message queue is Kafka`) and verb-phrase
subjects (`we deploy with Helm` -> `we've stopped deploying with Helm`); in the verb frame `{S}` is the verb
phrase's base form, `{EBE}` its -ing form, `{ENOT}` its past participle, `{EIT}` its third person, `{BE}` the
Chinese verb of means (用). The automatic path carries most denials. Written in my own words before any product
change; no test case seen. A half of its own (`dev12neg`) on round 10's wrappers and remember-turns.
"""

from __future__ import annotations

from dataclasses import replace

from evals.memory_evolution.half_dev_round10 import HALF as BASE
from evals.memory_evolution.spec import Family, Kind, Lang, Subject


def _noun(
    key: str,
    zh: tuple[str, str, str, str],
    en: tuple[str, str],
    values: tuple[tuple[str, str], ...],
    others: tuple[tuple[str, str], ...],
    questions: tuple[str, str, str],
) -> Subject:
    return Subject(
        key, zh[0], zh[1], en[0], en[1], zh[2], zh[3], "is", "is not", "it's", values, others, *questions
    )


def _act(
    key: str,
    zh: str,
    en: tuple[str, str, str, str],
    values: tuple[tuple[str, str], ...],
    others: tuple[tuple[str, str], ...],
    questions: tuple[str, str, str],
) -> Subject:
    """A verb-phrase subject: (base, -ing, past participle, third person) in English, the verb in Chinese."""
    base, ing, past, third = en
    return Subject(
        key, zh, zh, base, base, "用", "不用", ing, past, third, values, others, *questions, frame="act"
    )


def _same(*names: str) -> tuple[tuple[str, str], ...]:
    return tuple((name, name) for name in names)


SUBJECTS = (
    _noun(
        "queue",
        ("消息队列", "队列", "用", "不用"),
        ("message queue", "queue"),
        _same("RabbitMQ", "Kafka", "NATS"),
        (("通知服务", "the notification service"), ("Orion 项目", "the Orion project")),
        ("消息队列用什么？", "Which message queue do we use?", "message queue 用哪个？"),
    ),
    _noun(
        "cache",
        ("缓存服务", "缓存", "用", "不用"),
        ("cache backend", "cache"),
        _same("Redis", "Memcached", "Hazelcast"),
        (("搜索服务", "the search service"), ("Lyra 项目", "the Lyra project")),
        ("缓存服务用什么？", "What is the cache backend?", "cache backend 用什么？"),
    ),
    _noun(
        "linter",
        ("代码检查工具", "检查工具", "用", "不用"),
        ("lint tool", "linter"),
        _same("ESLint", "Biome", "oxlint"),
        (("文档站", "the docs site"), ("Vega 项目", "the Vega project")),
        ("代码检查工具用什么？", "Which lint tool do we use?", "lint tool 用哪个？"),
    ),
    _noun(
        "port",
        ("服务端口", "端口", "是", "不是"),
        ("service port", "port"),
        _same("8080", "9000", "3000"),
        (("管理后台", "the admin console"), ("Draco 项目", "the Draco project")),
        ("服务端口是多少？", "What is the service port?", "service port 是多少？"),
    ),
    _noun(
        "monitor",
        ("监控系统", "监控", "用", "不用"),
        ("monitoring stack", "monitoring"),
        _same("Prometheus", "Datadog", "Zabbix"),
        (("支付服务", "the payment service"), ("Cygnus 项目", "the Cygnus project")),
        ("监控系统用什么？", "What is the monitoring stack?", "monitoring stack 用什么？"),
    ),
    _act(
        "deploy",
        "部署",
        ("deploy with", "deploying with", "deployed with", "deploys with"),
        _same("Helm", "Argo CD", "Kustomize"),
        (("移动端团队", "The mobile team"), ("Orion 项目", "The Orion project")),
        ("我们用什么部署？", "What do we deploy with?", "我们 deploy with 什么？"),
    ),
    _act(
        "package",
        "打包",
        ("package the app with", "packaging the app with", "packaged the app with", "packages the app with"),
        _same("Docker", "Podman", "Buildah"),
        (("数据团队", "The data team"), ("Lyra 项目", "The Lyra project")),
        ("我们用什么打包？", "What do we package the app with?", "我们 package the app with 什么？"),
    ),
    _act(
        "tests",
        "跑测试",
        ("run the tests with", "running the tests with", "run the tests with", "runs the tests with"),
        _same("pytest", "nose2", "ward"),
        (("前端团队", "The frontend team"), ("Vega 项目", "The Vega project")),
        ("我们用什么跑测试？", "What do we run the tests with?", "我们 run the tests with 什么？"),
    ),
    _act(
        "sign",
        "签名提交",
        ("sign commits with", "signing commits with", "signed commits with", "signs commits with"),
        (("GPG", "GPG"), ("SSH 密钥", "SSH keys"), ("Sigstore", "Sigstore")),
        (("运维团队", "The ops team"), ("Draco 项目", "The Draco project")),
        ("我们用什么签名提交？", "What do we sign commits with?", "我们 sign commits with 什么？"),
    ),
    _act(
        "deps",
        "管理依赖",
        (
            "manage dependencies with",
            "managing dependencies with",
            "managed dependencies with",
            "manages dependencies with",
        ),
        _same("Poetry", "pip-tools", "uv"),
        (("算法团队", "The ML team"), ("Cygnus 项目", "The Cygnus project")),
        (
            "我们用什么管理依赖？",
            "What do we manage dependencies with?",
            "我们 manage dependencies with 什么？",
        ),
    ),
)


def _families(prefix: str, lang: Lang, frame: str, kinds: dict[Kind, tuple[str, ...]]) -> tuple[Family, ...]:
    return tuple(
        Family(f"{prefix}-{lang}-{kind}{i}", kind, lang, text, frame)
        for kind, texts in kinds.items()
        for i, text in enumerate(texts, 1)
    )


NOUN_EN: dict[Kind, tuple[str, ...]] = {
    "state": ("The {S} here {EBE} {V}.", "We run {V} as the {S}."),
    "update": (
        "The {S} moved to {V} this week.",
        "{Scap} {EBE} {V} since the last release.",
        "We picked {V} as the new {S}.",
    ),
    "negate": (
        "We got rid of {O}.",
        "{O} is gone.",
        "We retired {O} from the {S}.",
        "{O} has been turned off for the {S}.",
        "We gave up on {O} for the {S}.",
        "We removed {O} from the {S}.",
        "{O} isn't used for the {S} these days.",
        "The {S} runs without {O} now.",
        "No more {O} for the {S}.",
        "We dropped {O}.",
        "We stopped using {O}.",
        "{Scap}: {O} has been switched off.",
        "The {S} is no longer on {O}.",
        "{O} is not in use anymore.",
        "We're done with {O} for the {S}.",
        "{O} got decommissioned last week.",
        "The {S} doesn't run on {O} anymore.",
        "We turned {O} off.",
        "{O} was pulled from the {S}.",
        "We've phased out {O}.",
    ),
    "return": (
        "{V} is our {S} once again.",
        "We reverted the {S} back to {V}.",
        "The {S} went back to {V} after all.",
    ),
    "negate_replace": (
        "The {S} stopped using {O}; we run {V} now.",
        "{O} is gone, the {S} is {V}.",
        "No more {O}: the {S} is {V} now.",
    ),
    "aside": (
        "Isn't {O} the {S}?",
        "The {S} of the admin console is not {O}.",
        "The {S} is not {V}.",
        "If we ever drop {O}, the {S} would be {V}.",
        "Isn't the {S} on {O} anymore?",
        "The staging {S} doesn't use {O}.",
        "We never used {V} for the {S}.",
        "Should we stop using {O} for the {S}?",
    ),
    "restate": (
        "We use {V} for the {S}, not {O}.",
        "The {S} is {V}, not {O}.",
        "The {S} stays {V}; it was never {O}.",
    ),
}

NOUN_ZH: dict[Kind, tuple[str, ...]] = {
    "state": ("{S}一直{BE}{V}", "{S}那边{BE}{V}"),
    "update": ("{S}换到{V}了", "{S}这周起{BE}{V}", "{S}改用{V}了"),
    "negate": (
        "{S}不再用{O}了",
        "{O}不用了",
        "{S}停用了{O}",
        "{O}已经下线了",
        "{S}弃用{O}了",
        "{S}去掉了{O}",
        "{S}里把{O}拿掉了",
        "{S}现在没在用{O}",
        "{S}取消了{O}",
        "{O}那套已经撤了",
        "{S}不再使用{O}",
        "{O}我们已经不用了",
        "{S}早已不是{O}了",
        "{S}没有再用{O}了",
        "{S}已经关掉了{O}",
        "{O}已经停掉了",
    ),
    "return": ("{S}又改回{V}了", "{S}又定成{V}了", "{S}重新用回{V}", "{S}又回到{V}了"),
    "negate_replace": ("{S}不用{O}了，改用{V}", "{O}下线了，{S}现在{BE}{V}"),
    "aside": (
        "{S}不是{O}吗？",
        "管理后台的{S}不是{O}",
        "{S}不是{V}",
        "如果以后不用{O}，{S}可能会换成{V}",
        "{S}是不是不用{O}了？",
        "测试环境的{S}已经不用{O}了",
        "{S}从来没用过{V}",
    ),
    "restate": ("{S}用的是{V}，不是{O}", "{S}还是{V}，从没换成过{O}"),
}

NOUN_MIX: dict[Kind, tuple[str, ...]] = {
    "state": ("{S} 这边{BE} {V}", "我们的 {S} {BE} {V}"),
    "update": ("{S} 已经换到 {V} 了", "{S} 现在用 {V}"),
    "negate": (
        "{S} 这边 {O} 已经停用",
        "{O} 已经 removed 了",
        "{S} 不再 use {O}",
        "{S} 已经 drop 掉 {O} 了",
        "{S} 没在用 {O} 了",
        "no more {O} for {S} 了",
        "{S} 下线了 {O}",
        "{O} 我们 retired 了",
        "{S} 取消 {O} 了",
        "we stopped using {O} 了",
    ),
    "return": ("{S} 又改回 {V} 了", "{S} 又定成 {V} 了", "{S} went back to {V} 了"),
    "negate_replace": ("{S} 不用 {O} 了，now {V}", "{O} 去掉了，{S} 改成 {V}"),
    "aside": (
        "{S} 不是 {O} 吗？",
        "admin console 的 {S} 不是 {O}",
        "{S} is not {V}",
        "如果 {S} 不再用 {O}，就换 {V}",
    ),
    "restate": ("{S} 用的是 {V}，not {O}", "{S} 是 {V}，不是 {O}"),
}

ACT_EN: dict[Kind, tuple[str, ...]] = {
    "state": ("We {S} {V}.", "Here the team {EIT} {V}."),
    "update": ("We {S} {V} now.", "We switched to {EBE} {V}.", "From this sprint we {S} {V}."),
    "negate": (
        "We've stopped {EBE} {O}.",
        "We don't {S} {O} anymore.",
        "We no longer {S} {O}.",
        "Nobody {EIT} {O} now.",
        "We gave up {EBE} {O}.",
        "No more {EBE} {O}.",
        "We quit {EBE} {O} last month.",
        "We're done {EBE} {O}.",
        "The team stopped {EBE} {O}.",
        "We haven't {ENOT} {O} in months.",
    ),
    "return": ("We {S} {V} again.", "We're back to {EBE} {V}.", "We went back to {EBE} {V}."),
    "negate_replace": ("We don't {S} {O} anymore; we {S} {V}.", "We stopped {EBE} {O} and {S} {V} now."),
    "aside": (
        "Don't we {S} {O}?",
        "The mobile team doesn't {S} {O}.",
        "We never {ENOT} {V}.",
        "If {O} breaks again, we may stop {EBE} it.",
    ),
    "restate": ("We {S} {V}, not {O}.", "We {S} {V} and never {ENOT} {O}."),
}

ACT_ZH: dict[Kind, tuple[str, ...]] = {
    "state": ("我们{BE}{V}{S}", "{S}{BE}的是{V}"),
    "update": ("现在我们{BE}{V}{S}了", "{S}改{BE}{V}了"),
    "negate": (
        "我们不再{BE}{O}{S}了",
        "{S}已经不{BE}{O}了",
        "我们停止{BE}{O}{S}了",
        "{O}不再用来{S}了",
        "{S}这块{O}弃用了",
        "我们没在{BE}{O}{S}了",
        "{S}把{O}去掉了",
    ),
    "return": ("我们又{BE}{V}{S}了", "{S}又改回{BE}{V}了", "{S}又换回{V}了"),
    "negate_replace": ("{S}不{BE}{O}了，改{BE}{V}",),
    "aside": (
        "我们不是{BE}{O}{S}吗？",
        "移动端团队不{BE}{O}{S}",
        "我们从没{BE}{V}{S}过",
        "要是{O}再出问题，就不{BE}它{S}了",
    ),
    "restate": ("我们{BE}{V}{S}，不是{O}",),
}

ACT_MIX: dict[Kind, tuple[str, ...]] = {
    "state": ("我们 {S} {V}", "team 一直 {S} {V}"),
    "update": ("我们现在 {S} {V} 了", "我们改成 {S} {V} 了"),
    "negate": (
        "我们已经不 {S} {O} 了",
        "we stopped {EBE} {O} 了",
        "我们不再 {S} {O}",
        "no more {EBE} {O} 了",
    ),
    "return": ("我们又 {S} {V} 了", "back to {EBE} {V} 了"),
    "negate_replace": ("我们不 {S} {O} 了，改成 {V}",),
    "aside": ("我们不是 {S} {O} 吗？", "mobile team 不 {S} {O}", "我们从没 {S} {V}"),
    "restate": ("我们 {S} {V}，not {O}",),
}

FAMILIES = (
    *_families("n12", "en", "", NOUN_EN),
    *_families("n12", "zh", "", NOUN_ZH),
    *_families("n12", "mix", "", NOUN_MIX),
    *_families("n12a", "en", "act", ACT_EN),
    *_families("n12a", "zh", "act", ACT_ZH),
    *_families("n12a", "mix", "act", ACT_MIX),
)

HALF = replace(
    BASE,
    name="dev12neg",
    subjects=SUBJECTS,
    families=FAMILIES,
    passes=2,
    spread=True,
    frame_neighbour={"act": {"zh": "{Q}{BE}{V}{S}", "en": "{Q} {EIT} {V}.", "mix": "{Q} {S} {V}"}},
    shapes=("negend", "negate", "negrep", "return", "aside", "contrast"),
    # the automatic path weighted up: the denial (the last or middle step) arrives through it most often
    paths=(("auto",), ("save",), ("auto",), ("tool",), ("save", "tool", "auto"), ("tool", "auto", "auto")),
)
