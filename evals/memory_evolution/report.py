"""Figures of a run, the gate and the printed report."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from evals.memory_evolution.inprocess import Outcome

CHAIN_TARGET = 0.95
HALVES_GAP = 0.05
RECALL_GAP = 0.05


def _share(outcomes: Sequence[Outcome], key: Callable[[Outcome], str]) -> dict[str, str]:
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        groups[key(outcome)].append(outcome)
    return {name: f"{sum(o.chain_ok for o in group)}/{len(group)}" for name, group in sorted(groups.items())}


def summarize(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    steps = [ok for o in outcomes for ok in o.steps_ok]
    n = len(outcomes)
    return {
        "cases": n,
        "chains_ok": sum(o.chain_ok for o in outcomes),
        "chain_rate": sum(o.chain_ok for o in outcomes) / n if n else 0.0,
        "steps_ok": sum(steps),
        "steps": len(steps),
        "stale_injected": sum(o.stale_injected for o in outcomes),
        "latest_injected": sum(o.latest_injected for o in outcomes),
        "collateral": sum(o.collateral for o in outcomes),
        "auto_stored": sum(o.auto_stored for o in outcomes),
        "auto_total": sum(o.auto_total for o in outcomes),
        "by_lang": _share(outcomes, lambda o: o.case.lang),
        "by_path": _share(outcomes, lambda o: "+".join(sorted(o.case.paths))),
        "by_shape": _share(outcomes, lambda o: o.case.shape),
    }


def summary_lines(label: str, s: dict[str, Any]) -> list[str]:
    return [
        f"{label}: chains ending right {s['chains_ok']}/{s['cases']} ({s['chain_rate']:.1%})  "
        f"supersession steps {s['steps_ok']}/{s['steps']}  stale injected {s['stale_injected']}  "
        f"latest injected {s['latest_injected']}/{s['cases']}  setup facts lost {s['collateral']}  "
        f"auto-extracted statements stored {s['auto_stored']}/{s['auto_total']}",
        f"    by language {s['by_lang']}",
        f"    by path {s['by_path']}",
        f"    by shape {s['by_shape']}",
    ]


def gate(figures: dict[str, Any]) -> list[str]:
    """What misses the acceptance targets (empty: pass). Judged on the judge-silent runs (the local rules)."""
    misses: list[str] = []
    silent = figures["inprocess"].get("silent", {})
    test, dev = silent.get("test"), silent.get("dev")
    if test is not None:
        if test["chain_rate"] < CHAIN_TARGET:
            misses.append(f"test chains {test['chain_rate']:.1%} < {CHAIN_TARGET:.0%}")
        if test["stale_injected"]:
            misses.append(f"test stale injected {test['stale_injected']}")
    if test is not None and dev is not None and abs(test["chain_rate"] - dev["chain_rate"]) > HALVES_GAP:
        misses.append(
            f"dev {dev['chain_rate']:.1%} vs test {test['chain_rate']:.1%} differ by more than 5 points"
        )
    poison = figures.get("poison")
    if poison is not None and sum(r["stored"] for r in poison):
        misses.append(f"poison stored {sum(r['stored'] for r in poison)}")
    for half, rows in figures.get("recall", {}).items():
        base = next((r["recall_at_5"] for r in rows if r["distractors"] == 0), None)
        for row in rows:
            if base is not None and row["distractors"] >= 10_000 and row["recall_at_5"] < base - RECALL_GAP:
                misses.append(
                    f"{half} recall@5 at {row['distractors']} {row['recall_at_5']:.3f} vs {base:.3f}"
                )
    return misses


def poison_lines(rows: Sequence[dict[str, Any]]) -> list[str]:
    lines = [f"poison stored {sum(r['stored'] for r in rows)} of {len(rows)} runs (path x mode x turn)"]
    for row in rows:
        mark = "STORED" if row["stored"] else "ok"
        carried = "" if row["read"] else " (the content never reached the model)"
        sources = f" source={','.join(row['sources'])}" if row["sources"] else ""
        lines.append(
            f"    {row['path']:<8} {row['mode']:<5} {row['turn']:<9} {mark}{sources} exit {row['exit_code']}{carried}"
        )
    return lines


def recall_lines(half: str, rows: Sequence[dict[str, Any]]) -> list[str]:
    return [
        f"{half} recall@5 with {r['distractors']:>6} look-alikes {r['recall_at_5']:.3f} ({r['questions']} questions; "
        f"first query {r['first_query_s']:.1f} s, then {r['query_ms']:.1f} ms/query)"
        for r in rows
    ]
