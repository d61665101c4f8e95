"""grep_code: ripgrep when installed, a Python regex walk otherwise; both render the same rg-like text."""

from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from paicli.tools.context import ToolContext
from paicli.tools.files import MAX_FILE_BYTES, is_binary, split_lines
from paicli.tools.schema import Args, ToolOutput

SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".paicli",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        "env",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        "dist",
        "build",
        "target",
    }
)
MAX_SUGGESTED_READS = 5


@dataclass(frozen=True)
class Line:
    path: str
    number: int
    text: str
    is_match: bool


@dataclass(frozen=True)
class GrepQuery:
    pattern: str
    base: Path  # real path of the search root
    root: Path  # real project root
    globs: tuple[str, ...]
    context: int
    head_limit: int


def expand_braces(pattern: str) -> list[str]:
    match = re.search(r"\{([^{}]*)\}", pattern)
    if not match:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    return [out for option in match.group(1).split(",") for out in expand_braces(head + option + tail)]


def _glob_matches(relative: str, globs: tuple[str, ...]) -> bool:
    if not globs:
        return True
    name = relative.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(relative, g) or fnmatch.fnmatch(name, g) for g in globs)


def _walk_files(query: GrepQuery) -> Iterator[tuple[Path, str]]:
    if query.base.is_file():
        yield query.base, Path(os.path.relpath(query.base, query.root)).as_posix()
        return
    for directory, dirs, files in os.walk(query.base):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        for name in sorted(files):
            path = Path(directory) / name
            relative = Path(os.path.relpath(path, query.root)).as_posix()
            if _glob_matches(relative, query.globs) and not path.is_symlink():
                yield path, relative


def python_grep(query: GrepQuery, ctx: ToolContext) -> tuple[list[Line], int, bool]:
    """Matching lines with context, the number of files with matches, and whether head_limit cut the list."""
    regex = re.compile(query.pattern)
    out: list[Line] = []
    matches = 0
    files = 0
    for path, relative in _walk_files(query):
        ctx.cancel.raise_if_cancelled()
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        if is_binary(data[:8192]):
            continue
        lines = split_lines(data.decode("utf-8", errors="replace"))
        hit_numbers = [i for i, text in enumerate(lines) if regex.search(text)]
        if not hit_numbers:
            continue
        files += 1
        room = query.head_limit - matches
        if room <= 0:
            return out, files, True
        cut = len(hit_numbers) > room
        hit_numbers = hit_numbers[:room]
        matches += len(hit_numbers)
        out.extend(_with_context(relative, lines, hit_numbers, query.context))
        if cut:
            return out, files, True
    return out, files, False


def _with_context(relative: str, lines: list[str], hits: list[int], context: int) -> list[Line]:
    wanted: dict[int, bool] = {}
    for index in hits:
        for j in range(max(0, index - context), min(len(lines), index + context + 1)):
            wanted[j] = wanted.get(j, False) or j == index
    return [Line(relative, j + 1, lines[j], wanted[j]) for j in sorted(wanted)]


def ripgrep(rg: str, query: GrepQuery, ctx: ToolContext) -> tuple[list[Line], int, bool]:
    # --no-config: a user's RIPGREP_CONFIG_PATH (e.g. --pre, --hidden) must not change what the tool does
    command = [rg, "--no-config", "--json", "--no-messages", "--sort", "path", "-C", str(query.context)]
    for g in query.globs:
        command += ["--glob", g]
    command += ["--regexp", query.pattern, "--", os.path.relpath(query.base, query.root)]
    process = subprocess.Popen(
        command, cwd=query.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    unregister = ctx.cancel.on_cancel(process.kill)
    out: list[Line] = []
    files: set[str] = set()
    matches = 0
    cut = False
    try:
        assert process.stdout is not None
        for raw in process.stdout:
            event = json.loads(raw)
            data = event.get("data", {})
            if event.get("type") not in ("match", "context"):
                continue
            is_match = event["type"] == "match"
            if is_match and matches >= query.head_limit:
                cut = True
                break
            path = Path(os.path.normpath(data["path"].get("text", ""))).as_posix()
            text = (data.get("lines", {}).get("text") or "").rstrip("\r\n")
            out.append(Line(path, int(data.get("line_number") or 0), text, is_match))
            if is_match:
                matches += 1
                files.add(path)
    finally:
        unregister()
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        _, err = process.communicate()
    ctx.cancel.raise_if_cancelled()
    if process.returncode == 2 and not out:
        raise re.error(err.decode("utf-8", errors="replace").strip() or "ripgrep 执行失败")
    if cut:  # drop trailing context lines that belong to the cut match
        while out and not out[-1].is_match and out[-1].path != _last_match_path(out):
            out.pop()
    return out, len(files), cut


def _last_match_path(lines: list[Line]) -> str:
    return next((line.path for line in reversed(lines) if line.is_match), "")


def render(lines: list[Line], files: int, query: GrepQuery, cut: bool, max_chars: int) -> tuple[str, bool]:
    matches = sum(1 for line in lines if line.is_match)
    if not matches:
        return f"没有找到匹配 {query.pattern!r} 的内容", False
    body: list[str] = []
    size = 0
    partial = cut
    previous: Line | None = None
    for line in lines:
        if previous and (previous.path != line.path or line.number != previous.number + 1):
            body.append("--")
        sep = ":" if line.is_match else "-"
        entry = f"{line.path}{sep}{line.number}{sep}{line.text}"
        if size + len(entry) + 1 > max_chars:
            partial = True
            break
        body.append(entry)
        size += len(entry) + 1
        previous = line
    header = f"grep_code: 模式 {query.pattern!r} 在 {files} 个文件中找到 {matches} 处匹配"
    parts = [header, *body]
    if partial:
        parts += [
            "partial: true",
            "结果被截断（达到 head_limit 或 max_chars）；可缩小 path/glob，或按下面的建议读取:",
            "suggested_reads:",
            *_suggested_reads(lines),
        ]
    return "\n".join(parts), partial


def _suggested_reads(lines: list[Line]) -> list[str]:
    first: dict[str, int] = {}
    for line in lines:
        if line.is_match and line.path not in first:
            first[line.path] = line.number
    picks = list(first.items())[:MAX_SUGGESTED_READS]
    return [f'- read_file {{"path":"{p}","offset":{max(1, n - 10)},"limit":60}}' for p, n in picks]


def grep_code(args: Args, ctx: ToolContext) -> ToolOutput:
    base = ctx.paths.resolve(args.get("path", "."))
    if not base.real.exists():
        return ToolOutput(f"❌ 路径不存在: {args.get('path', '.')}", success=False)
    glob = str(args.get("glob") or "").strip()
    query = GrepQuery(
        pattern=args["pattern"],
        base=base.real,
        root=ctx.paths.root,
        globs=tuple(expand_braces(glob)) if glob else (),
        context=min(max(int(args.get("context_lines", 2)), 0), 20),
        head_limit=max(int(args.get("head_limit", 20)), 1),
    )
    max_chars = max(int(args.get("max_chars", 24000)), 200)
    rg = shutil.which("rg")
    try:
        lines, files, cut = ripgrep(rg, query, ctx) if rg else python_grep(query, ctx)
    except re.error as error:
        return ToolOutput(f"❌ 正则表达式无效: {query.pattern!r}（{error}）", success=False)
    text, partial = render(lines, files, query, cut, max_chars)
    return ToolOutput(text, metadata={"partial": partial})
