"""Closed word classes of responsibility statements (`claim_roles.py`): grammar, not phrasings.

A responsibility statement says that a person holds a duty over a thing. Its words fall in a few classes, the same
in Chinese and English: verbs of duty (负责, 维护, 审批, owns, maintains, approves), agent nouns of duty (负责人,
审批人, owner, approver) and nouns of a duty held by someone (`X is Omar's job`), verbs of taking a duty over
(接手, took over) and of handing it to someone (交给, handed … to), and the function words that place the agent
(由, 归, by), the recipient (给, to), the thing handed (把), the one it came from (从, from) and a duty named as a
noun (的, of, 's). No word names a thing, a person or a way to phrase a handover.

Duties are coarse: owning, maintaining, approving, reviewing and writing are one relation ("responsible for")
unless a statement contrasts two of them on the same thing; the fine class is kept for that case.
"""

from __future__ import annotations

from typing import Literal

Kind = Literal[
    "duty",  # a verb of duty: 负责, owns
    "agent",  # a noun for the one who holds a duty: 负责人, owner
    "task",  # a noun for a duty held by someone: `X is Omar's job`, 职责
    "take",  # the subject takes the duty over: 接手, took over
    "give",  # the duty goes to someone: 交给, handed
    "by",  # the agent follows: 由, 被, by
    "belong",  # the holder follows: 归, belongs to
    "replace",  # the new holder stands before it, the previous one after it: 顶替, replaced
    "to",  # the recipient follows: 给, to
    "hold",  # the thing handed follows: 把, 将
    "from",  # the previous holder follows: 从, from
    "be",  # a copula: 是, is
    "of",  # a possessive or attributive marker: 的, of, 's
    "neg",  # a negator or a verb of ceasing: 不再, no longer, stopped
    "old",  # a time adverb that puts the clause in the past: 原来, formerly
    "change",  # the holder changed, the new one follows (换成) or is not named (换人)
    "who",  # a relative pronoun: `the one who looks after X is P`
    "does",  # a pro-verb standing for the duty: `…; Omar does`
    "it",  # a pronoun standing for the thing: `…, Omar has it now`, `reviews them`
    "and",  # a coordination between two statements of duty
    "aux",  # a word that only carries a verb: 在管, 来审批, has, will
    "skip",  # adverbs, determiners, aspect particles, place words of holding (手里), time words
]

# Fine duty classes; every duty is also the coarse relation "responsible for".
OWN, APPROVE, REVIEW, WRITE = "own", "approve", "review", "write"
COARSE = "responsible"

ZH_DUTY = {
    **dict.fromkeys(["负责", "维护", "管", "管理", "主管", "打理", "看管", "跟进", "主导"], OWN),
    **dict.fromkeys(["审批", "签字", "签发", "批准", "拍板"], APPROVE),
    **dict.fromkeys(["审核", "评审", "审查", "把关", "复核"], REVIEW),
    **dict.fromkeys(["编写", "撰写", "起草"], WRITE),
}
ZH_TASK = frozenset(["职责", "责任"])
ZH_AGENT_SUFFIXES = ("人", "者", "员")  # 负责人, 维护者: the one who holds the duty
ZH_TAKE = frozenset(["接手", "接过", "接管", "接任", "接下"])
ZH_GIVE = frozenset(
    [
        "交给",
        "交接给",
        "转给",
        "移交给",
        "交还给",
        "交回给",
        "转交给",
        "交接",
        "转交",
        "移交",
        "交回",
        "交还",
        "回到",
    ]
)
ZH_CHANGE = frozenset(["换人", "换成", "改成", "变成", "换为", "改为", "换了人"])
ZH_WORDS: dict[str, Kind] = {
    **dict.fromkeys(["由", "被"], "by"),
    **dict.fromkeys(["归"], "belong"),
    **dict.fromkeys(["顶替", "接替", "代替", "替换", "替代", "取代"], "replace"),
    **dict.fromkeys(["给"], "to"),
    **dict.fromkeys(["把", "将"], "hold"),
    **dict.fromkeys(["从"], "from"),
    **dict.fromkeys(["是", "为"], "be"),
    **dict.fromkeys(["的", "之"], "of"),
    **dict.fromkeys(["原来", "以前", "之前", "原先", "本来", "曾经", "先前"], "old"),
    **dict.fromkeys(["它", "这个", "这块活"], "it"),
    **dict.fromkeys(["而且", "并且", "同时"], "and"),
    # adverbs of time and degree, aspect particles, place words of holding, demonstratives of a topic
    **dict.fromkeys(
        ["现在", "目前", "以后", "今后", "从此", "已经", "一直", "重新", "还是", "仍然", "依然", "暂时", "这块",
         "那块", "这一块", "那一块", "这部分", "那部分", "这边", "那边", "手里", "手上", "名下", "那里", "这里", "那儿", "上周", "本周", "这周", "下周", "今天",
         "从今天起", "了", "着", "过", "啦", "呢", "吧", "正式", "主要"],
        "skip",
    ),
}  # fmt: skip
# One-character adverbs and auxiliaries: only right before another word of this lexicon (`还管着`, `在管`,
# `来审批`); elsewhere they may be part of a name.
ZH_CLITICS = frozenset(["也", "还", "又", "再", "都", "就", "才", "已", "仍", "在", "去", "改", "来"])
ZH_NEGATORS = ("不再", "并非", "并不", "没有", "不会", "不", "没", "别再", "别", "未")
# Words that hold a character of this lexicon and are none of its words (`路由` is no 由, `尽管` no 管).
ZH_LEXICAL = frozenset(
    ["路由", "理由", "自由", "由于", "缘由", "尽管", "不管是", "托管", "管道", "管用", "血管", "管控", "监管",
     "管线", "管理后台", "管理端", "管理器", "管理平台", "管理系统", "管理工具", "管理页面", "管理台", "归档", "回归", "归类", "给予", "供给", "是否", "但是", "可是", "于是", "总是",
     "只是", "或是", "要是", "凡是", "的确", "的话", "从来", "从而", "服从",
     "从事", "不同", "不错", "被子", "来源", "未来", "不过", "在线", "存在", "实在", "为了", "因为", "作为",
     "行为", "认为", "以为", "成为", "将来", "即将", "交易", "提交", "总归", "归属"]
)  # fmt: skip

EN_DUTY = {
    **dict.fromkeys(["own", "owns", "owned", "owning"], OWN),
    **dict.fromkeys(["maintain", "maintains", "maintained", "maintaining"], OWN),
    **dict.fromkeys(["manage", "manages", "managed", "managing"], OWN),
    **dict.fromkeys(["handle", "handles", "handled", "handling"], OWN),
    **dict.fromkeys(["approve", "approves", "approved", "approving"], APPROVE),
    **dict.fromkeys(["review", "reviews", "reviewed", "reviewing"], REVIEW),
    **dict.fromkeys(["write", "writes", "wrote", "written", "writing"], WRITE),
}
# Multi-word duties, longest first: `looks after`, `is in charge of`, `signs off`.
EN_DUTY_PHRASES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("in", "charge", "of"), OWN),
    (("responsible", "for"), OWN),
    (("accountable", "for"), OWN),
    (("on", "call", "for"), OWN),
    (("looks", "after"), OWN),
    (("look", "after"), OWN),
    (("looked", "after"), OWN),
    (("looking", "after"), OWN),
    (("takes", "care", "of"), OWN),
    (("signs", "off"), APPROVE),
    (("signed", "off"), APPROVE),
    (("sign", "off"), APPROVE),
    (("back", "on"), OWN),  # `Omar is back on the rota`: holding it again (or `the level is back on INFO`)
)
WEAK_HEADS = frozenset(["back on"])  # either side may be the holder: only an unsure second reading
# A place of holding after a name makes it a holder: `X 回到 B 手里` (not `X 回到了 B`, a value coming back).
ZH_HOLDING_PLACES = frozenset(["手里", "手上", "名下"])
ZH_GIVE_TO_PLACE = frozenset(["回到"])
# Base and -ing forms are verbs only after an auxiliary, a negator, `to` or a verb of ceasing; elsewhere they may
# be nouns (`the review`, `code reviews`).
EN_VERB_LEADS = frozenset(["not", "does", "do", "did", "to", "will", "can", "longer", "stopped", "quit"])
EN_AGENT = {
    **dict.fromkeys(["owner", "owners", "maintainer", "maintainers", "manager", "lead", "dri"], OWN),
    **dict.fromkeys(["approver", "approvers", "signer"], APPROVE),
    **dict.fromkeys(["reviewer", "reviewers"], REVIEW),
    **dict.fromkeys(["writer", "author"], WRITE),
}
EN_TASK = frozenset(["job", "responsibility", "task", "call", "baby", "problem"])  # after `'s`
EN_DUTY_NOUNS = frozenset(["ownership"])
EN_DUTY_NOUN_TAILS = frozenset(
    ["review", "reviews", "approval", "approvals", "ownership"]
)  # `security review`
EN_BELONG = frozenset(
    ["belong", "belongs", "belonged"]
)  # `X belongs to P`  # the duty itself: `ownership of X passed to P`
EN_TAKE_PHRASES = (
    ("took", "over"),
    ("takes", "over"),
    ("take", "over"),
    ("taken", "over"),
    ("taking", "over"),
)
EN_GIVE = frozenset(
    ["handed", "hands", "hand", "passed", "passes", "transferred", "reassigned", "assigned", "given", "gave"]
)
EN_WORDS: dict[str, Kind] = {
    "by": "by",
    **dict.fromkeys(["replaced", "succeeded"], "replace"),
    "to": "to",
    "from": "from",
    **dict.fromkeys(["is", "are", "was", "were", "be", "am"], "be"),
    **dict.fromkeys(["of", "'s"], "of"),
    **dict.fromkeys(["not", "never", "no", "stopped", "quit", "ceased"], "neg"),
    **dict.fromkeys(["formerly", "previously", "originally"], "old"),
    **dict.fromkeys(["who", "whoever"], "who"),
    **dict.fromkeys(["does", "do", "did"], "does"),
    **dict.fromkeys(["it", "them", "this", "that"], "it"),
    "and": "and",
    **dict.fromkeys(["has", "have", "had", "been", "being", "will", "now", "got", "gets"], "aux"),
    **dict.fromkeys(
        ["the", "a", "an", "our", "my", "their", "its", "also", "again", "still", "currently", "just", "already",
         "over", "on", "off", "back", "anymore", "any", "more", "longer", "new", "last", "next", "week", "weeks",
         "sprint", "month", "today", "yesterday", "these", "days", "officially", "fully", "going", "forward",
         "actually", "only", "though", "as"],
        "skip",
    ),
}  # fmt: skip
