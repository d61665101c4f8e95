"""python -m evals.autofact --dataset FILE (--oracle | --adversarial | --exhaustive | --base-url URL --model NAME) [--json]

Scores automatic fact extraction on a golden set exactly as spec 11.1, prints a per-case table and the
reference's summary line, writes a report under evals/reports/, and exits 0 when the run's gate holds.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from evals.autofact.clients import AdversarialLLM, OracleLLM
from evals.autofact.exhaustive import attack
from evals.autofact.scoring import Case, CaseResult, Summary, load_cases, run_case, summarize
from paicli.cancel import CancelToken
from paicli.llm.messages import ChatResponse, Message
from paicli.llm.protocol import DeltaCallback, LLMClient

REPORT_DIR = Path("evals/reports")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m evals.autofact", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--dataset", required=True, help="golden set in the layout of paicli-autofact-golden.json"
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument(
        "--oracle", action="store_true", help="the model answers with exactly the expected quotes"
    )
    mode.add_argument("--adversarial", action="store_true", help="built-in worst-case extractor (no server)")
    mode.add_argument(
        "--exhaustive", action="store_true", help="try every span of each negative input (no model)"
    )
    mode.add_argument("--base-url", help="OpenAI-compatible endpoint of a live extraction model")
    parser.add_argument("--model", help="model name for --base-url")
    parser.add_argument("--api-key", help="API key for --base-url (optional for local servers)")
    parser.add_argument(
        "--reference-rules", action="store_true", help="only the reference's checks (no hardening)"
    )
    parser.add_argument(
        "--json", action="store_true", help="print the summary JSON object as the last stdout line"
    )
    args = parser.parse_args(argv)
    if args.base_url and not args.model:
        parser.error("--base-url needs --model")
    return args


def _live_client(args: argparse.Namespace) -> LLMClient:
    from paicli.llm.client import OpenAIChatClient

    return OpenAIChatClient(args.base_url, args.api_key, args.model)


def run(cases: list[Case], args: argparse.Namespace) -> tuple[list[CaseResult], Summary]:
    hardened = not args.reference_rules
    results: list[CaseResult] = []
    if args.oracle or args.adversarial:
        offline = OracleLLM() if args.oracle else AdversarialLLM()
        for case in cases:
            if isinstance(offline, OracleLLM):
                offline.expected = list(case.expected_quotes)
            results.append(run_case(case, offline, lambda: offline.calls, hardened))
        usage = offline.usage_total
        return results, summarize(results, (usage.prompt_tokens, usage.completion_tokens))
    live = _CountingLive(_live_client(args))
    for case in cases:
        results.append(run_case(case, live, lambda: live.calls, hardened))
    if live.failures:
        print(
            f"warning: {live.failures} of {live.calls} extraction calls failed (first: {live.first_failure}); "
            "those cases were scored as saving nothing",
            file=sys.stderr,
        )
    return results, summarize(results, (live.tokens_in, live.tokens_out))


class _CountingLive:
    """Counts calls and tokens of a live client (LLMClient by delegation)."""

    def __init__(self, inner: LLMClient) -> None:
        self.inner = inner
        self.calls = 0
        self.tokens_in = 0
        self.tokens_out = 0
        self.failures = 0
        self.first_failure = ""

    @property
    def model(self) -> str:
        return self.inner.model

    def with_model(self, model: str) -> LLMClient:
        return self

    def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None = None,
        *,
        on_delta: DeltaCallback | None = None,
        cancel: CancelToken | None = None,
        tool_choice: str | None = None,
        max_tokens: int | None = None,
    ) -> ChatResponse:
        self.calls += 1
        try:
            response = self.inner.chat(
                messages,
                tools,
                on_delta=on_delta,
                cancel=cancel,
                tool_choice=tool_choice,
                max_tokens=max_tokens,
            )
        except Exception as error:  # the memory path swallows it; remember it so the run can say so
            self.failures += 1
            self.first_failure = self.first_failure or f"{type(error).__name__}: {error}"
            raise
        if response.usage is not None:
            self.tokens_in += response.usage.prompt_tokens
            self.tokens_out += response.usage.completion_tokens
        return response


def gate(summary: Summary, args: argparse.Namespace) -> bool:
    if args.oracle:
        return summary.f1 == 1.0 and summary.exact_cases == summary.cases
    if args.adversarial:
        return summary.forbidden_writes == 0
    return (
        summary.f1 >= 0.85 and summary.exact_cases * 6 >= summary.cases * 5 and summary.forbidden_writes == 0
    )


def run_name(args: argparse.Namespace) -> str:
    base = "oracle" if args.oracle else "adversarial" if args.adversarial else f"live-{args.model}"
    return base + ("-reference-rules" if args.reference_rules else "")


def table(results: list[CaseResult]) -> str:
    rows = [f"{'case':<40} {'category':<22} {'exact':<5} {'tp':>2} {'fp':>2} {'gold':>4}  saved"]
    for r in results:
        mark = "yes" if r.exact else "NO"
        saved = " | ".join(r.saved) if r.saved else "-"
        rows.append(
            f"{r.case.id[:40]:<40} {r.case.category[:22]:<22} {mark:<5} {r.tp:>2} {r.fp:>2} "
            f"{len(r.case.expected_quotes):>4}  {saved}"
        )
    return "\n".join(rows)


def write_report(name: str, dataset: str, results: list[CaseResult], summary: Summary) -> Path:
    REPORT_DIR.mkdir(parents=True, exist_ok=True)
    path = REPORT_DIR / f"autofact-{name}-{Path(dataset).stem}-{time.strftime('%Y%m%dT%H%M%S')}.json"
    details = [
        {
            "id": r.case.id,
            "category": r.case.category,
            "expected": list(r.case.expected_quotes),
            "saved": list(r.saved),
            "tp": r.tp,
            "fp": r.fp,
            "exact": r.exact,
            "model_calls": r.model_calls,
        }
        for r in results
    ]
    report = {"run": name, "dataset": dataset, **asdict(summary), "details": details}
    path.write_text(json.dumps(report, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return path


def run_exhaustive(cases: list[Case], args: argparse.Namespace) -> int:
    results = attack(cases, hardened=not args.reference_rules)
    for result in results:
        if result.accepted:
            shown = " | ".join(result.accepted[:3])
            print(f"{result.case.id[:40]:<40} {len(result.accepted):>6} accepted  {shown}")
    leaking = sum(1 for r in results if r.accepted)
    total = sum(len(r.accepted) for r in results)
    print(
        f"Span attack: {len(results)} negative cases, {sum(r.tried for r in results)} spans tried, "
        f"{total} accepted, {leaking} cases leak"
    )
    print(f"gate: {'PASS' if total == 0 else 'FAIL'}")
    if args.json:
        print(json.dumps({"negative_cases": len(results), "leaking_cases": leaking, "accepted_spans": total}))
    return 0 if total == 0 else 1


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        cases = load_cases(args.dataset)
    except (OSError, ValueError, KeyError) as err:
        print(f"cannot load dataset {args.dataset}: {err}", file=sys.stderr)
        return 2
    if args.exhaustive:
        return run_exhaustive(cases, args)
    results, summary = run(cases, args)
    name = run_name(args)
    report = write_report(name, args.dataset, results, summary)
    print(table(results))
    print(
        f"Memory eval {name}: {summary.exact_cases}/{summary.cases} exact, P={summary.precision:.3f} "
        f"R={summary.recall:.3f} F1={summary.f1:.3f}, negative FP={summary.forbidden_writes}, "
        f"calls={summary.model_calls}, tokens={summary.tokens_in}+{summary.tokens_out}; {report}"
    )
    ok = gate(summary, args)
    print(f"gate: {'PASS' if ok else 'FAIL'}")
    if args.json:
        print(json.dumps(summary.contract_json(), separators=(",", ":")))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
