"""The session modes, declared once: their names (the start-up setting, `/mode`, its completions, Shift+Tab),
what a plain input runs as in each, and how each is described. Everything that lists modes derives from
`MODES`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SessionMode = Literal["auto", "plan", "team", "ask"]
RunMode = Literal["react", "plan", "team"]  # how one input runs: the ReAct loop, Plan-and-Execute, Team


@dataclass(frozen=True)
class Mode:
    name: SessionMode
    runs: RunMode  # what a plain input (and `-p` without --plan/--team) runs as
    asks_every_change: bool  # every write, edit and command is confirmed
    text: str  # what `/mode` says about it
    hint: str  # its completion's description


MODES: tuple[Mode, ...] = (
    Mode(
        "auto",
        "react",
        False,
        "auto（默认）：项目内的文件编辑直接执行（.env*、.envrc、.gitmodules、PAI*.md 和任意层级的 .git/、"
        ".paicli/ 除外）；确认只读的命令直接运行，其余 shell 命令先请你确认",
        "项目内改文件直接执行，其余命令先确认",
    ),
    Mode("plan", "plan", False, "plan：普通输入走 Plan-and-Execute；审批规则同 auto", "先规划再执行"),
    Mode(
        "team",
        "team",
        False,
        "team：普通输入交给多智能体协作（规划者、两个执行者、审查者）；审批规则同 auto",
        "交给多智能体协作执行",
    ),
    Mode(
        "ask",
        "react",
        True,
        "ask：每一次写文件、改文件和执行命令都先请你确认",
        "写文件、改文件、执行命令都先确认",
    ),
)
MODE_NAMES: tuple[SessionMode, ...] = tuple(mode.name for mode in MODES)


@dataclass(frozen=True)
class Orchestrated:
    """How the user is told about a Plan or Team run."""

    mode: RunMode
    what: str  # the run, in a sentence: 上次有一个没有执行完的{what}
    unit: str  # one of its parts: 3/5 个{unit}已完成
    flag: str  # the -p option that starts one


ORCHESTRATED_RUNS: tuple[Orchestrated, ...] = (
    Orchestrated("plan", "计划", "任务", "--plan"),
    Orchestrated("team", "团队任务", "步骤", "--team"),
)


def orchestrated(mode: str) -> Orchestrated:
    """The Plan or Team run called `mode` (a plan for anything else: every orchestrated run is one)."""
    return next((run for run in ORCHESTRATED_RUNS if run.mode == mode), ORCHESTRATED_RUNS[0])


RUN_MODES: tuple[RunMode, ...] = ("react", "plan", "team")
ORCHESTRATED: tuple[RunMode, ...] = tuple(mode for mode in RUN_MODES if mode != "react")
DEFAULT_MODE = MODES[0]


def mode_named(name: str) -> Mode | None:
    """The mode called `name` (case and surrounding blanks ignored), None for no mode."""
    wanted = name.strip().lower()
    return next((mode for mode in MODES if mode.name == wanted), None)


def next_mode(current: str) -> SessionMode:
    """Shift+Tab: the mode after `current` in table order (the first one after an unknown label)."""
    names = list(MODE_NAMES)
    return names[(names.index(current) + 1) % len(names)] if current in names else DEFAULT_MODE.name
