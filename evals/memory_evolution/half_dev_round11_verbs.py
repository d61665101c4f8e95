"""Round 11 of the dev half (memverbs, issue 37): English and code-switched facts whose predicate is a lexical verb,
not is/are. Subjects singular and plural (`the nightly backup starts at`, `session tokens expire after`), verbs
with a prepositional complement (`at 04:00`, `after 8 hours`, `on Fridays`, `above 25 MB`) or a direct object
(`targets iOS 16`, `caches pages for 10 minutes`); "now" / "from now on" / "these days" before the verb, after it
and at the end; denials with do-support (`doesn't start at`, `no longer expire after`). The near-duplicates are
look-alike subjects with the same verb (`backend builds run on …` beside `frontend builds run on …`, `the weekly
backup` beside `the nightly backup`), which must never be superseded. Written in my own words before the product
change; no test case seen.

The new subjects do not fit the earlier rounds' copular families (`The {S} is {V}`), so this round is a half of its
own (`HALF`, the runner's `dev11`), with the dev half's wrappers and remember-turns; the earlier rounds stay as they
were (`dev`).
"""

from __future__ import annotations

from dataclasses import replace

from evals.memory_evolution.half_dev_round10 import HALF as BASE
from evals.memory_evolution.spec import Family, Subject


def _subject(
    key: str,
    zh: tuple[str, str, str, str],
    en: tuple[str, str, str, str, str],
    values: tuple[tuple[str, str], ...],
    others: tuple[tuple[str, str], ...],
    questions: tuple[str, str, str],
) -> Subject:
    return Subject(
        key, zh[0], zh[1], en[0], en[1], zh[2], zh[3], en[2], en[3], en[4], values, others, *questions
    )


SUBJECTS = (
    _subject(
        "tokens",
        ("会话令牌过期时间", "过期时间", "是", "不是"),
        ("session tokens", "tokens", "expire after", "do not expire after", "they expire after"),
        (("24 小时", "24 hours"), ("8 小时", "8 hours"), ("12 小时", "12 hours")),
        (("管理后台令牌过期时间", "Admin tokens"), ("刷新令牌过期时间", "Refresh tokens")),
        ("会话令牌多久过期？", "When do session tokens expire?", "session tokens 多久过期？"),
    ),
    _subject(
        "backup",
        ("夜间备份", "备份", "定在", "不在"),
        ("nightly backup", "backup", "starts at", "does not start at", "it starts at"),
        (("04:00", "04:00"), ("05:30", "05:30"), ("02:15", "02:15")),
        (("每周备份", "The weekly backup"), ("日志归档任务", "The log archive job")),
        ("夜间备份几点开始？", "When does the nightly backup start?", "nightly backup 几点开始？"),
    ),
    _subject(
        "uploads",
        ("文件上传上限", "上传上限", "是", "不是"),
        ("file uploads", "uploads", "fail above", "do not fail above", "they fail above"),
        (("25 MB", "25 MB"), ("50 MB", "50 MB"), ("10 MB", "10 MB")),
        (("头像上传上限", "Avatar uploads"), ("视频上传上限", "Video uploads")),
        ("文件上传上限多大？", "How large can file uploads be?", "file uploads 上限多大？"),
    ),
    _subject(
        "release",
        ("移动端发版", "发版", "在", "不在"),
        ("mobile release", "release", "ships on", "does not ship on", "it ships on"),
        (("周五", "Fridays"), ("周二", "Tuesdays"), ("周四", "Thursdays")),
        (("桌面端发版", "The desktop release"), ("网页端发版", "The web release")),
        ("移动端哪天发版？", "Which day does the mobile release ship?", "mobile release 哪天发？"),
    ),
    _subject(
        "builds",
        ("前端构建", "构建", "跑在", "不跑在"),
        ("frontend builds", "builds", "run on", "do not run on", "they run on"),
        (("Node 18", "Node 18"), ("Node 20", "Node 20"), ("Node 22", "Node 22")),
        (("后端构建", "Backend builds"), ("文档构建", "Docs builds")),
        (
            "前端构建跑在哪个 Node 上？",
            "Which Node do frontend builds run on?",
            "frontend builds 跑在哪个 Node 上？",
        ),
    ),
    _subject(
        "retries",
        ("webhook 重试上限", "重试上限", "是", "不是"),
        ("webhook retries", "retries", "stop after", "do not stop after", "they stop after"),
        (("5 次", "5 attempts"), ("3 次", "3 attempts"), ("8 次", "8 attempts")),
        (("支付回调重试上限", "Payment callback retries"), ("邮件重试上限", "Email retries")),
        ("webhook 重试几次？", "When do webhook retries stop?", "webhook retries 几次后停？"),
    ),
    _subject(
        "cdn",
        ("CDN 页面缓存时间", "缓存时间", "是", "不是"),
        ("CDN", "CDN", "caches pages for", "does not cache pages for", "it caches pages for"),
        (("10 分钟", "10 minutes"), ("30 分钟", "30 minutes"), ("1 小时", "1 hour")),
        (("图片 CDN 缓存时间", "The image CDN"), ("接口网关缓存时间", "The API gateway")),
        ("CDN 页面缓存多久？", "How long does the CDN cache pages?", "CDN 页面 cache 多久？"),
    ),
    _subject(
        "app",
        ("移动应用最低支持版本", "最低支持版本", "是", "不是"),
        ("mobile app", "app", "targets", "does not target", "it targets"),
        (("iOS 16", "iOS 16"), ("iOS 17", "iOS 17"), ("iOS 15", "iOS 15")),
        (("平板应用最低支持版本", "The tablet app"), ("手表应用最低支持版本", "The watch app")),
        (
            "移动应用最低支持哪个 iOS？",
            "Which iOS does the mobile app target?",
            "mobile app 最低支持哪个 iOS？",
        ),
    ),
)

FAMILIES = (
    # English: the verb after the subject, adverbs of time before it, after it and at the end
    Family("d11-en-s1", "state", "en", "{Scap} {EBE} {V}."),
    Family("d11-en-s2", "state", "en", "In this repo the {S} {EBE} {V}."),
    Family("d11-en-s3", "state", "en", "Currently the {S} {EBE} {V}."),
    Family("d11-en-u1", "update", "en", "{Scap} now {EBE} {V}."),
    Family("d11-en-u2", "update", "en", "The {S} {EBE} {V} now."),
    Family("d11-en-u3", "update", "en", "From now on the {S} {EBE} {V}."),
    Family("d11-en-u4", "update", "en", "These days {S} {EBE} {V}."),
    Family("d11-en-u5", "update", "en", "{Scap} {EBE} {V} from now on."),
    Family("d11-en-u6", "update", "en", "Heads up, the {S} {EBE} {V} starting this week."),
    Family("d11-en-o1", "update_old", "en", "{Scap} {EBE} {V} now, not {O}."),
    Family("d11-en-o2", "update_old", "en", "The {S} no longer {EBE} {O}; {EIT} {V}."),
    Family("d11-en-o3", "update_old", "en", "{Scap} {EBE} {V} instead of {O}."),
    Family("d11-en-o4", "update_old", "en", "The {S} {ENOT} {O} anymore, {EIT} {V}."),
    Family("d11-en-r1", "return", "en", "{Scap} {EBE} {V} again."),
    Family("d11-en-r2", "return", "en", "The {S} once again {EBE} {V}."),
    Family("d11-en-n1", "negate", "en", "{Scap} {ENOT} {O} anymore."),
    Family("d11-en-n2", "negate", "en", "The {S} no longer {EBE} {O}."),
    Family("d11-en-x1", "negate_replace", "en", "{Scap} {ENOT} {O}; {EIT} {V}."),
    Family("d11-en-x2", "negate_replace", "en", "The {S} {EBE} {V}, not {O}."),
    # code-switched: the English subject and verb with Chinese values, in English and Chinese frames
    Family("d11-mix-s1", "state", "mix", "{S} {EBE} {V}"),
    Family("d11-mix-s2", "state", "mix", "我们的 {S} {EBE} {V}"),
    Family("d11-mix-u1", "update", "mix", "{S} 现在 {EBE} {V} 了"),
    Family("d11-mix-u2", "update", "mix", "{S} now {EBE} {V}"),
    Family("d11-mix-u3", "update", "mix", "从这周起 {S} {EBE} {V}"),
    Family("d11-mix-o1", "update_old", "mix", "{S} {EBE} {V}，不再是 {O} 了"),
    Family("d11-mix-o2", "update_old", "mix", "{S} 不再 {EBE} {O}，改成 {V}"),
    Family("d11-mix-r1", "return", "mix", "{S} 又 {EBE} {V} 了"),
    Family("d11-mix-n1", "negate", "mix", "{S} {ENOT} {O} 了"),
    Family("d11-mix-x1", "negate_replace", "mix", "{S} {ENOT} {O}，{EIT} {V}"),
    # Chinese: the subjects' own copular frames, so every language runs the same subjects
    Family("d11-zh-s1", "state", "zh", "{S}{BE}{V}"),
    Family("d11-zh-u1", "update", "zh", "{S}现在{BE}{V}了"),
    Family("d11-zh-u2", "update", "zh", "{S}改成{V}了"),
    Family("d11-zh-o1", "update_old", "zh", "{S}从{O}改成了{V}"),
    Family("d11-zh-r1", "return", "zh", "{S}又{BE}{V}了"),
    Family("d11-zh-n1", "negate", "zh", "{S}{NOT}{O}了"),
    Family("d11-zh-x1", "negate_replace", "zh", "{S}{NOT}{O}，{BE}{V}"),
)

HALF = replace(
    BASE,
    name="dev11",
    subjects=SUBJECTS,
    families=FAMILIES,
    passes=1,
    # the look-alike is a subject of its own with the same verb: `Backend builds run on Node 18`
    neighbour={"zh": "{Q}{BE}{V}", "en": "{Q} {EBE} {V}.", "mix": "{Q} {BE} {V}"},
)
