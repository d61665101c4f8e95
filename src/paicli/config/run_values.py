"""The session's own settings beside the components' (agent limits, session files, memory), parsed once into
typed values: what the front end and the session factory are built with instead of the environment lookup."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from paicli.config import knobs
from paicli.config.env import EnvLookup


@dataclass(frozen=True)
class AgentValues:
    """Limits of the loops. `token_budget` None: derived from the window."""

    token_budget: int | None = knobs.REACT_TOKEN_BUDGET.default
    stagnation_window: int = knobs.REACT_STAGNATION_WINDOW.default
    max_iterations: int = knobs.REACT_HARD_MAX_ITERATIONS.default
    plan_max_parallel: int = knobs.PLAN_MAX_PARALLEL.default
    plan_max_replans: int = knobs.PLAN_MAX_REPLANS.default
    output_continuations: int = knobs.OUTPUT_CONTINUATIONS.default

    @classmethod
    def parse(cls, env: EnvLookup) -> AgentValues:
        return cls(
            knobs.REACT_TOKEN_BUDGET.read(env),
            knobs.REACT_STAGNATION_WINDOW.read(env),
            knobs.REACT_HARD_MAX_ITERATIONS.read(env),
            knobs.PLAN_MAX_PARALLEL.read(env),
            knobs.PLAN_MAX_REPLANS.read(env),
            knobs.OUTPUT_CONTINUATIONS.read(env),
        )


@dataclass(frozen=True)
class SessionFileValues:
    """Ledgers and workspace snapshots. `user_home`: the user's home as the lookup sees it (snapshots never
    copy what is under it); `retention_days` None: every session is kept."""

    resume_replay_turns: int = knobs.RESUME_REPLAY_TURNS.default
    retention_days: int | None = knobs.SESSION_RETENTION_DAYS.default
    snapshots: bool = knobs.SNAPSHOTS.default == "on"
    snapshot_keep: int = knobs.SNAPSHOT_KEEP.default
    user_home: Path | None = None

    @classmethod
    def parse(cls, env: EnvLookup) -> SessionFileValues:
        user_home = env.get("HOME")
        return cls(
            knobs.RESUME_REPLAY_TURNS.read(env),
            knobs.SESSION_RETENTION_DAYS.read(env),
            knobs.SNAPSHOTS.read(env) == "on",
            knobs.SNAPSHOT_KEEP.read(env),
            None if user_home is None else Path(user_home).expanduser(),
        )


@dataclass(frozen=True)
class MemoryValues:
    """Long-term memory. `directory`: the configured folder, else `<paicli home>/memory` (None only in values
    built without a parse: `folder` then takes the home it is given)."""

    directory: Path | None = None
    lock_timeout: float = knobs.MEMORY_LOCK_TIMEOUT_SECONDS.default
    auto_extract: bool = knobs.MEMORY_AUTO_EXTRACT_ENABLED.default
    judge: bool = knobs.MEMORY_JUDGE.default
    vector: bool = knobs.MEMORY_VECTOR.default
    stale_days: int = knobs.MEMORY_STALE_DAYS.default
    conflict_threshold: float = knobs.MEMORY_CONFLICT_THRESHOLD.default

    def folder(self, home: Path) -> Path:
        return self.directory if self.directory is not None else home / "memory"

    @classmethod
    def parse(cls, env: EnvLookup) -> MemoryValues:
        configured = knobs.MEMORY_DIR.read(env)
        return cls(
            Path(configured).expanduser() if configured else env.home / "memory",
            knobs.MEMORY_LOCK_TIMEOUT_SECONDS.read(env),
            knobs.MEMORY_AUTO_EXTRACT_ENABLED.read(env),
            knobs.MEMORY_JUDGE.read(env),
            knobs.MEMORY_VECTOR.read(env),
            knobs.MEMORY_STALE_DAYS.read(env),
            knobs.MEMORY_CONFLICT_THRESHOLD.read(env),
        )
