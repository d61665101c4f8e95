"""memdeny4: denials and returns in forms the rules missed, each beside a twin that must retire nothing.

- a habit told in the past and ended by the sentence itself (`used to … but not anymore`, `was A until March`,
  `以前用 A，现在不用了`) denies A, unless the habit's words name another thing than the stored fact's;
- `no longer` / `not … any more` around any verb denies its object;
- a negation of exclusivity (`not only A`, `A is no longer the only …`, `不只 A`) adds, it ends nothing;
- a denial naming only the value retires a component's fact when that fact is the scope's only holder of the
  value and nothing else is on its subject; never another project's fact;
- a bare return (`We're back on A`, `又切回 A 了`) ends at A and retires the middle value.

Subjects and values are my own, not the eval's."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from paicli.memory import evolve
from paicli.memory.claim_verbs import stem
from paicli.memory.denial import denies, ended_habit, widens
from paicli.memory.value_denial import retired

from .helpers import NOW, entry, memory

PROJECT = "/work/denial-forms-demo"


def _truths(tmp_path: Path, chain: list[str]) -> list[str]:
    """Writes the statements in order (one second apart, as /save would) and returns the live truths."""
    store = memory(tmp_path / "memory")
    for step, text in enumerate(chain):
        store.write(entry(text, "project", PROJECT, when=NOW + timedelta(seconds=step)))
    return [e.content for e in store.get_all(PROJECT) if evolve.is_truth(e)]


# --- a habit the sentence ends -----------------------------------------------------------------------------------

ERRORS = "Error pages are served from Fastly."
DOCS = "文档站部署在 Netlify"


@pytest.mark.parametrize(
    ("stored", "ended"),
    [
        (ERRORS, "Error pages used to be served from Fastly, but not anymore."),
        (ERRORS, "Error pages used to be served from Fastly but not anymore."),
        (ERRORS, "Error pages were served from Fastly until June."),
        (ERRORS, "Until June we served error pages from Fastly."),
        (ERRORS, "We used to serve error pages from Fastly, not anymore."),
        (DOCS, "文档站以前部署在 Netlify，现在不是了"),
        (DOCS, "以前用 Netlify 部署文档站，后来不用了"),
    ],
)
def test_a_past_habit_the_sentence_ends_retires_the_truth(tmp_path: Path, stored: str, ended: str) -> None:
    assert _truths(tmp_path, [stored, ended]) == [ended]


@pytest.mark.parametrize(
    ("stored", "aside"),
    [
        (ERRORS, "We used to have timeouts with Fastly, but not anymore."),  # the timeouts ended, not Fastly
        (ERRORS, "We used to have timeouts with Fastly but not anymore."),
        (ERRORS, "Error pages are served from Fastly until the migration."),  # present: it still holds
        (ERRORS, "Until the migration we serve error pages from Fastly."),
        (DOCS, "以前用 Netlify 部署文档站，现在也用"),
        (ERRORS, "Did we use to serve error pages from Fastly?"),
    ],
)
def test_a_past_habit_that_is_not_ended_or_ends_another_thing_retires_nothing(
    tmp_path: Path, stored: str, aside: str
) -> None:
    assert stored in _truths(tmp_path, [stored, aside])


def test_an_ended_habit_of_another_value_is_no_new_value(tmp_path: Path) -> None:
    """`used to run on B, not anymore` says nothing of the current A: neither a change to B nor A's end."""
    current = "Error pages are served from Akamai."
    ended = "Error pages used to be served from Fastly, not anymore."
    assert _truths(tmp_path, [current, ended]) == [current, ended]
    assert _truths(tmp_path / "zh", ["文档站部署在 Vercel", "文档站之前部署在 Netlify，后来不用了"]) == [
        "文档站部署在 Vercel",
        "文档站之前部署在 Netlify，后来不用了",
    ]


def test_the_ended_habit_with_its_replacement_leaves_the_replacement() -> None:
    text = "Error pages used to be served from Fastly; now they come from Cloudflare."
    assert denies(text, "fastly") and not denies(text, "cloudflare")


def test_an_ended_habit_is_no_current_truth_of_its_value(tmp_path: Path) -> None:
    """Stated again after it ended, the value is a return, not a duplicate of the ended habit."""
    ended = "文档站以前部署在 Netlify，现在不是了"
    again = "文档站又部署在 Netlify 了"
    assert _truths(tmp_path, [DOCS, ended, again]) == [again]


def test_the_habit_words_say_which_thing_ended() -> None:
    assert ended_habit("We used to have timeouts with Fastly, but not anymore.", "fastly")
    assert ended_habit("Error pages were served from Fastly until June.", "fastly")
    assert not ended_habit("Error pages are served from Fastly until June.", "fastly")
    assert not ended_habit("We used to serve error pages from Fastly.", "fastly")  # nothing ends it
    # its own word of denial denies the value whatever follows: no habit to weigh
    assert not ended_habit("Moved off Fastly, back to Akamai.", "fastly")
    assert denies("Moved off Fastly, back to Akamai.", "fastly")


# --- no longer around any verb -----------------------------------------------------------------------------------

COVERAGE = "Coverage reports are uploaded to Coveralls."
DUMPS = "Database dumps are copied to Wasabi."


@pytest.mark.parametrize(
    ("stored", "denial"),
    [
        (COVERAGE, "We no longer upload coverage reports to Coveralls."),
        (COVERAGE, "Coverage reports aren't uploaded to Coveralls any more."),
        (DUMPS, "We don't copy database dumps to Wasabi anymore."),
        ("安装包推送到 Nexus", "我们不再往 Nexus 推安装包了"),
    ],
)
def test_no_longer_around_any_verb_retires_its_object(tmp_path: Path, stored: str, denial: str) -> None:
    assert _truths(tmp_path, [stored, denial]) == [denial]


@pytest.mark.parametrize(
    ("stored", "denial"),
    [
        (DUMPS, "We don't copy build caches to Wasabi anymore."),
        # the verb's own object names the thing (`document the CLI` beside `the API is documented`)
        ("The API is documented in Swagger.", "We no longer document the CLI in Swagger."),
    ],
)
def test_no_longer_about_another_thing_with_that_value_retires_nothing(
    tmp_path: Path, stored: str, denial: str
) -> None:
    assert _truths(tmp_path, [stored, denial]) == [stored, denial]


def test_no_longer_with_the_stored_things_object_retires_it(tmp_path: Path) -> None:
    denial = "We no longer document the API in Swagger."
    assert _truths(tmp_path, ["The API is documented in Swagger.", denial]) == [denial]


def test_a_verb_in_ied_has_the_stem_of_its_base() -> None:
    assert stem("copied") == stem("copy") == stem("copies")
    assert stem("applied") == stem("apply")


# --- a negation of exclusivity -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stored", "widening"),
    [
        (COVERAGE, "Not only Coveralls but also Codecov gets the coverage reports."),
        (COVERAGE, "Coveralls is no longer the only place coverage reports go."),
        ("告警发到飞书", "告警不只发到飞书，也发到短信"),
    ],
)
def test_a_negation_of_only_adds_a_value_and_retires_nothing(
    tmp_path: Path, stored: str, widening: str
) -> None:
    assert widens(widening)
    assert _truths(tmp_path, [stored, widening]) == [stored, widening]


def test_a_plain_negation_beside_it_still_retires(tmp_path: Path) -> None:
    denial = "Coveralls is no longer where coverage reports go."
    assert not widens(denial)
    assert _truths(tmp_path, [COVERAGE, denial]) == [denial]


# --- only the value of a component's fact --------------------------------------------------------------------------

PACKAGES = "前端的包管理器是 Yarn"
CRASHES = "For the mobile app, the crash reporter is Instabug."


@pytest.mark.parametrize(
    ("stored", "denial"),
    [
        (PACKAGES, "包管理器不用 Yarn 了"),
        (PACKAGES, "Yarn 已经停用了"),
        (CRASHES, "We don't use Instabug anymore."),
    ],
)
def test_a_value_only_denial_retires_a_components_one_fact(tmp_path: Path, stored: str, denial: str) -> None:
    assert _truths(tmp_path, [stored, denial]) == [denial]


@pytest.mark.parametrize(
    "beside",
    [
        "后端的包管理器是 Yarn",  # two components hold it: nothing picks one
        "包管理器是 pnpm",  # our own subject beside it: the denial may be about ours
    ],
)
def test_a_value_only_denial_beside_another_fact_on_the_subject_retires_nothing(
    tmp_path: Path, beside: str
) -> None:
    denial = "包管理器不用 Yarn 了"
    assert _truths(tmp_path, [PACKAGES, beside, denial]) == [PACKAGES, beside, denial]


def test_a_value_only_denial_leaves_another_projects_fact() -> None:
    assert (
        retired([("a", "For the Orion project, the crash reporter is Instabug.")], "Instabug is gone.") == []
    )
    assert retired([("a", "Orion 项目的包管理器是 Yarn")], "Yarn 已经停用了") == []
    assert retired([("a", "Orion 项目的包管理器是 Yarn")], "Orion 项目不用 Yarn 了") == ["a"]


# --- a bare return -------------------------------------------------------------------------------------------------

RELEASE = ["The release channel is stable.", "The release channel is now edge."]
LOGGING = ["日志库是 Loguru", "日志库换成 structlog 了"]


@pytest.mark.parametrize(
    ("chain", "back"),
    [
        (RELEASE, "We're back on stable."),
        (LOGGING, "又切回 Loguru 了"),
        (LOGGING, "不用 structlog 了，回到 Loguru"),
    ],
)
def test_a_bare_return_ends_the_chain_at_the_earlier_value(
    tmp_path: Path, chain: list[str], back: str
) -> None:
    assert _truths(tmp_path, [*chain, back]) == [back]


@pytest.mark.parametrize("aside", ["Loguru 又报错了", "要不要切回 Loguru？"])
def test_again_about_another_thing_or_asked_leaves_the_middle(tmp_path: Path, aside: str) -> None:
    assert _truths(tmp_path, [*LOGGING, aside]) == [LOGGING[1], aside]


def test_a_bare_return_two_chains_left_is_ambiguous(tmp_path: Path) -> None:
    errors = ["错误监控是 Sentry", "错误监控换成 Bugsnag 了"]
    traces = ["性能追踪用 Sentry", "性能追踪改用 Datadog 了"]
    back = "又切回 Sentry 了"
    assert _truths(tmp_path, [*errors, *traces, back]) == [errors[1], traces[1], back]
    assert _truths(tmp_path / "one", [*errors, back]) == [back]
