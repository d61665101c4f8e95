"""Round 11 of the dev half (memrole, issue 37): who does what. A person or team responsible for a thing, said in
every frame people use for it — cleft (`负责 S 的是 V`, `the one who looks after the S is V`), passive (`S 由 V
维护`, `the S is maintained by V`), active (`V 管 S`, `V owns the S`), possessive (`S 的负责人是 V`, `V's`),
belonging (`S 归 V 管`) — and handed over in frames that name both people or only the new one, chains of two or
three handovers with a return to the first person, denials alone (`V 不再负责 S`) and a denial with the new
person. The subjects are things, their values people; the people are shared between the things, so a bystander
often has the same person on another thing. Look-alikes that must stay true: the first person on another thing,
the same thing with two duties contrasted in one sentence, and the other side (frontend/backend) of the thing.
Written in my own words before any product change; no test case seen. `HALF` is round 10's with these added.
"""

from __future__ import annotations

from dataclasses import replace

from evals.memory_evolution.half_dev_round10 import HALF as BASE
from evals.memory_evolution.spec import Family, Kind, Lang, Subject

_ZH = ("李娜", "高远", "孙丽", "王芳", "陈晨")
_EN = ("Lena", "Omar", "Priya", "Tomas", "Ines")


def _people(start: int) -> tuple[tuple[str, str], ...]:
    return tuple((_ZH[(start + k) % 5], _EN[(start + k) % 5]) for k in range(3))


def _role(
    key: str,
    zh: str,
    en: str,
    values: int,
    others: tuple[tuple[str, str], ...],
    questions: tuple[str, str, str],
    lookalikes: tuple[tuple[str, str, str], ...],
    zh_alt: str = "",
    en_alt: str = "",
) -> Subject:
    return Subject(
        key,
        zh,
        zh_alt or zh,
        en,
        en_alt or en,
        "由",
        "不由",
        "is owned by",
        "is not owned by",
        "it's owned by",
        _people(values),
        others,
        *questions,
        frame="role",
        lookalikes=lookalikes,
    )


SUBJECTS = (
    _role(
        "rota",
        "值班表",
        "on-call rota",
        0,
        (("告警规则", "alerting config"), ("Orion 项目的值班表", "Orion project's on-call rota")),
        ("值班表谁在管？", "Who looks after the on-call rota?", "on-call rota 谁负责？"),
        (("{A}也负责周会纪要", "{A} also takes the weekly meeting notes.", "{A} 也负责 weekly notes"),),
    ),
    _role(
        "secreview",
        "安全评审",
        "security review",
        1,
        (("性能评审", "performance review"), ("Lyra 项目的安全评审", "Lyra project's security review")),
        ("安全评审由谁负责？", "Who is responsible for the security review?", "security review 由谁负责？"),
        (("{A}还管着测试环境", "{A} also runs the test environment.", "{A} 还管着 test environment"),),
    ),
    _role(
        "apidocs",
        "接口文档",
        "API docs",
        2,
        (("用户手册", "user manual"), ("Vega 项目的接口文档", "Vega project's API docs")),
        ("接口文档归谁管？", "Who owns the API docs?", "API docs 归谁管？"),
        (
            (
                "接口文档的编写是赵磊，审核是周敏",
                "Zhao Lei writes the API docs and Zhou Min reviews them.",
                "API docs 由 Zhao Lei 编写，由 Zhou Min 审核",
            ),
        ),
        en_alt="docs",
        zh_alt="文档",
    ),
    _role(
        "backendrelease",
        "后端发布",
        "backend release",
        3,
        (("前端发布", "frontend release"), ("Draco 项目的后端发布", "Draco project's backend release")),
        ("后端发布谁来审批？", "Who signs off the backend release?", "backend release 谁审批？"),
        (("{A}也审批数据库变更", "{A} also approves database changes.", "{A} 也 approve 数据库变更"),),
    ),
    _role(
        "payments",
        "支付服务",
        "payment service",
        4,
        (("订单服务", "order service"), ("Cetus 项目的支付服务", "Cetus project's payment service")),
        ("支付服务的负责人是谁？", "Who owns the payment service?", "payment service 的 owner 是谁？"),
        (("{A}负责风控模型", "{A} owns the risk model.", "{A} owns 风控模型"),),
    ),
)

_ZH_FAMILIES: tuple[tuple[Kind, str], ...] = (
    ("state", "负责{S}的是{V}"),
    ("state", "{S}由{V}维护"),
    ("state", "{V}负责{S}"),
    ("state", "{S}的负责人是{V}"),
    ("state", "{S}归{V}管"),
    ("state", "{S}这块是{V}在管"),
    ("update", "{S}改由{V}负责"),
    ("update", "{S}现在归{V}管"),
    ("update", "{S}交接给{V}了"),
    ("update", "{S}换人了，现在是{V}"),
    ("update", "{V}接手了{S}"),
    ("update", "{S}以后由{V}来审批"),
    ("update_old", "{O}把{S}交给了{V}"),
    ("update_old", "{S}从{O}手里转给了{V}"),
    ("update_old", "{S}原来是{O}负责，现在换成{V}了"),
    ("update_old", "{V}从{O}那里接过了{S}"),
    ("return", "{S}又回到{V}手里了"),
    ("return", "{S}还是交回给{V}负责"),
    ("return", "{V}重新接手了{S}"),
    ("negate", "{O}不再负责{S}"),
    ("negate", "{S}已经不归{O}管了"),
    ("negate", "{O}不管{S}了"),
    ("negate_replace", "{S}不是{O}负责了，是{V}"),
    ("negate_replace", "{O}不再管{S}了，{V}接手"),
)

_EN_FAMILIES: tuple[tuple[Kind, str], ...] = (
    ("state", "The one who looks after the {S} is {V}."),
    ("state", "The {S} is maintained by {V}."),
    ("state", "{V} owns the {S}."),
    ("state", "The {S} owner is {V}."),
    ("state", "{V} is in charge of the {S}."),
    ("state", "The {S} is signed off by {V}."),
    ("update", "{V} took over the {S}."),
    ("update", "The {S} is now handled by {V}."),
    ("update", "The {S} has been handed over to {V}."),
    ("update", "{V} is the new owner of the {S}."),
    ("update", "{V} maintains the {S} now."),
    ("update_old", "{O} handed the {S} over to {V}."),
    ("update_old", "{V} took over the {S} from {O}."),
    ("update_old", "The {S} moved from {O} to {V}."),
    ("update_old", "{O} passed the {S} on to {V} last week."),
    ("return", "{V} is back on the {S}."),
    ("return", "The {S} went back to {V}."),
    ("return", "{V} owns the {S} again."),
    ("negate", "{O} no longer owns the {S}."),
    ("negate", "{O} stopped maintaining the {S}."),
    ("negate", "{O} is not responsible for the {S} anymore."),
    ("negate_replace", "{O} no longer owns the {S}; {V} does."),
    ("negate_replace", "The {S} isn't {O}'s job anymore, {V} has it now."),
)

_MIX_FAMILIES: tuple[tuple[Kind, str], ...] = (
    ("state", "{S} 由 {V} 负责"),
    ("state", "{V} owns {S}"),
    ("state", "{S} 的 owner 是 {V}"),
    ("state", "负责 {S} 的是 {V}"),
    ("update", "{S} 交给 {V} 了"),
    ("update", "{V} took over {S}"),
    ("update", "{S} 现在归 {V} 管"),
    ("update_old", "{O} 把 {S} 交给了 {V}"),
    ("update_old", "{V} took over {S} from {O}"),
    ("update_old", "{S} 从 {O} 转给 {V} 了"),
    ("return", "{S} 又交回给 {V} 了"),
    ("return", "{V} is back on {S}"),
    ("negate", "{O} 不再负责 {S} 了"),
    ("negate", "{O} no longer owns {S}"),
    ("negate_replace", "{S} 不归 {O} 管了，{V} 负责"),
    ("negate_replace", "{O} 不管 {S} 了，现在是 {V}"),
)


def _families() -> tuple[Family, ...]:
    found: list[Family] = []
    languages: tuple[tuple[Lang, tuple[tuple[Kind, str], ...]], ...] = (
        ("zh", _ZH_FAMILIES),
        ("en", _EN_FAMILIES),
        ("mix", _MIX_FAMILIES),
    )
    for lang, rows in languages:
        for n, (kind, text) in enumerate(rows, 1):
            found.append(Family(f"d11-{lang}-{kind[:1]}{n}", kind, lang, text, frame="role"))
    return tuple(found)


FAMILIES = _families()

HALF = replace(
    BASE,
    subjects=BASE.subjects + SUBJECTS,
    families=BASE.families + FAMILIES,
    frame_neighbour={
        "role": {
            "zh": "{Q}由{V}负责",
            "en": "The {Q} is owned by {V}.",
            "mix": "{Q} 由 {V} 负责",
        }
    },
)
