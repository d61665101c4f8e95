"""bench_longsession's table, its targets and the verdict per target, and its command-line values."""

from __future__ import annotations

import argparse
from typing import Any

from evals.longsession_measure import Figures

PROFILES = ("paicli", "reference")
WINDOWS = (16_000, 32_000)
OVERHEAD_TARGET_POINTS = 0.8
UNCACHED_TARGET_RATIO = 0.85
MAIN_FAILING_SLACK = 2  # the main session with its summariser failing may lose this many of its 12 facts
FACTS_SLACK = 1  # a facts row may lose this many of its 15 facts


def ratio_of(f: Figures) -> float:
    return f.cached / f.prompt if f.prompt else 0.0


ROWS: tuple[tuple[str, Any], ...] = (
    ("prompt tokens/turn", lambda f: f"{f.per_turn(f.prompt):,.0f}"),
    ("uncached tokens/turn", lambda f: f"{f.per_turn(f.uncached):,.0f}"),
    ("first-sent tokens/turn", lambda f: f"{f.per_turn(f.first_sent):,.0f}"),
    ("rounding tokens/turn", lambda f: f"{f.per_turn(f.rounding):,.0f}"),
    ("compaction overhead/turn", lambda f: f"{f.per_turn(f.overhead):,.0f} ({f.overhead_points:.2f} pt)"),
    ("cached/prompt", lambda f: f"{ratio_of(f):.3f}"),
    ("L2 / L3 / fallback", lambda f: f"{f.l2} / {f.l3} / {f.fallback}"),
    ("summary requests", lambda f: str(f.summary_requests)),
    ("max request/window", lambda f: f"{f.max_request / f.window:.2f}"),
    ("requests over the window", lambda f: str(f.over_window)),
    ("unseen results cleared", lambda f: str(f.unseen_cleared)),
    ("user facts retained", lambda f: f"{f.facts_retained}/{f.facts_total}"),
    ("latest request verbatim", lambda f: f"{f.agent_requests - f.not_verbatim}/{f.agent_requests}"),
    ("missing memory", lambda f: str(f.missing_memory)),
)


def table(results: list[Figures]) -> list[str]:
    """One column per run, one block per window and session (the main session, then the facts session)."""
    lines: list[str] = []
    for window in sorted({f.window for f in results}):
        for facts in (False, True):
            runs = [f for f in results if f.window == window and (f.scenario != "main") == facts]
            if not runs:
                continue
            title = f"{window // 1000}K" + (" facts" if facts else "")
            lines.append(title.ljust(26) + "".join(f.label.rjust(22) for f in runs))
            for name, cell in ROWS:
                lines.append(f"  {name}".ljust(26) + "".join(str(cell(f)).rjust(22) for f in runs))
    return lines


def parse_windows(text: str, allow_none: bool = False) -> list[int]:
    """'16000,32K' -> [16000, 32000]; an unknown or malformed window is an argparse error ('none': [] when
    `allow_none`)."""
    if allow_none and text.strip().lower() == "none":
        return []
    windows: list[int] = []
    for item in (part.strip().lower() for part in text.split(",")):
        if not item:
            continue
        try:
            window = int(item[:-1]) * 1000 if item.endswith("k") else int(item)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a window: {item!r}") from None
        if window not in WINDOWS:
            known = ", ".join(str(w) for w in WINDOWS)
            raise argparse.ArgumentTypeError(f"no targets for window {window} (known: {known})")
        if window not in windows:
            windows.append(window)
    if not windows:
        raise argparse.ArgumentTypeError("no window given")
    return windows


def parse_profiles(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names or any(name not in PROFILES for name in names):
        raise argparse.ArgumentTypeError(f"profiles are {', '.join(PROFILES)}")
    return list(dict.fromkeys(names))


def verdicts(results: list[Figures]) -> list[tuple[bool, str]]:
    """One (passed, line) per target (paicli profile) over the runs made; the reference is compared, not judged."""
    lines: list[tuple[bool, str]] = []
    ours = [f for f in results if f.profile == "paicli"]
    for f in ours:
        if f.scenario == "main":
            lines += _main_verdicts(f, results)
        else:
            lines += _facts_verdicts(f, results)
    for name, value in (
        ("unseen results cleared", sum(f.unseen_cleared for f in ours)),
        ("requests over the window", sum(f.over_window for f in ours)),
        ("requests without the latest user text verbatim", sum(f.not_verbatim for f in ours)),
        # the facts session never asks about the saved memory's subject, so only the main session is judged
        ("missing memories", sum(f.missing_memory for f in ours if f.scenario == "main")),
    ):
        lines.append((value == 0, f"{name}: {value} (target 0)"))
    return lines


def _main_verdicts(f: Figures, results: list[Figures]) -> list[tuple[bool, str]]:
    lines: list[tuple[bool, str]] = []
    tag = f"@{f.window // 1000}K {f.summariser}"
    if not f.failing:
        lines.append(
            (
                f.overhead_points <= OVERHEAD_TARGET_POINTS,
                f"compaction overhead {tag}: {f.overhead_points:.2f} pt (target <= {OVERHEAD_TARGET_POINTS})",
            )
        )
        ref = next(
            (
                r
                for r in results
                if r.profile == "reference"
                and r.scenario == "main"
                and r.window == f.window
                and not r.failing
            ),
            None,
        )
        if ref is not None and ref.uncached:
            ratio = f.uncached / ref.uncached
            lines.append(
                (
                    ratio <= UNCACHED_TARGET_RATIO,
                    f"uncached tokens/turn {tag}: {ratio:.2f}x the reference's (target <= {UNCACHED_TARGET_RATIO})",
                )
            )
    wanted = f.facts_total - (MAIN_FAILING_SLACK if f.failing else 0)
    lines.append(
        (
            f.facts_retained >= wanted,
            f"user facts retained {tag}: {f.facts_retained}/{f.facts_total} (target >= {wanted})",
        )
    )
    return lines


def _facts_verdicts(f: Figures, results: list[Figures]) -> list[tuple[bool, str]]:
    tag = f"@{f.window // 1000}K {f.label}"
    wanted = f.facts_total - FACTS_SLACK
    lines = [
        (
            f.facts_retained >= wanted,
            f"user facts kept {tag}: {f.facts_retained}/{f.facts_total} (target >= {wanted})",
        ),
        (f.summary_requests > 0, f"summaries requested {tag}: {f.summary_requests} (target > 0)"),
    ]
    if f.summariser == "ok":
        lines.append((f.l3 > 0, f"summaries made {tag}: {f.l3} (target > 0)"))
    if f.prefix:
        plain = next(
            (
                r
                for r in results
                if r.scenario == f.scenario
                and r.window == f.window
                and r.summariser == f.summariser
                and not r.prefix
            ),
            None,
        )
        if plain is not None:
            lines.append(
                (
                    plain.facts_retained == f.facts_retained,
                    f"wording probe {tag}: {f.facts_retained}/{f.facts_total} with the prefix, "
                    f"{plain.facts_retained}/{plain.facts_total} without (target: equal)",
                )
            )
    return lines


def reference_notes(results: list[Figures]) -> list[str]:
    return [
        f"INFO  reference @{f.window // 1000}K {f.summariser}: {f.over_window} requests over "
        f"the window (largest {f.max_request / f.window:.2f}x), {f.unseen_cleared} unseen results cleared"
        for f in results
        if f.profile == "reference" and (f.over_window or f.unseen_cleared)
    ]
