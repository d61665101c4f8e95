"""Round 11's hand-written chains (`half_dev_round11_change.CHAINS`) through `/save`, with no judge reachable.

    python -m evals.memory_evolution.change_chains [--failures]

Each chain is saved line by line in a project of its own, through the REPL's parser and handler, as a user
would type it; no relation judge and no extractor are wired, like a tester whose model answers nothing but
chat. A correction chain is right when only its last line is a truth; a look-alike chain when every line is.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from evals.memory_evolution.half_dev_round11_change import CHAINS, Chain
from evals.memory_evolution.inprocess import SteppingClock
from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.memory import evolve
from paicli.memory.commands import parse_save_args, run_save
from paicli.memory.manager import MemoryManager
from paicli.memory.store import LongTermMemory


def _norm(text: str) -> str:
    return text.strip().rstrip(".。")


def run_chain(store: LongTermMemory, chain: Chain, clock: SteppingClock) -> tuple[bool, list[str]]:
    """(right, the truths left among the chain's lines)."""
    manager = MemoryManager(store, f"/memchange-eval/{chain.id}", clock=clock)
    for line in chain.lines:
        run_save(manager, parse_save_args("/save " + line))
    lines = {_norm(line) for line in chain.lines}
    truths = [
        e.content
        for e in store.get_all(manager.project_key)
        if evolve.is_truth(e) and _norm(e.content) in lines
    ]
    expected = [chain.lines[-1]] if chain.expect == "latest" else list(chain.lines)
    right = sorted(_norm(t) for t in truths) == sorted(_norm(x) for x in expected)
    return right, truths


def run(chains: Sequence[Chain]) -> list[tuple[Chain, bool, list[str]]]:
    with tempfile.TemporaryDirectory(prefix="memchange-", ignore_cleanup_errors=True) as tmp:
        home = Path(tmp)
        env = EnvLookup(environ={"PAICLI_HOME": str(home)}, cwd=home)
        clock = SteppingClock()
        store = LongTermMemory(home / "memory", MemoryValues.parse(env), clock=clock)
        return [(chain, *run_chain(store, chain, clock)) for chain in chains]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.memory_evolution.change_chains")
    parser.add_argument("--failures", action="store_true", help="print each chain that ends wrong")
    args = parser.parse_args(argv)
    results = run(CHAINS)
    for expect, label in (
        ("latest", "corrections ending with the latest line only"),
        ("all", "look-alikes kept"),
    ):
        rows = [r for r in results if r[0].expect == expect]
        by_lang = {
            lang: f"{sum(ok for c, ok, _ in rows if c.lang == lang)}/{sum(1 for c, _, _ in rows if c.lang == lang)}"
            for lang in ("en", "zh", "mix")
        }
        print(f"{label}: {sum(ok for _, ok, _ in rows)}/{len(rows)}  {by_lang}")
    if args.failures:
        for chain, ok, truths in results:
            if not ok:
                print(f"BAD {chain.id} ({chain.expect}): truths left {truths!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
