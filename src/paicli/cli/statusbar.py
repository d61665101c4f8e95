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
    cost = [snapshot.spend.text()] if snapshot.spend.text() else []  # none when a call could not be priced
    tail = [snapshot.mode]
    if snapshot.phase and snapshot.phase != "idle":
        tail.append(snapshot.phase)
    variants = (
        [model, ctx, tokens + cached, *cost, *_extras(snapshot), *tail],
        [model, ctx, tokens + cached, *cost, *tail],
        [model, ctx, tokens, *cost, *tail],
        [model, ctx, *tail],
        [ctx, *tail],
    )
    lines = [" · ".join(parts) for parts in variants]
    if columns is None:
        return lines[0]
    return next((line for line in lines if cell_len(line) <= columns), lines[-1])


def format_elapsed(seconds: int) -> str:
    """`42s`, `5m03s`, `1h05m`."""
    minutes, secs = divmod(max(seconds, 0), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def _extras(snapshot: StatusSnapshot) -> list[str]:
    """The spec's other status fields: MCP servers up/configured, skills enabled/total, elapsed time."""
    extras: list[str] = []
    if snapshot.mcp is not None:
        extras.append(f"MCP {snapshot.mcp[0]}/{snapshot.mcp[1]}")
    if snapshot.skills is not None:
        extras.append(f"Skill {snapshot.skills[0]}/{snapshot.skills[1]}")
    if snapshot.elapsed_seconds is not None:
        extras.append(format_elapsed(snapshot.elapsed_seconds))
    return extras
