"""Word lists of automatic fact extraction: the reference's (spec 5.2 / 5.4 / 13.1) and paicli's hardening.

Data only; the rules that use them live in `extract_rules`.
"""

from __future__ import annotations

import re

# Word lists of the reference code (spec 5.2 / 5.4 / 13.1).
SENSITIVE = re.compile(
    r"(?i)api[_ -]?key|access[_ -]?key|secret|password|passwd|bearer|token|sk-[a-z0-9]|密码|密钥|身份证|手机号|电话号码|邮箱|验证码"
)
POSSIBLE_FACT = re.compile(
    "我|我们|本项目|项目|仓库|团队|公司|偏好|习惯|默认|技术栈|长期|以后|后续|接下来|始终|每次"
)
TEMPORARY = re.compile("现在|这次|今天|明天|刚才|临时|马上|立刻")
REFERENCE_SPLIT = re.compile(r"(?<=[。；;\n])")

# Hardening: secrets by shape, not only by name. `_SECRET_VALUE_SOURCE` is the value itself (key prefixes,
# JWTs, key blocks, credentials in a URL, e-mail addresses, phone, ID and card numbers, long random tokens).
_SECRET_VALUE_SOURCE = (
    r"ssh-(?:rsa|ed25519)|-----BEGIN|\bAKIA[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{16,}|\bxox[abprs]-|"
    r"\beyJ[A-Za-z0-9_-]{8,}\.|[a-z][a-z0-9+.-]*://[^\s/:@]+:[^\s/@]+@|[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+|"
    r"(?<!\d)1[3-9]\d{9}(?!\d)|(?<!\d)\d{17}[\dXx](?!\d)|(?<!\d)\d{16,19}(?!\d)|"
    r"(?<![A-Za-z0-9+/_-])(?=[A-Za-z0-9+/_-]*[0-9])(?=[A-Za-z0-9+/_-]*[A-Za-z])[A-Za-z0-9+/_-]{32,}"
)
# The save_memory tool's check: the value shapes and the names of the rarer kinds of secret.
SECRET_SHAPES = re.compile(
    r"(?i)口令|私钥|凭证|凭据|令牌|cookie|credential|private[_ -]?key|passphrase|session[_ -]?id|银行卡|信用卡|卡号|"
    r"\bpwd\b|" + _SECRET_VALUE_SOURCE
)
# Automatic extraction's check (`extract_secrets`): a value shape anywhere ...
SECRET_VALUE = re.compile(r"(?i)\bsk-[a-z0-9]|" + _SECRET_VALUE_SOURCE)
# ... and the names of kinds of secret, whose sentences are read for a value given to the name.
SECRET_NAME = re.compile(
    r"(?i)api[_ -]?key|access[_ -]?key|secret|password|passwd|\bpwd\b|bearer|token|credential|\bcreds\b|"
    r"private[_ -]?key|passphrase|passcode|\bpin\b|\botp\b|session[_ -]?id|cookie|密码|密钥|秘钥|口令|私钥|凭证|凭据|令牌|身份证|手机号|"
    r"电话号码|邮箱|验证码|银行卡|信用卡|卡号"
)
# The code's trigger list, the article's and an English set: a fact must name who or what it is about.
FACT_WORDS = re.compile(
    r"(?i)我|咱|本项目|项目|仓库|代码库|团队|公司|偏好|习惯|默认|技术栈|长期|以后|后续|接下来|始终|每次|统一|使用|采用|"
    r"基于|构建|语言|框架|版本|编码|规范|禁止|不要|一律|总是|一直|所有|部署|生产环境|测试环境|预发环境|端口|数据库|"
    r"\b(?:i|i'm|i've|my|we|we're|we've|our|us|project|repo|repository|team|company|codebase|prefer|always|never|"
    r"from now on|going forward|by default)\b"
)
# A preference verb makes the clauses after it its content (`我偏好先给出命令，再解释原因`), not commands.
PREFERENCE = re.compile(r"(?i)偏好|喜欢|习惯|希望|倾向|\b(?:prefer|like|want)\b")
# An end point bounds a value in time (`until Friday`, `到周五为止`): it holds only up to then.
END_POINT = (
    r"\b(?:until|till)\s+(?:the\s+)?(?:end\s+of\s+)?(?:(?:this|next|the)\s+)?(?:monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday|week|month|quarter|year|sprint|release|tomorrow|tonight|today|further notice|\d)|"
    r"到[^，,。；;]{1,10}为止|截至|截止到"
)
TEMPORARY_WIDE = re.compile(
    r"(?i)现在|这次|今天|明天|刚才|临时|马上|立刻|刚刚|本轮|暂时|昨天|今晚|今早|这周|本周|这会儿|此刻|眼下|这一次|这回|"
    r"以前|曾经|过去|用过|下周|下个月|下季度|明年|今年|本月|这个月|上周|上个月|去年|"
    r"报错|挂了|失败了|出错|崩了|崩溃|坏了|卡住|上次|那次|当时|报警|告警|第[一二三四五六七八九十\d]+步|首先|原来|以往|"
    r"\b(?:failing|failed|broken|crashed|this week|this month|this sprint|migrating|in progress|alert|alarm|"
    r"step \d+|first step|last (?:night|week|month|year|time)|on vacation|passed|passing|previous)\b|通过了|都过了|"
    r"\b(?:right now|today|tomorrow|yesterday|temporar(?:y|ily)|for now|this time|currently)\b|"
    r"\bnext (?:week|month|quarter|year|sprint)\b|(?:这个|本|这)\s*(?:迭代|冲刺|sprint)|" + END_POINT
)
REQUEST = re.compile(
    r"(?i)(?<![申邀])请(?![求假教])|帮我|帮忙|帮(?:他|她|它|他们|她们|大家|咱们|我们)|麻烦|给我(?!们)|能不能|能否|可不可以|可以帮|你来|你去|你先|你帮|"
    r"赶紧|赶快|快点|快去|"
    r"\b(?:please|can you|could you|would you|help me|let's|i want you|i need you)\b"
)
IMPERATIVE = re.compile(
    r"(?i)^(?:(?:请|你|先|再|然后|并且|帮我|麻烦|and|then|please)\s*)*(?:修复|修改|修一下|检查|看看|看一下|查看|分析|解释|"
    r"生成|写一个|写个|实现|添加|加上|删除|删掉|重构|优化|运行|执行|创建|新建|部署|翻译|总结|查找|搜索|列出|打开|改成|"
    r"改为|改一下|升级|告诉我|给(?:我|咱)|改写|润色|把|"
    r"(?:fix|add|remove|delete|write|run|check|explain|create|implement|refactor|update|show|list|find|tell me|make|"
    r"translate|summari[sz]e|rewrite|rephrase|review|confirm|verify|ensure|make sure)\b)"
)
# Durable enough to turn a request into a standing preference (`以后…请…`); `默认`/`所有` alone are not.
REQUEST_DURABLE = re.compile(
    r"(?i)以后|今后|往后|始终|总是|一直|每次|每当|一律|任何时候|"
    r"\b(?:always|from now on|going forward|every time|in (?:the )?future)\b"
)
DURABLE = re.compile(
    r"(?i)以后|今后|往后|始终|总是|一直|每次|每当|一律|所有|任何时候|默认|长期|"
    r"\b(?:always|from now on|going forward|every time|by default|in (?:the )?future)\b"
)
SPECULATION = re.compile(
    r"(?i)可能|也许|大概|好像|似乎|估计|或许|不确定|猜|假如|假设|假定|万一|打算|准备|考虑(?!到)|将要|即将|就好了|但愿|"
    r"\b[A-D]\s*方案|方案\s*[A-D一二三]\b|选项|\boption [A-D1-9]\b|觉得|认为|(?<!部署)(?<!发布)(?<!构建)(?<!编译)目标是|计划|旨在|希望能|争取|怀疑|猜测|疑似|要不是|早就(?:该|应该|可以|想)|本该|本来应该|"
    r"\b(?:not sure|whether|wonder|suspect|(?<!of )doubt)\b|"
    r"\b(?:maybe|probably|perhaps|i think|i guess|might|suppose|imagine|hypothetically)\b|"
    r"\b(?:possibly|presumably|apparently|supposedly|allegedly|reportedly|likely|hopefully|ideally|theoretically)\b|"
    r"\b(?:plan(?:s|ned|ning)?|intend(?:s|ed|ing)?|aim(?:s|ing)?|about|going|hop(?:e|es|ing)) to\b"
)
INTERROGATIVE = re.compile(
    r"(?i)[?？]|是否|要不要|有没有|是不是|对不对|能否|能不能|可不可以|会不会|为啥|为什么|为何|咋|干嘛|你觉得|你认为|您觉得|"
    r"(?:[吗呢么]|来着)[\s。.！!…)）]*$|"
    r"^\s*(?:do|does|did|is|are|can|could|should|would|will|what|how|why|which|where|who)\b|what do you think"
)
# Question words also appear inside statements (`说明要改哪些文件。`): they count only in an unterminated sentence.
WH_WORDS = re.compile(r"怎么|怎样|如何|什么|哪个|哪些|哪里|多少")
AUXILIARY_START = re.compile(
    r"(?i)(?:do|does|did|is|are|can|could|should|would|will|what|how|why|which|where|who)\b"
)
TERMINATED = re.compile(r"[。.！!；;][\s)）]*$")
REPORTED = re.compile(
    r"(?i)(?<![解小])说(?![明法服])|讲(?=[：:，,])|显示(?![器屏])|听.{0,8}[讲说]|据.{0,6}(?:称|说|讲|报道)|宣布|转告|传达|写道|写着|声称|提到|指出|认为|据说|听说|据称|传言|转述|原话|留言|评论说|评论区|"
    r"例如|比如|譬如|举例|举个例子|摘自|转自|大意|意思是|内容是|内容为|报道|新闻|消息称|"
    r"\b(?:according to|says|said|wrote|claims?|for example|for instance|e\.g\.|told|tells|heard|mentioned|"
    r"reportedly|apparently)\b"
)
INJECTION = re.compile(
    r"(?i)ignore\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier)|disregard\s+(?:all\s+|the\s+)?"
    r"(?:previous|prior|above)|system\s*prompt|developer\s+(?:message|mode)|you\s+are\s+now|jailbreak|"
    r"忽略(?:之前|以上|上面|前面|先前|此前|所有)|无视(?:之前|以上|上面|前面|所有)|系统提示|系统指令|开发者模式|越狱|"
    r"从现在(?:起|开始)[，,]?\s*你|你现在是|你的新(?:任务|指令|身份)|新的指令|<\|im_start\|>|\[system\]|</?system>|"
    r"(?:^|[\s>])(?:系统|system|assistant|助手|ai)\s*[：:]|previous assistant|<<<|>>>|用户(?:已)?授权|授权保存|"
    r"系统消息|system message|[【\[]\s*系统"
)
MEMORY_DIRECTIVE = re.compile(
    r"(?i)记住|记下|记到|写入(?:长期)?记忆|保存到(?:长期)?记忆|存入记忆|加到记忆|"
    r"\b(?:remember (?:that|this|the following)|(?:save|add|write) (?:this |that |it )?(?:to|in|into) (?:your )?memory|memorize)\b"
)
# Words that make the sentence material to work on rather than a statement: roles, variables, templates, forwards.
MATERIAL = re.compile(
    r"(?i)扮演|假装|充当|角色|的值是|值为|字符串是|字符串为|模板|草稿|文案|题目|作业|判断对错|选择题|填空|转发|"
    r"主题是|写一首|写一篇|写一段|写个故事|写诗|一首诗|"
    r"\b(?:act as|pretend|role-?play|fwd|forwarded|template|draft)\b"
)
LIST_MARKER = re.compile(r"(?:[-•]|\*(?!\*)|\d{1,2}[.)、]|[（(]\d{1,2}[)）])")
# `的话` is conditional when a consequence follows (`被占用的话，就换 8081`); `连接池大小的话，是 40` is a topic
CONDITIONAL = re.compile(r"(?i)如果|要是|倘若|若是|的话[^。！？!?]*?(?:就|则|那么|那就|便)|\bif\b|\bwish\b")
THIRD_PARTY = re.compile(
    r"(?:朋友|同事|同学|客户|别人|别家|其他人|他|她|他们|她们|对方|老板|领导|竞品|隔壁|上家|前东家|别的|其他)"
    r"[^，,。；;\n]{0,4}?(?:的|家|那边)?(?:项目|仓库|团队|公司|代码|组)|"
    r"(?:这个|该|那个|某个|有个|有位|这位|那位)(?:用户|客户|人|同学|同事|开发者|朋友)|(?i:\b(?:their|his|her|someone else's)\s+(?:project|repo|team|company|code)\b)|"
    r"(?i:\b(?:competitor|customer|client|friend|colleague|vendor|partner)s?['’]s?(?=\s))"
)
FICTION = re.compile(
    r"(?i)不是真的|不是真实|并非真实|不是我们的真实|测试数据|假数据|虚构|编的|瞎编|呵呵|哈哈|笑死|开玩笑|"
    r"从前|很久以前|小说|剧本|故事里|玩笑|once upon|kidding|\bjoke\b|\b(?:in|from) (?:the|a|my) (?:story|novel|game)\b|"
    r"\blol\b|(?:^|\s)/s\b|🙄|😅|😂|🤣|😏|\[狗头\]|"
    r"\b(?:not true|not real|fictional|made[- ]up|hypothetical|dummy data|fake data)\b"
)
# A colon label that hands what follows to someone else: demonstratives, role names, or a source noun.
FOREIGN_LABEL = re.compile(
    r"(?i)下面|以下|如下|上面|这里|这段|这句|这些|这个|那段|note|below|following|above"
)
TRAILING_END = re.compile(r"[。；;！!.…]+$")
# A clause that looks back at a value no longer true (`之前说的 8080 是旧环境的`): a correction's frame.
OLD_VALUE_CLAUSE = re.compile(
    r"之前|以前|原来|原先|旧的|旧环境|旧版|老的|已经不用|不用了|不再|废弃|弃用|停用"
    r"|\bno longer\b|\bpreviously\b|\bused to\b|\bdeprecated\b|\bold\b|\bformerly\b"
)
# A starting point anchors a change (`从今天起`, `as of today`, `starting next week`): the new value holds on.
STARTING_POINT = re.compile(
    r"(?i)从[^，,。；;]{0,8}?(?:开始|起)|[\u4e00-\u9fff]{1,4}起(?=[，,\s]|$)|"
    r"(?:[上下这本今明去]\s*(?:个\s*)?(?:周|月|季度|年|天|迭代|版本|冲刺|sprint)|即日|今日|今天|明天)\s*起|"
    r"\bas of [^,.;，。；]{1,24}|\bstarting (?:from )?[^,.;，。；]{1,24}|\bfrom [^,.;，。；]{1,24}? on\b|"
    r"\bgoing forward\b|\bfrom now on\b|"
    r"\bfrom (?:this|next|the next|the coming) [a-z0-9.-]+\b|\bfrom (?:today|tomorrow|now)\b(?!['’])"
)
# Labels in the user's own voice before a statement (`提醒一下：`, `Heads-up:`): metatext markers of informing,
# an English metatext noun with up to two modifiers (`Quick update:`, `Small change —`), or one English gerund
# narrating what the user did (`Reverting:`).
OWN_VOICE_LABEL = re.compile(
    r"(?i)^\s*(?:(?:小|有个|一个|再|最后|简单|重要)?(?:提醒|补充|更新|提示|变化|变更|变动|背景|备注|通知|同步|注意)"
    r"(?:一下|下|一点|一句|信息)?|顺便|另外|附注|划重点|友情提示|重要|ps|p\.s\.|nb|fyi|fwiw|btw|"
    r"(?:just )?(?:[a-z]+ ){0,2}(?:notes?|updates?|reminders?|changes?|decisions?|announcements?|corrections?|edits?|"
    r"psa|things?|points?|one|news|context)(?: (?:for|to|after|about|on) (?:the )?[a-z]+)?|"
    r"(?:just )?(?:a )?heads[- ]?up|important|[a-z]+ing|(?:also )?worth [a-z]+ing|good to know)(?:一下|下|说明)?\s*$"
)
# The user's own speech act before a statement (`顺便说下，`, `说一声：`, `另外说一句，`, `For the record,`): the
# speaker is the user, so its 说 reports nobody else's words. Matched against the whole lead-in.
OWN_LEAD_IN = re.compile(
    r"(?i)^\s*(?:(?:我|再|先|就|顺便|另外|还有|对了|跟你|和你|给你|同你|跟大家|和大家)[\s，,]*)*(?:说|讲|提|记(?![住下到]))"
    r"(?:一下|下|一声|一句|个事|件事|一笔)?[\s，,：:—–-]*$|"
    r"^\s*(?:for the record|(?:just )?so (?:you|everyone) knows?|just so you know|as a reminder)[\s,:—–-]*$"
)
# A label that only counts a place in a sequence (`第 3 轮：`, `Round 2:`, `step 4:`) names no thing: what follows
# it is that turn's chatter or task, never a note about a subject.
ORDINAL_LABEL = re.compile(
    r"(?i)^\s*(?:第\s*[\d一二三四五六七八九十百]+\s*[轮步次天周章节条项回期批个部]|"
    r"(?:round|step|turn|day|part|phase|iteration|pass)\s*#?\d+)\s*$"
)
# What still makes a new value for a stored subject temporary: a bounded time (today, for now, this time) or a
# broken state. Time words that anchor a change (现在, 从这周开始, last sprint) do not: the new value holds on.
BOUNDED_TIME = re.compile(
    r"(?i)临时|暂时|这次|这一次|这回|今天|今晚|今早|明天|马上|立刻|刚才|刚刚|此刻|这会儿|眼下|本轮|"
    r"报错|挂了|失败了|出错|崩了|崩溃|坏了|卡住|迁移中|进行中|"
    r"\b(?:for now|this time|today|tonight|tomorrow|temporar(?:y|ily)|right now|for the moment|"
    r"failing|failed|broken|crashed|in progress|migrating)\b|" + END_POINT
)
# `；` joins two clauses of one statement (`Gradle was retired; the build tool is Bazel`), so a quote may hold it
INNER_END = re.compile(r"[。！!？?\n]|\.(?=\s)")
# Fillers and connectives that open a spoken sentence without framing it (a closed class of discourse markers).
DISCOURSE_MARKERS = re.compile(
    r"(?i)(?:(?:ok(?:ay)?|so|and|also|well|anyway|alright|right|oh|btw|嗯|哦|噢|好|好的|那|那么|所以|然后|还有)"
    r"[\s,，]*)+"
)
# A line that opens with a short label and a colon (`张三：…`, `name: …`): two of them make a transcript or a table.
LABELLED_LINE = re.compile(r"(?m)^[^\n：:。.!?？！]{1,16}[：:]")
# A request for the listener's attention (`Please note …`, `请注意…`) hands over the statement after it; it asks
# for no task, so the request rules read what follows it.
ATTENTION = re.compile(
    r"(?i)^\s*(?:please\s+)?(?:do\s+)?(?:note|notice|be aware|keep in mind|bear in mind)(?:\s+that)?\b"
    r"(?!\s+(?:down|it|this|these|them)\b)[\s,:]*|"
    r"^\s*请?(?:注意|留意|知悉)[\s，,：:]*"
)
# A coordinator after a clause boundary (`…, and the S is B`, `…，另外 S 用 B`) opens a clause of its own.
COORDINATED = re.compile(
    r"(?i)(?<=[，,；;])\s*(?:and(?: also)?|but|also|plus|while|whereas|另外|而且|并且|同时|还有|但是|但|不过|以及)$"
)
# A coordinator that closes the words before a quote (`Logs are in Loki and …`): when those words are a whole
# clause, the quote after it opens a clause of its own.
CLAUSE_JOIN = re.compile(
    r"(?i)(?:^|\s)(?:and(?: also)?|plus|while|whereas|but)$|(?:以及|而且|并且|同时|另外)$"
)
