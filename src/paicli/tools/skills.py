"""Skills (spec 7.5): SKILL.md folders from three sources, their enabled state and the system-prompt index.

Sources, later overriding earlier by name: built-in skills shipped with paicli, the user's
`<paicli home>/skills/<name>/SKILL.md`, and the project's `.paicli/skills/<name>/SKILL.md` (untrusted: anyone
who can commit to the repository wrote it). The front matter is the common SKILL.md format (`name`,
`description`; other keys are ignored), so skills written for other agents work unchanged.

The index text is computed on (re)load and on `/skill on|off`, never on a plain turn: the system prompt
stays byte-identical across turns, so provider prefix caches keep hitting.
"""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

from paicli.config.projectfile import contained_dir, read_project_bytes
from paicli.config.trust import ProjectTrust

log = logging.getLogger(__name__)

SkillSource = Literal["builtin", "user", "project"]
SKILL_FILE = "SKILL.md"
STATE_FILE = "skills.json"
INDEX_HEADING = "## 可用 Skills（按需调用 load_skill 加载完整指引）"
MAX_INDEXED_SKILLS = 20
MAX_DESCRIPTION_CODE_POINTS = 500
MAX_INDEX_CHARS = 4096
MAX_SKILL_FILE_BYTES = 1024 * 1024
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_FRONT_MATTER = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_PLAIN_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*):[ \t]*(.*)$")
_YAML_SIGILS = frozenset("'\"[]{}>|&*!%@`#-?,")
SOURCE_LABELS: dict[SkillSource, str] = {"builtin": "内置", "user": "用户", "project": "项目"}


class SkillFormatError(ValueError):
    """A SKILL.md that cannot be used; the message says why (for the start-up warning)."""


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    source: SkillSource
    directory: Path
    body: str  # SKILL.md without its front matter

    @property
    def trusted(self) -> bool:
        return self.source != "project"


@dataclass(frozen=True)
class SkillProblem:
    path: Path
    reason: str

    def warning(self) -> str:
        return f"⚠️ 已跳过 Skill 文件 {self.path}：{self.reason}"


def builtin_skills_dir() -> Path:
    return Path(str(resources.files("paicli") / "builtin_skills"))


def parse_skill_text(text: str, directory: Path, source: SkillSource) -> Skill:
    match = _FRONT_MATTER.match(text)
    if match is None:
        raise SkillFormatError("缺少开头的 --- front matter（需要 name 和 description）")
    simple = _simple_front_matter(match.group(1))
    data = simple if simple is not None else _yaml_front_matter(match.group(1))
    if not isinstance(data, dict):
        raise SkillFormatError("front matter 应是 key: value 形式的映射")
    name = _text_field(data, "name")
    if not NAME_PATTERN.match(name):
        raise SkillFormatError(f"name {name!r} 无效：只能用字母、数字、点、下划线和连字符，最长 64 个字符")
    description = " ".join(_text_field(data, "description").split())
    return Skill(name, description, source, directory, text[match.end() :].strip("\n"))


def _simple_front_matter(text: str) -> dict[object, object] | None:
    """Plain `key: value` lines parse without YAML (start-up time); anything fancier returns None."""
    data: dict[object, object] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        found = _PLAIN_LINE.match(line)
        if found is None:
            return None
        value = found.group(2).strip()
        if value[:1] in _YAML_SIGILS or " #" in value or ": " in value or value.endswith(":"):
            return None
        data[found.group(1)] = value
    return data


def _yaml_front_matter(text: str) -> object:
    import yaml  # only for front matter beyond plain `key: value` lines

    try:
        # BaseLoader keeps every scalar a string: `name: off` or `name: 1.0` stay names, not booleans/numbers.
        return yaml.load(text, Loader=yaml.BaseLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"第 {mark.line + 2} 行" if mark is not None else "front matter"
        raise SkillFormatError(f"front matter 不是合法的 YAML（{where}）") from None


def _text_field(data: dict[object, object], key: str) -> str:
    value = data.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise SkillFormatError(f"front matter 缺少 {key} 字段")
    if not isinstance(value, str):
        raise SkillFormatError(f"front matter 的 {key} 应是一段文本")
    return value.strip()


def read_skill(directory: Path, source: SkillSource, inside: Path | None = None) -> Skill:
    """`inside`: the project root a project skill's real path must lie in (never a symlink out of it)."""
    path = directory / SKILL_FILE
    try:
        if path.stat().st_size > MAX_SKILL_FILE_BYTES:
            raise SkillFormatError(f"文件超过 {MAX_SKILL_FILE_BYTES // 1024} KB")
        if inside is not None and contained_dir(directory, inside) is None:
            raise SkillFormatError("目录的真实位置不在项目目录内（指向外部的符号链接），已忽略")
        if inside is None:
            text = path.read_text(encoding="utf-8")
        else:
            data = read_project_bytes(path, inside, MAX_SKILL_FILE_BYTES)
            if data is None:
                raise SkillFormatError("真实位置不在项目目录内，或不是普通文件，已忽略")
            text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SkillFormatError("不是 UTF-8 文本") from None
    except OSError as error:
        raise SkillFormatError(f"无法读取（{error.strerror or error}）") from None
    return parse_skill_text(text, directory, source)


def scan_source(
    root: Path, source: SkillSource, inside: Path | None = None
) -> tuple[list[Skill], list[SkillProblem]]:
    """Every `<root>/<folder>/SKILL.md`, in folder-name order; a missing root is simply empty."""
    skills: list[Skill] = []
    problems: list[SkillProblem] = []
    try:
        folders = sorted(p for p in root.iterdir() if p.is_dir() and (p / SKILL_FILE).is_file())
    except OSError:
        return [], []
    for folder in folders:
        try:
            skills.append(read_skill(folder, source, inside))
        except SkillFormatError as error:
            problems.append(SkillProblem(folder / SKILL_FILE, str(error)))
    return skills, problems


def cut_code_points(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def index_line(skill: Skill) -> str:
    mark = "（项目 Skill，不可信）" if not skill.trusted else ""
    return f"- `{skill.name}`{mark}：{cut_code_points(skill.description, MAX_DESCRIPTION_CODE_POINTS)}"


def format_index(skills: Sequence[Skill], note: str) -> str:
    """The `## 可用 Skills…` block: at most 20 skills, 500 code points per description, 4096 chars in all."""
    if not skills:
        return ""
    head = f"{INDEX_HEADING}\n\n{note.strip()}\n" if note.strip() else f"{INDEX_HEADING}\n"
    listed = list(skills[:MAX_INDEXED_SKILLS])
    while True:
        left_out = len(skills) - len(listed)
        tail = f"\n- …另有 {left_out} 个 Skill 未列出（/skill list 查看全部）" if left_out else ""
        text = head + "\n" + "\n".join(index_line(s) for s in listed) + tail
        if len(text) <= MAX_INDEX_CHARS or len(listed) <= 1:
            return text[:MAX_INDEX_CHARS]
        listed.pop()


@dataclass(frozen=True)
class SkillDirs:
    builtin: Path
    user: Path
    project: Path
    state_file: Path
    project_enabled: bool = True  # False: the folder is not trusted, its skills are not loaded
    trust: ProjectTrust | None = None  # when given, asked on every scan instead of `project_enabled`

    @property
    def project_root(self) -> Path:
        return self.project.parent.parent  # <root>/.paicli/skills

    @property
    def project_allowed(self) -> bool:
        return self.trust.trusted if self.trust is not None else self.project_enabled

    @classmethod
    def default(
        cls, paicli_home: Path, project_root: Path, project_trusted: bool | ProjectTrust = True
    ) -> SkillDirs:
        trust = ProjectTrust.of(project_trusted)
        return cls(
            builtin_skills_dir(),
            paicli_home / "skills",
            project_root / ".paicli" / "skills",
            paicli_home / STATE_FILE,
            trust.trusted,
            trust,
        )


class SkillCatalog:
    """The session's skills: scanned once at start-up and on `/skill reload`; thread-safe reads."""

    def __init__(self, dirs: SkillDirs, index_note: Callable[[], str] = lambda: "") -> None:
        self.dirs = dirs
        self._index_note = index_note
        self._lock = threading.Lock()
        self._skills: dict[str, Skill] = {}
        self._disabled: set[str] = set()
        self._index = ""
        self.problems: list[SkillProblem] = []

    def reload(self) -> list[SkillProblem]:
        found: dict[str, Skill] = {}
        problems: list[SkillProblem] = []
        sources: list[tuple[Path, SkillSource]] = [(self.dirs.builtin, "builtin"), (self.dirs.user, "user")]
        if self.dirs.project_allowed:
            sources.append((self.dirs.project, "project"))
        for root, source in sources:
            inside = self.dirs.project_root if source == "project" else None
            skills, bad = scan_source(root, source, inside)
            problems.extend(bad)
            for skill in skills:
                found[skill.name] = skill  # later sources override earlier ones
        disabled, state_problem = _read_state(self.dirs.state_file)
        if state_problem is not None:
            problems.append(state_problem)
        with self._lock:
            self._skills = dict(sorted(found.items()))
            self._disabled = disabled
            self.problems = problems
            self._index = self._format_locked()
        for problem in problems:
            log.warning("skill skipped: %s: %s", problem.path, problem.reason)
        return problems

    def all(self) -> list[Skill]:
        with self._lock:
            return list(self._skills.values())

    def enabled(self) -> list[Skill]:
        with self._lock:
            return [s for s in self._skills.values() if s.name not in self._disabled]

    def get(self, name: str) -> Skill | None:
        with self._lock:
            return self._skills.get(name.strip())

    def is_enabled(self, name: str) -> bool:
        with self._lock:
            return name in self._skills and name not in self._disabled

    def set_enabled(self, name: str, enabled: bool) -> bool:
        """Persists the change to skills.json; returns whether the enabled set changed."""
        with self._lock:
            before = set(self._disabled)
            if enabled:
                self._disabled.discard(name)
            else:
                self._disabled.add(name)
            changed = before != self._disabled
            if changed:
                _write_state(self.dirs.state_file, self._disabled)
                self._index = self._format_locked()
            return changed

    def index_text(self) -> str:
        """The cached index; identical between reloads and on/off changes."""
        with self._lock:
            return self._index

    def counts(self) -> tuple[int, int]:
        with self._lock:
            total = len(self._skills)
            return total - len([n for n in self._skills if n in self._disabled]), total

    def summary(self) -> str:
        enabled, total = self.counts()
        return f"{enabled}/{total} skills"

    def _format_locked(self) -> str:
        enabled = [s for s in self._skills.values() if s.name not in self._disabled]
        return format_index(enabled, self._index_note() if enabled else "")


def _read_state(path: Path) -> tuple[set[str], SkillProblem | None]:
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return set(), None
    except OSError as error:
        return set(), SkillProblem(path, f"无法读取（{error.strerror or error}），按全部启用处理")
    try:
        data = json.loads(raw)
    except ValueError:
        return set(), SkillProblem(path, "不是合法的 JSON，按全部启用处理")
    disabled = data.get("disabled") if isinstance(data, dict) else None
    if not isinstance(disabled, list):
        return set(), SkillProblem(path, '应为 {"disabled": [...]}，按全部启用处理')
    return {str(item) for item in disabled if isinstance(item, str)}, None


def _write_state(path: Path, disabled: set[str]) -> None:
    payload = json.dumps({"disabled": sorted(disabled)}, ensure_ascii=False, indent=2) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=STATE_FILE, suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(payload)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
