"""Memory evolution eval (issues 28, 37): generated correction chains, negations, near-duplicates, poison, recall.

Run from the repository root:

    python -m evals.memory_evolution [--halves dev,test] [--judge silent,oracle] [--sizes 0,1000,10000,50000]
                                     [--recall-halves test] [--cli 1] [--no-poison] [--failures] [--json] [--jobs 2]

Cases are generated (`cases.py`) from subjects x values x phrasing families x languages (zh, en, code-switched)
x chain shapes (3-4 statements: returns to an earlier value, corrections that name only the new value, old-value
wording, negations) x write paths (/save, save_memory, automatic extraction). The phrasing families are split
into a dev half (tuned on) and a held-out test half (`half_test.py`, written first, never tuned on: its per-case
failures are never printed). Every run reports both halves, each with the relation judge silent (the local rules
alone) and with an oracle judge. Targets on the test half with the judge silent: chains ending with the latest
value as the only truth >= 95%, stale values injected 0, dev and test within 5 points; poison stored 0 in every
path and mode; recall@5 with 10k and 50k look-alikes within 5 points of the figure with none.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import asdict
from typing import Any

from evals.memory_evolution import report
from evals.memory_evolution.cases import Case, generate
from evals.memory_evolution.oracle import JudgeMode
from evals.memory_evolution.spec import Half

HALF_MODULES = {
    "dev": "evals.memory_evolution.half_dev_round11_change",
    "dev10": "evals.memory_evolution.half_dev_round10",  # the dev half before round 11, for comparison
    "dev11": "evals.memory_evolution.half_dev_round11_verbs",  # lexical-verb subjects: a half of its own
    "dev11roles": "evals.memory_evolution.half_dev_round11_roles",  # who holds which duty: round 10 + roles
    "dev12neg": "evals.memory_evolution.half_dev_round12_neg",  # negations ending a chain, their look-alikes
    "dev12para": "evals.memory_evolution.half_dev_round12_para",  # a subject named in other words: written cases
    "dev13neg": "evals.memory_evolution.half_dev_round13_neg",  # a denial naming its value or subject in part
    "dev13ret": "evals.memory_evolution.half_dev_round13_ret",  # returns and value-only corrections: written cases
    "dev13subj": "evals.memory_evolution.half_dev_round13_subj",  # a subject in another word form: written cases
    "dev14auto": "evals.memory_evolution.half_dev_round14_auto",  # automatic-path chains: long, preambles, bare notes
    "dev14latest": "evals.memory_evolution.half_dev_round14_latest",  # the truth in other words
    "dev14shape": "evals.memory_evolution.half_dev_round14_shape",  # a subject or value in another form
    "dev14deny": "evals.memory_evolution.half_dev_round14_deny",  # a denial naming only its value, or it first
    "dev15auto": "evals.memory_evolution.half_dev_round15_auto",  # automatic path: framing, opening time, two facts
    "dev15shape": "evals.memory_evolution.half_dev_round15_shape",  # a slot in another form; look-alikes apart
    "dev15deny": "evals.memory_evolution.half_dev_round15_deny",  # ended habits, other verbs, owned truths, returns
    "test": "evals.memory_evolution.half_test",
}


def load_half(name: str) -> Half:
    half: Half = importlib.import_module(HALF_MODULES[name]).HALF
    return half


def cases_of(name: str) -> list[Case]:
    """The half's cases: its own written ones (`CASES`) or the grid generated from its `HALF`."""
    module = importlib.import_module(HALF_MODULES[name])
    written: tuple[Case, ...] | None = getattr(module, "CASES", None)
    return list(written) if written is not None else generate(load_half(name))


def run_inprocess(half_name: str, mode: JudgeMode, failures: bool) -> tuple[dict[str, Any], list[str]]:
    from evals.memory_evolution.inprocess import run_cases

    outcomes = run_cases(cases_of(half_name), mode)
    traces: list[str] = []
    if failures and half_name != "test":
        for outcome in outcomes:
            if not outcome.chain_ok or outcome.stale_injected or outcome.collateral:
                traces.append(f"{outcome.case.id} ({outcome.case.question})\n" + "\n".join(outcome.trace))
    return report.summarize(outcomes), traces


def run_cli(half_name: str, mode: JudgeMode, per_path: int) -> dict[str, Any]:
    from evals.memory_evolution.cli_sample import pick, run_sample

    outcomes = run_sample(pick(cases_of(half_name), per_path), mode)
    return {
        "cases": len(outcomes),
        "chains_ok": sum(o.chain_ok for o in outcomes),
        "stale_injected": sum(o.stale_injected for o in outcomes),
        "latest_injected": sum(o.latest_injected for o in outcomes),
        "process_failures": sum(o.failures for o in outcomes),
    }


def run_recall(half_name: str, sizes: Sequence[int]) -> list[dict[str, float]]:
    from evals.memory_evolution.recall import recall_at

    half = load_half(half_name)
    return recall_at(half, generate(half), sizes)


def run_poison() -> list[dict[str, Any]]:
    from evals.memory_evolution.poison import run_poison as poison

    return [asdict(r) for r in poison()]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m evals.memory_evolution",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--halves", default="dev,test")
    parser.add_argument("--judge", default="silent,oracle", help="judge modes: silent, oracle, liar")
    parser.add_argument(
        "--sizes", default="0,1000,10000,50000", help="look-alike counts for recall@5 ('' = skip)"
    )
    parser.add_argument("--recall-halves", default="test", help="halves whose recall@5 is measured")
    parser.add_argument("--cli", type=int, default=1, help="cases per path through the real CLI (0 = skip)")
    parser.add_argument("--no-poison", action="store_true")
    parser.add_argument("--failures", action="store_true", help="per-case traces (dev half only)")
    parser.add_argument("--json", action="store_true", help="one JSON object as the last line")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--startup-cpu", action="store_true", help="only: CPU of `paicli -p hello`, empty store vs 2 memories"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.startup_cpu:
        from evals.memory_evolution.startup import startup_cpu

        cpu = startup_cpu()
        print(
            f"paicli -p hello CPU: empty store {cpu['empty']:.2f} s, 2 memories {cpu['two']:.2f} s "
            f"({cpu['ratio']:.2f}x, target <= 1.25x)"
        )
        return 0 if cpu["ratio"] <= 1.25 else 1
    halves = [h for h in args.halves.split(",") if h]
    modes: list[JudgeMode] = [m for m in args.judge.split(",") if m]  # type: ignore[misc]
    sizes = [int(n) for n in args.sizes.split(",") if n.strip()]
    started = time.perf_counter()
    futures: dict[tuple[str, ...], Future[Any]] = {}
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        if not args.no_poison:
            futures[("poison",)] = pool.submit(run_poison)
        for half in halves:
            for mode in modes:
                futures[("inprocess", mode, half)] = pool.submit(run_inprocess, half, mode, args.failures)
            if args.cli:
                futures[("cli", modes[0], half)] = pool.submit(run_cli, half, modes[0], args.cli)
            if sizes and half in args.recall_halves.split(","):
                futures[("recall", half)] = pool.submit(run_recall, half, sizes)
        results = {key: future.result() for key, future in futures.items()}
    figures: dict[str, Any] = {"inprocess": {}, "cli": {}, "recall": {}}
    traces: list[str] = []
    for key, value in results.items():
        if key[0] == "inprocess":
            figures["inprocess"].setdefault(key[1], {})[key[2]] = value[0]
            traces.extend(value[1])
        elif key[0] == "cli":
            figures["cli"].setdefault(key[1], {})[key[2]] = value
        elif key[0] == "recall":
            figures["recall"][key[1]] = value
        else:
            figures["poison"] = value
    figures["seconds"] = time.perf_counter() - started
    print(render(figures, traces))
    if args.json:
        print(json.dumps(figures, ensure_ascii=False))
    return 0 if not report.gate(figures) else 1


def render(figures: dict[str, Any], traces: list[str]) -> str:
    lines: list[str] = [*traces]
    for mode, halves in figures["inprocess"].items():
        for half, summary in sorted(halves.items()):
            lines.extend(report.summary_lines(f"[{half} half, judge {mode}]", summary))
    for mode, halves in figures["cli"].items():
        for half, c in sorted(halves.items()):
            lines.append(
                f"[{half} half, real CLI, judge {mode}] chains ending right {c['chains_ok']}/{c['cases']}  "
                f"stale injected {c['stale_injected']}  latest injected {c['latest_injected']}/{c['cases']}  "
                f"failed processes {c['process_failures']}"
            )
    for half, rows in sorted(figures["recall"].items()):
        lines.extend(report.recall_lines(half, rows))
    if "poison" in figures:
        lines.extend(report.poison_lines(figures["poison"]))
    misses = report.gate(figures)
    lines.append(
        f"({figures['seconds']:.0f} s)  gate: " + ("PASS" if not misses else "FAIL: " + "; ".join(misses))
    )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
