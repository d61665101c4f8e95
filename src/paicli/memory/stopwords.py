"""Function words: what a query says about its grammar, not about its topic (issue 37).

The lists are the closed word classes of each language, complete by definition rather than grown from queries
that went wrong: English articles and determiners, pronouns, auxiliaries, modals and the copula, prepositions,
conjunctions, wh-words and negation; Chinese 代词 (pronouns, demonstratives, interrogatives), 助词 (particles),
介词 (prepositions), 连词 (conjunctions), 能愿动词 and 系词 (modal verbs, the copula) and the degree, scope and
time adverbs (副词) of one or two characters. Only tokens of two or more characters matter (shorter ones never
count as query tokens), so single-character words appear here only as parts of the interrogative compounds
jieba produces (多少, 是不是).

A query term that is a function word is left out of the keyword score and of the vector and BM25 features:
`What is the capital of France` keeps `capital` and `france`, `Java 版本是多少` keeps `java` and `版本`.
"""

from __future__ import annotations

_ENGLISH = """
a an the this that these those some any each every all both either neither no none other another such
much many more most few several
i me my mine myself you your yours yourself yourselves he him his himself she her hers herself it its itself
we us our ours ourselves they them their theirs themselves one ones oneself
who whom whose which what whatever whichever whoever whomever
someone something somebody anyone anything anybody everyone everything everybody nothing nobody
be am is are was were been being have has had having do does did doing done
will would shall should can could may might must ought
isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't won't wouldn't shan't shouldn't
can't cannot couldn't mustn't mightn't needn't
i'm you're he's she's it's we're they're i've you've we've they've i'd you'd he'd she'd we'd they'd
i'll you'll he'll she'll we'll they'll that's there's here's what's who's where's when's why's how's let's
about above across after against along amid among around as at before behind below beneath beside besides
between beyond by despite down during except for from in inside into near of off on onto out outside
over per since than through throughout till to toward towards under underneath unlike until unto up
upon via with within without
and but or nor so yet because although though while whereas if unless whether once lest
how when where why whence whither whereby wherein
not no nor never there here then also just very too only even else ever
"""

_CHINESE = """
我 你 您 他 她 它 我们 你们 您们 他们 她们 它们 咱 咱们 自己 大家 别人 人家 彼此 各位 本人
这 那 这个 那个 这些 那些 这里 那里 这儿 那儿 这边 那边 这样 那样 这么 那么 这种 那种 这次 那次 此 其 该 某 某个 某些 每 每个 各 各个 一个 一种 一次
谁 什么 什么样 啥 哪 哪个 哪些 哪里 哪儿 哪种 哪样 怎 怎么 怎样 怎么样 怎么办 咋 如何 为什么 为何 何时 何处 多少 几 几个 几次
多久 多大 多长 多高 多远 多少次 是否 是不是 有没有 能不能 会不会 要不要 可不可以 对不对 好不好 行不行
的 地 得 了 着 过 吗 呢 吧 啊 呀 嘛 么 啦 哦 哟 呗 之 所 等 等等 似的 一样 来着 罢了 而已
在 把 被 给 对 从 向 往 跟 和 与 同 按 按照 依照 根据 关于 对于 至于 为 为了 由 由于 于 以 比 除了 通过 经过 随着 沿着 当 自从
及 以及 或 或者 还是 而 而且 并 并且 但 但是 可是 然而 因为 所以 因此 如果 假如 要是 虽然 尽管 然后 于是 即使 不过 只要 只有 否则 不然 既然
是 为 有 没有 能 能够 会 要 想 可以 可能 应该 应当 需要 必须 得以 愿意 肯 敢
很 挺 太 更 最 都 也 还 就 才 又 再 只 仅 仅仅 已 已经 曾 曾经 正 正在 在于 一直 总是 常常 经常 往往 比较 非常 十分 特别 一下 一些 有些 有点 到底 究竟 大概 也许 或许 不 没 别 不要 不用
"""

STOP_WORDS: frozenset[str] = frozenset(_ENGLISH.split()) | frozenset(_CHINESE.split())


def content_terms(tokens: set[str]) -> set[str]:
    """The query tokens that carry its topic."""
    return {token for token in tokens if token not in STOP_WORDS}
