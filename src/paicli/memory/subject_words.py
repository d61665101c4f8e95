"""Closed word classes of the claim parser (`subject.py`): grammar, not phrases.

Every set is a grammatical class of Chinese or English (copulas, negators, resultative complements, source
prepositions, determiners and pronouns, aspect particles, time and degree adverbs). None names a subject, a
value or a way to phrase a correction: a new wording of a correction is parsed by its grammar, and what the
grammar cannot place is left to the relation judge.
"""

from __future__ import annotations

# Verbs that link a subject to its value (Chinese); a fused negation (`不是`) is split off first.
ZH_COPULAS = frozenset(
    ["是", "为", "在", "用", "叫", "即", "使用", "采用", "位于", "放在", "等于", "跑在", "设为", "定为", "="]
)
# A verb ending in a resultative complement (`换成`, `调整为`, `切到`, `改回`) names the value that follows.
ZH_RESULTATIVE = ("成", "为", "到", "回", "至")
ZH_NOT_RESULTATIVE = frozenset(
    ["成为", "因为", "认为", "以为", "作为", "行为", "最为", "较为", "极为", "更为", "尤为", "称为", "视为", "收到", "看到",
     "听到", "想到", "遇到", "得到", "提到", "感到", "直到", "等到", "达到", "做到"]
)  # fmt: skip
ZH_COMPLEMENTS = frozenset(["成", "为", "到", "回", "至"])  # `恢复 成 X`: a complement jieba left apart
# Common words that start with a complement character: never cut (`团队成员`, `版本回滚`).
ZH_COMPLEMENT_WORDS = frozenset(
    ["成功", "成本", "成员", "成果", "成熟", "成绩", "成立", "为了", "为何", "为什么", "为止", "到底", "到期", "到达",
     "回答", "回复", "回滚", "回归", "回调", "回退", "回收", "回来", "至少", "至今", "至于"]
)  # fmt: skip
ZH_NEGATORS = (
    *("不再", "并非", "并不", "没有", "不", "没", "非", "别", "未", "无"),
    *("不会", "不要", "不能", "不应", "不该", "不得", "别再"),  # negative modals: `S 不会再是 A 了`
)
ZH_SOURCE = frozenset(["由", "从", "自"])  # `由 A 改成 B`, `从 A 换到 B`: A is the value left behind
ZH_DISPOSAL = frozenset(["把", "将"])  # `把 X 换成 Y`: X is the subject
ZH_ATTRIBUTIVE = ("那边的", "这边的", "那边", "这边", "的", "之")  # `移动端的代码审查人`: an owner qualifier
ZH_ASPECT = frozenset(["了", "过", "着", "啦", "吧", "呢", "哦", "呀", "嘛", "哈", "的", "上", "里", "中"])
ZH_LOCATIVE = frozenset(
    ["上", "里", "中"]
)  # dropped at a subject's end (`跑在 X 上`), kept inside (`线上日志`)

EN_BE = frozenset(["is", "are", "was", "were", "be", "been", "being", "am", "="])
# Verbs that link like a copula (`uses tabs`, `runs on Jenkins`); any other verb links only through a preposition.
EN_LINKING = frozenset(
    [
        *("use", "uses", "using", "run", "runs", "running", "live", "lives", "sit", "sits", "stay", "stays"),
        *("remain", "remains", "remained", "become", "becomes", "became"),  # English grammar's copular verbs
    ]
)
EN_TARGET = frozenset(["to", "with", "into", "as"])
# Verbs of ceasing: what follows them is a value no longer true (`stopped using A`, `moved away from A`).
EN_CESSATION = frozenset(["stopped", "quit", "dropped", "ditched", "abandoned", "retired"])
EN_REPLACING = frozenset(["replaced", "superseded", "succeeded", "swapped"])  # `A was replaced by B`
# Verbs of replacing whose grammatical subject is the new value and whose object is the old one (`B 取代了 A`,
# `用 B 替换了 A`, `B replaced A as the S`).
ZH_REPLACING = frozenset(["取代", "替换", "替代", "代替", "接替", "顶替"])
REPLACING = EN_REPLACING | ZH_REPLACING
# Words that put an end to a value whichever side of them it stands (`A 停用了`, `deprecated A`, `A was
# removed`): verbs of ceasing and their participles, in both languages.
ENDING = frozenset(
    [*EN_CESSATION, "deprecated", "removed", "discontinued", "obsolete", "gone", "phased", "sunset", "out",
     "停用", "弃用", "废弃", "作废", "淘汰", "下线", "废除", "撤掉", "去掉", "不用", "停掉", "过时", "换掉", "替掉",
     "停止", "停止使用", "移除", "撤下", "放弃", "rid", "decommissioned", "disabled", "scrapped", "撤", "取消",
     "关闭", "删除", "禁用", "卸载"]
)  # fmt: skip
# Verbs of changing that take the new value as their object with no complement (`S 换 B`, `S 改用 B`).
ZH_CHANGE = frozenset(["换", "改用", "换用", "转用", "改换"])
# Words that start with 换 and are no verb glued to its object: `换成 B`, `换掉 A`, `换了`.
ZH_CHANGE_WORDS = frozenset(
    ["换成", "换掉", "换了", "换用", "换个", "换到", "换回", "换为", "换过", "换取", "换行", "换算"]
)
# Particles after a verb of motion (`gone back to B`, `moved over to B`): the verb is no verb of ceasing.
EN_MOTION_PARTICLES = frozenset(["back", "to", "over", "into"])
# Demonstratives and place words between a subject and its value (`连接池那个 32`, `approver 这边 王强`).
ZH_DEMONSTRATIVE = frozenset(
    ["那个", "这个", "那条", "这条", "那边", "这边", "那块", "这块", "方面", "里", "中"]
)
# The role a value takes in a clause of its own: `…, as the S`, `…，作为 S`, `…，成为新的 S`.
ROLE = frozenset(["as", "作为", "成为", "当作", "当成", "做", "当"])
# English words that start a time adverbial after the value (`B since Monday`, `B these days`): the value ends.
EN_TIME_START = frozenset(
    ["since", "until", "till", "starting", "effective", "these", "lately", "recently", "going", "as", "from"]
)
EN_CESSATION_PARTICLES = frozenset(["using", "use", "away", "from", "off", "with", "running", "on", "being"])
EN_PERFECT = frozenset(["has", "have", "had"])  # the perfect's auxiliary before a verb of ceasing
CONTRAST = frozenset(["but", "rather", "而是", "而"])  # `not A but B`: B is what holds
ARROWS = frozenset(["→", "->", "=>", "⇒", "➜"])  # `A → B`: A becomes B  # `changed to B`, `replaced A with B`
EN_SOURCE = frozenset(["from", "off", "of"])  # `changed from A`, `moved off A`
EN_PLACE = frozenset(["on", "in", "at"])  # `hosted on A`, `deployed in A`: a participle placing the subject
EN_NEGATORS = frozenset(["not", "no", "never", "n't", "isn't", "aren't", "wasn't", "don't", "doesn't", "nor"])
# A personal pronoun and a verb after a noun open a relative clause (`the S we picked is B`): not the subject's.
EN_PERSONAL = frozenset(["we", "i", "you", "they"])
# `B instead of A`, `B rather than A`: the value ends here and what follows is the value it replaces.
EN_SUBSTITUTE = frozenset(["instead", "rather"])
# Nouns of a span of time (`for a while`, `for now`, `for two weeks`): after `for` they name no subject.
EN_DURATION = frozenset(
    [
        "while",
        "now",
        "ever",
        "moment",
        "ages",
        "time",
        "years",
        "months",
        "weeks",
        "days",
        "year",
        "month",
        "week",
    ]
)
EN_NUMBER_WORDS = frozenset(["one", "two", "three", "four", "five", "six", "several", "few", "many", "a"])
EN_PRONOUNS = frozenset(["we", "i", "you", "they", "it", "he", "she", "this", "that", "there", "everyone"])
EN_DETERMINERS = frozenset(["the", "a", "an", "our", "my", "your", "their", "its", "this", "that", "these"])
EN_OWNER_PREPOSITIONS = frozenset(["of", "for"])  # `the reviewer of the mobile app`, `for the data team,`
EN_IRREGULAR_VERBS = frozenset(
    [
        "went",
        "gone",
        "got",
        "became",
        "came",
        "took",
        "made",
        "set",
        "put",
        "ran",
        "moved",
        "has",
        "have",
        "had",
    ]
)

# Words that say nothing about which thing a fact is about or which value it has: pronouns, determiners,
# the speaker's own project, time and degree adverbs, discourse markers.
GENERIC = frozenset(
    [
        # Chinese
        "我们", "我", "咱们", "咱", "你们", "大家", "本", "该", "这个", "那个", "这", "那", "那条", "这条", "项目",
        "本项目", "我们项目", "整个", "团队", "这边", "那边", "目前", "现在", "已经", "当前", "一直", "都", "也",
        "还", "还是", "又", "再", "重新", "统一", "其实", "总是", "通常", "一般", "平时", "最后", "最终",
        "以后", "今后", "从此", "开始", "起", "这周", "本周", "上周", "下周", "这个月", "上个月", "本月", "今天",
        "最新", "新", "旧", "新的", "旧的", "之前", "以前", "原来", "原先", "就", "说", "只", "仍", "仍然", "依然",
        "一律", "全部", "所有", "正式", "已", "先", "暂时", "同步", "一下", "约定", "仓库", "代码库", "并", "早就",
        "早已", "早", "的话", "来说", "方面", "这块", "最近", "近期", "如今", "眼下", "确实", "的确", "肯定", "绝对", "根本", "完全", "从来", "一定", "真的", "其实是", "而",
        # English
        "we", "our", "us", "i", "my", "me", "the", "a", "an", "this", "that", "these", "those", "it", "its",
        "project", "repo", "repository", "team", "currently", "now", "always", "usually", "do", "does", "did",
        "will", "would", "should", "can", "could", "must",
        "actually", "again", "still", "once", "more", "anymore", "any", "longer", "back", "just", "also", "today",
        "starting", "week", "month", "sprint", "year", "last", "next", "from", "on", "in", "at", "update",
        "updated", "note", "fyi", "heads", "up", "new", "old", "current", "these", "instead", "officially",
        "finally", "all", "here", "there", "then", "so", "please", "remember", "out", "over", "record", "clear",
        "has", "have", "had", "ever", "about", "ok", "okay", "alright", "anyway", "btw",
    ]
)  # fmt: skip
ZH_TRAILING_ADVERBS = frozenset(
    ["默认", "一般", "通常", "基本", "主要", "统一"]
)  # only right before the predicate
SYNONYMS = {"端口号": "端口", "版本号": "版本", "号码": "号"}
