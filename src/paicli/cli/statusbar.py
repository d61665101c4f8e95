"""The bottom status bar: token figures and the one-line session status (pure)."""

from __future__ import annotations

from rich.cells import cell_len

from paicli.cli.backend import StatusSnapshot


def format_tokens(count: int) -> str:
    """Spec 10.4 `formatTokens`: >=1M -> `%.1fM`, >=1000 -> `%.1fk`, else the integer."""
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 1000:
        return f"{count / 1000:.1f}k"
    return str(count)


def format_window(count: int) -> str:
    """A window is usually round: 128000 -> `128k`, 1000000 -> `1M`, 131072 -> `131.1k`."""
    if count >= 1_000_000 and count % 1_000_000 == 0:
        return f"{count // 1_000_000}M"
    if count >= 1000 and count % 1000 == 0:
        return f"{count // 1000}k"
    return format_tokens(count)


# The figure is what the history holds now; when compaction acts before the next request, it is not what will
# be sent, so no share over the window is read out (a long answer can take it past 100% until then).
_DUE = {"compact": "发送前压缩", "manual": "超出窗口，需 /compact"}


def _share(snapshot: StatusSnapshot) -> str:
    due = _DUE.get(snapshot.compaction_due)
    if due is not None:
        return due
    return f"{min(snapshot.context_percent, 100.0):.1f}%"


def status_line(snapshot: StatusSnapshot, columns: int | None = None) -> str:
    """The full line, or for a narrow terminal (`columns` cells) the longest variant that fits: the token
    figures go first, then the model name, so the context use and the mode stay visible."""
    model = snapshot.model
    approx = "~" if snapshot.context_source == "local" else ""  # "~": a local estimate, not yet calibrated
    ctx = (
        f"ctx {approx}{format_tokens(snapshot.context_tokens)}/{format_window(snapshot.context_window)}"
        f" ({_share(snapshot)})"
    )
    tokens = f"in {format_tokens(snapshot.input_tokens)} out {format_tokens(snapshot.output_tokens)}"
    cached = f" cached {format_tokens(snapshot.cached_tokens)} ({snapshot.cache_hit_percent:.0f}% hit)"
    cost = snapshot.spend.text()  # "" when some call could not be priced: no figure rather than a wrong one
    if cost:
        tokens = f"{tokens} {cost}"
    tail = [snapshot.mode]
    if snapshot.phase and snapshot.phase != "idle":
        tail.append(snapshot.phase)
    variants = (
        [model, ctx, tokens + cached, *tail],
        [model, ctx, tokens, *tail],
        [model, ctx, *tail],
        [ctx, *tail],
    )
    lines = [" · ".join(parts) for parts in variants]
    if columns is None:
        return lines[0]
    return next((line for line in lines if cell_len(line) <= columns), lines[-1])
