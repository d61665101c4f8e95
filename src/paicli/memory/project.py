"""PAI.md project memory: the five locations with @includes (spec 7.3) and the /init starter file."""

from __future__ import annotations

import os
import re
import tempfile
from importlib import resources
from pathlib import Path

from paicli.cancel import Cancelled, CancelToken
from paicli.config.projectfile import read_project_text
from paicli.context.estimate import utf16_len
from paicli.llm.messages import Message
from paicli.llm.protocol import LLMClient, LLMError
from paicli.memory.results import MemoryReply
from paicli.prompt.instructions import instruction_sources, text_key

HEADER = "## PAI.md 项目记忆"
BUDGET = 24_000
TRUNCATED_LENGTH = 23_920
TRUNCATION_NOTE = "\n\n[PAI.md 内容已按 24000 字符预算截断]"
MAX_INCLUDE_DEPTH = 3
_MAX_FILE_BYTES = 1_000_000
_INCLUDE_LINE = re.compile(r"^\s*@(\S+)\s*$")


def utf16_prefix(text: str, units: int) -> str:
    """The longest prefix of at most `units` UTF-16 code units (never splits a surrogate pair)."""
    count = 0
    for index, ch in enumerate(text):
        count += 2 if ord(ch) > 0xFFFF else 1
        if count > units:
            return text[:index]
    return text


def _read_text(path: Path) -> str | None:
    try:
        if not path.is_file():
            return None
        with open(path, "rb") as handle:
            return handle.read(_MAX_FILE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None


def _read_inside(path: Path, root: Path) -> str | None:
    return read_project_text(path, root, _MAX_FILE_BYTES)


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False


class ProjectMemoryLoader:
    """Re-reads the files on every load(), so edits apply to the next system prompt."""

    def __init__(self, project_root: str | os.PathLike[str], paicli_home: str | os.PathLike[str]) -> None:
        self.project_root = Path(project_root).absolute()
        self.paicli_home = Path(paicli_home).absolute()

    def sources(self) -> list[tuple[Path, Path]]:
        """(file, import root) in the order they are concatenated (PAI.md's five, AGENTS.md and CLAUDE.md)."""
        return instruction_sources(self.project_root, self.paicli_home)

    def files(self) -> list[tuple[Path, str]]:
        """Each file that contributes, with its expanded text; a file identical to an earlier one (the same
        real file, or the same text) is left out."""
        found: list[tuple[Path, str]] = []
        seen: set[object] = set()
        for path, import_root in self.sources():
            # The project's files (and their @includes) are read only inside the project: a PAI.md that is a
            # symlink to /proc/self/environ or ~/.ssh/id_ed25519 reads as absent.
            text = _read_text(path) if import_root == self.paicli_home else _read_inside(path, import_root)
            if text is None or not text.strip():
                continue
            real = _real(path)
            expanded = self._expand(text, path, _real(import_root), 0, {real})
            key = text_key(expanded)
            if not expanded.strip() or real in seen or key in seen:
                continue
            seen.update((real, key))
            found.append((path, expanded))
        return found

    def loaded_keys(self) -> list[str]:
        return [text_key(text) for _, text in self.files()]

    def load(self) -> str:
        sections = [f"\n\n### {path}\n\n{expanded.strip()}" for path, expanded in self.files()]
        if not sections:
            return ""
        block = HEADER + "".join(sections)
        if utf16_len(block) > BUDGET:
            block = utf16_prefix(block, TRUNCATED_LENGTH) + TRUNCATION_NOTE
        return block

    def _expand(self, text: str, path: Path, import_root: Path, depth: int, chain: set[Path]) -> str:
        lines: list[str] = []
        for line in text.splitlines():
            match = _INCLUDE_LINE.match(line)
            if match is None:
                lines.append(line)
                continue
            included = self._include(match.group(1), path, import_root, depth, chain)
            lines.append(line if included is None else included)
        return "\n".join(lines)

    def _include(
        self, target: str, path: Path, import_root: Path, depth: int, chain: set[Path]
    ) -> str | None:
        """Expanded text of an @include; None keeps the line as written; "" drops a cycle."""
        if depth >= MAX_INCLUDE_DEPTH or target.startswith(("/", "\\", "~")) or ".." in target:
            return None
        resolved = _real(path.parent / target)
        if not _inside(resolved, import_root):
            return None
        if resolved in chain:
            return ""
        text = _read_inside(resolved, import_root)
        if text is None:
            return None
        return self._expand(text, resolved, import_root, depth + 1, chain | {resolved})


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return Path(os.path.normpath(path.absolute()))


# ---- /init -------------------------------------------------------------------------------------------

INIT_SYSTEM = "你是 PaiCLI，正在为一个代码仓库编写 PAI.md 项目记忆文件。只输出 Markdown 正文，不调用工具。"
INIT_USAGE = "   写法: /init，或 /init --force 覆盖已有的 PAI.md"
INIT_OUTPUT_CAP = 8_192  # max_tokens of /init: PAI.md is read within a 24,000-character budget anyway
_BUILD_FILES = (
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
    "package.json",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "Cargo.toml",
    "go.mod",
    "Makefile",
    "CMakeLists.txt",
    "Gemfile",
    "composer.json",
    "tsconfig.json",
    "Dockerfile",
    ".editorconfig",
)
_SKIP_DIRS = frozenset(
    {".git", "node_modules", "__pycache__", ".venv", "venv", "target", "build", "dist", ".idea"}
)
_SURVEY_BUDGET = 16_000


def load_init_prompt() -> str:
    return (resources.files("paicli") / "prompts" / "memory" / "init.md").read_text(encoding="utf-8")


def _head(path: Path, root: Path, limit: int) -> str:
    text = _read_inside(path, root) or ""
    return text if len(text) <= limit else text[:limit] + "\n…（后面省略）"


def survey_project(root: Path) -> str:
    """A cheap look at the project: top-level listing, README head, build files (no recursion)."""
    try:
        children = sorted(root.iterdir(), key=lambda p: (not p.is_dir(), p.name.lower()))
    except OSError:
        children = []
    names = [c.name + ("/" if c.is_dir() else "") for c in children if c.name not in _SKIP_DIRS]
    parts = [
        f"项目目录名: {root.name}",
        "顶层文件和目录:\n" + ("\n".join(f"- {n}" for n in names[:80]) or "（空）"),
    ]
    readme = next((c for c in children if c.is_file() and c.name.lower().startswith("readme")), None)
    if readme is not None:
        parts.append(f"{readme.name}（开头部分）:\n{_head(readme, root, 3000)}")
    for name in _BUILD_FILES:
        candidate = root / name
        if candidate.is_file():
            parts.append(f"{name}:\n{_head(candidate, root, 2000)}")
    survey = "\n\n".join(parts)
    return survey if len(survey) <= _SURVEY_BUDGET else survey[:_SURVEY_BUDGET] + "\n…（概况过长，已截断）"


def _strip_fence(text: str) -> str:
    stripped = text.strip()
    if stripped.startswith("```") and stripped.endswith("```") and stripped.count("\n") >= 1:
        stripped = stripped[stripped.index("\n") + 1 : -3]
    return stripped.strip()


def _process_umask() -> int:
    """Read, not set: `os.umask` can only be read by changing it, which races every thread creating files."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def _shared_mode(path: Path) -> int:
    """PAI.md is meant to be committed and shared: a new one gets a plain file's mode (0644 under the usual
    umask), a regenerated one keeps the mode it had (mkstemp alone would leave 0600)."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        return 0o666 & ~_process_umask()


def _write_atomically(path: Path, text: str) -> None:
    mode = _shared_mode(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            os.fchmod(handle.fileno(), mode)
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def init_project_memory(
    project_root: str | os.PathLike[str],
    llm: LLMClient,
    force: bool = False,
    cancel: CancelToken | None = None,
) -> tuple[bool, str]:
    """One model call (no tools) turns a survey of the project into `<root>/PAI.md`."""
    root = Path(project_root).absolute()
    target = root / "PAI.md"
    if target.exists() and not force:
        return False, f"PAI.md 已存在，没有覆盖: {target}（要重新生成请用 /init --force）"
    prompt = load_init_prompt().replace("{{survey}}", survey_project(root))
    try:
        messages = [Message.system(INIT_SYSTEM), Message.user(prompt)]
        response = llm.chat(messages, None, cancel=cancel, max_tokens=INIT_OUTPUT_CAP)
    except LLMError as exc:
        return False, f"生成 PAI.md 失败，模型调用出错: {exc}"
    except Cancelled:
        return False, "已取消生成 PAI.md，原文件没有改动"
    content = _strip_fence(response.message.content or "")
    if not content:
        return False, "生成 PAI.md 失败：模型没有返回内容，原文件没有改动"
    try:
        _write_atomically(target, content + "\n")
    except OSError as exc:
        return False, f"无法写入 {target}: {exc}"
    return True, f"已为当前项目生成 PAI.md（{utf16_len(content)} 个字符）\n   路径: {target}"


def parse_init_args(text: str) -> tuple[bool, str | None]:
    """(force, error text). Accepts the whole `/init …` input or only its arguments."""
    words = text.split()
    if words and words[0].lower() == "/init":
        words = words[1:]
    if not words:
        return False, None
    if len(words) == 1 and words[0].lower() == "--force":
        return True, None
    return False, f"❌ /init 不认识这个参数: {' '.join(words)}\n{INIT_USAGE}"


def run_init(
    project_root: str | os.PathLike[str], llm: LLMClient, args_text: str, cancel: CancelToken | None = None
) -> MemoryReply:
    """The full /init reply for the REPL."""
    force, error = parse_init_args(args_text)
    if error is not None:
        return MemoryReply(error, ok=False)
    target = Path(project_root).absolute() / "PAI.md"
    if target.exists() and not force:
        return MemoryReply(f"ℹ️ PAI.md 已存在: {target}，没有覆盖；要重新生成请用 /init --force")
    ok, message = init_project_memory(project_root, llm, force, cancel)
    if not ok:
        return MemoryReply(f"❌ {message}", ok=False)
    return MemoryReply(
        f"✅ {message}\n   这份 PAI.md 会在之后每次构建 system prompt 时注入 Project Context。"
    )
