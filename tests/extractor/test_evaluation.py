"""Port of AutoFactExtractionEvaluationTest, plus the adversarial gates on both golden sets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from evals.autofact.__main__ import main
from evals.autofact.clients import AdversarialLLM, OracleLLM, adversarial_quotes
from evals.autofact.exhaustive import accepted_spans, attack
from evals.autofact.scoring import Case, load_cases, match_counts, run_case, summarize

from paicli.memory.extract_rules import input_in_range, safe_input, worth_asking

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "evals" / "autofact" / "golden-v2.json"
EXTENDED = ROOT / "evals" / "autofact" / "extended-v1.json"


def run_oracle(cases: list[Case]):  # type: ignore[no-untyped-def]
    oracle = OracleLLM()
    results = []
    for case in cases:
        oracle.expected = list(case.expected_quotes)
        results.append(run_case(case, oracle, lambda: oracle.calls))
    return summarize(results)


def run_adversary(cases: list[Case], hardened: bool = True):  # type: ignore[no-untyped-def]
    adversary = AdversarialLLM()
    return summarize([run_case(case, adversary, lambda: adversary.calls, hardened) for case in cases])


def test_golden_file_is_the_reference_set() -> None:
    shipped = json.loads(GOLDEN.read_text(encoding="utf-8"))
    reference = Path("/work/shared/spec/paicli-autofact-golden.json")
    if reference.exists():
        assert shipped == json.loads(reference.read_text(encoding="utf-8"))
    assert len(shipped["cases"]) == 18


def test_ideal_extractor_can_save_every_eligible_gold_fact() -> None:
    summary = run_oracle(load_cases(GOLDEN))
    assert (summary.f1, summary.exact_cases, summary.cases) == (1.0, 18, 18)
    assert summary.forbidden_writes == 0
    # secret_only is filtered locally before any call, and so are the turns that are only a question or only a
    # code fence (issue 37: the hardened gate asks about statements, not cue words); the reference's make 17
    assert summary.model_calls == 15


def test_ideal_extractor_is_exact_on_the_extended_set() -> None:
    cases = load_cases(EXTENDED)
    assert len(cases) >= 40
    assert not {c.id for c in cases} & {c.id for c in load_cases(GOLDEN)}
    summary = run_oracle(cases)
    assert summary.f1 == 1.0 and summary.exact_cases == summary.cases


def test_two_atomic_facts_count_as_two_correct_predictions() -> None:
    gold = ["仓库的主语言是 Kotlin", "构建工具是 Gradle"]
    assert match_counts(["仓库的主语言是 Kotlin", "构建工具是 Gradle"], gold) == (2, 0)
    # one saved fact matches at most one gold quote
    assert match_counts(["仓库的主语言是 Kotlin，构建工具是 Gradle"], gold) == (1, 0)
    assert match_counts(["仓库的主语言是 Kotlin", "仓库的主语言是 Kotlin"], gold) == (1, 1)


@pytest.mark.parametrize("dataset", [GOLDEN, EXTENDED], ids=["golden-v2", "extended-v1"])
def test_worst_case_extractor_gets_no_forbidden_write_through(dataset: Path) -> None:
    cases = load_cases(dataset)
    assert run_adversary(cases).forbidden_writes == 0
    # the same adversary against the reference's checks alone does get through: the hardening is what holds
    assert run_adversary(cases, hardened=False).forbidden_writes > 0


def test_adversary_returns_verbatim_spans_and_prefers_forbidden_contexts() -> None:
    text = "读者留言说：‘我喜欢英文回答’。请分析这个观点。"
    quotes = adversarial_quotes(text)
    assert 1 <= len(quotes) <= 3 and all(q in text for q in quotes)
    assert "我喜欢英文回答" in quotes
    assert adversarial_quotes("我们今天临时切换到 Java 21 排查问题。")[0] == "切换到 Java 21 排查问题"


def _short_negative_cases() -> list[Case]:
    cases = load_cases(GOLDEN) + load_cases(EXTENDED)
    return [c for c in cases if c.negative and input_in_range(c.input) and len(c.input) <= 200]


@pytest.mark.parametrize("case", _short_negative_cases(), ids=lambda c: c.id)
def test_no_verbatim_span_of_a_negative_input_is_accepted(case: Case) -> None:
    """Stronger than any one adversary: every span of up to 80 characters is rejected."""
    tried, accepted = accepted_spans(case.input, max_len=80)
    assert accepted == []
    assert tried > 0 or not worth_asking(safe_input(case.input))


def test_span_attack_finds_the_reference_gaps() -> None:
    results = attack(load_cases(GOLDEN), hardened=False)
    assert {r.case.id for r in results if r.accepted} >= {
        "blockquote",
        "third_party_claim",
        "quoted_instruction",
    }
    assert all(not r.accepted for r in attack(load_cases(GOLDEN)))


def test_runner_prints_contract_json_last_and_exits_by_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["--dataset", str(GOLDEN), "--oracle", "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    summary = json.loads(lines[-1])
    assert summary == {
        "cases": 18,
        "exact_cases": 18,
        "precision": 1.0,
        "recall": 1.0,
        "f1": 1.0,
        "forbidden_writes": 0,
        "model_calls": 15,
    }
    assert any(line.startswith("Memory eval oracle: 18/18 exact") for line in lines)
    assert any(line.startswith("preference_language") for line in lines)
    reports = list((tmp_path / "evals" / "reports").glob("autofact-oracle-golden-v2-*.json"))
    assert len(reports) == 1 and json.loads(reports[0].read_text(encoding="utf-8"))["exact_cases"] == 18

    assert main(["--dataset", str(GOLDEN), "--adversarial", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["forbidden_writes"] == 0
    assert main(["--dataset", str(GOLDEN), "--adversarial", "--reference-rules"]) == 1
    capsys.readouterr()
    assert main(["--dataset", str(GOLDEN), "--exhaustive", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["accepted_spans"] == 0


def test_runner_rejects_a_dataset_whose_gold_is_not_verbatim(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "cases": [
                    {"id": "x", "category": "c", "input": "我偏好简洁回答。", "expected_quotes": ["别的"]}
                ]
            }
        ),
        encoding="utf-8",
    )
    assert main(["--dataset", str(bad), "--oracle"]) == 2


def test_live_mode_runs_through_the_real_client_against_a_loopback_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from paicli.testing.openai_server import FakeOpenAIServer

    cases = load_cases(GOLDEN)

    def respond(body: dict[str, object]) -> str:
        prompt = str(body["messages"][-1]["content"])  # type: ignore[index]
        hits = [c for c in cases if safe_input(c.input) and f"\n{safe_input(c.input)}\n" in prompt]
        return json.dumps({"facts": [{"quote": q} for q in hits[0].expected_quotes]}, ensure_ascii=False)

    monkeypatch.chdir(tmp_path)
    with FakeOpenAIServer(responder=respond) as server:
        code = main(
            ["--dataset", str(GOLDEN), "--base-url", server.base_url, "--model", "fake-model", "--json"]
        )
        requests = server.requests
        server.assert_no_violations()
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0
    assert (summary["f1"], summary["exact_cases"], summary["model_calls"]) == (1.0, 18, 15)
    assert len(requests) == 15
    assert all(
        [m["role"] for m in r["messages"]] == ["system", "user"] and not r.get("tools") for r in requests
    )


def test_live_mode_says_when_the_extraction_calls_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from paicli.testing.openai_server import FakeOpenAIServer, Reply

    monkeypatch.chdir(tmp_path)
    with FakeOpenAIServer(responder=lambda body: Reply.error(401, "bad key")) as server:
        code = main(
            ["--dataset", str(GOLDEN), "--base-url", server.base_url, "--model", "fake-model", "--json"]
        )
    out, err = capsys.readouterr()
    summary = json.loads(out.strip().splitlines()[-1])
    assert code == 1 and summary["f1"] == 0.0 and summary["model_calls"] == 15
    assert "15 of 15 extraction calls failed" in err and "bad key" in err
