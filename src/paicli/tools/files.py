"""File tools: read_file, write_file, edit_file, list_dir, glob_files (spec 9.1). All paths pass PathGuard."""

from __future__ import annotations

import contextlib
import difflib
import os
import re
from pathlib import Path

from paicli.tools.context import ToolContext
from paicli.tools.file_glob import matching_files
from paicli.tools.fsio import (
    NotRegularFile,
    SymlinkSwapped,
    open_beneath,
    read_line_window,
    read_regular_bytes,
    write_fd,
)
from paicli.tools.guards import GuardedPath, PathGuard
from paicli.tools.schema import Args, ToolOutput

__all__ = [  # the handlers (tools/handlers.py reaches them through this module) and what search.py re-uses
    "NotRegularFile",
    "edit_file",
    "edit_preview",
    "edit_problem",
    "glob_files",
    "list_dir",
    "read_file",
    "read_regular_bytes",
    "write_file",
    "write_problem",
]

MAX_FILE_BYTES = 5 * 1024 * 1024
DEFAULT_READ_LIMIT = 200
MAX_READ_LIMIT = 2000
MAX_DIFF_LINES = 400
MAX_LIST_ENTRIES = 500
MAX_GLOB_EXAMINED = 200_000
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def fail(text: str) -> ToolOutput:
    return ToolOutput(f"❌ {text}", success=False)


def is_binary(sample: bytes) -> bool:
    return b"\x00" in sample


def split_lines(text: str) -> list[str]:
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def read_text(path: Path) -> str:
    data = read_regular_bytes(path)
    return (data or b"").decode("utf-8", errors="replace")


def _not_regular(raw: object) -> ToolOutput:
    return fail(f"{raw} 不是普通文件（例如命名管道、设备或套接字），不能读取或写入")


def _swapped(raw: object) -> ToolOutput:
    return fail(f"{raw} 在检查之后被替换成了符号链接或已不存在，为安全起见已停止操作")


def _open(paths: PathGuard, target: GuardedPath, flags: int = os.O_RDONLY, *, make_dirs: bool = False) -> int:
    return open_beneath(paths.root, target.relative, flags, make_dirs=make_dirs)


def read_file(args: Args, ctx: ToolContext) -> ToolOutput:
    target = ctx.paths.resolve(args["path"])
    path = target.real
    if not path.exists():
        return fail(f"文件不存在: {args['path']}")
    if path.is_dir():
        return fail(f"{args['path']} 是目录，请用 list_dir 查看")
    try:
        fd = _open(ctx.paths, target)
    except NotRegularFile:
        return _not_regular(args["path"])
    except SymlinkSwapped:
        return _swapped(args["path"])
    ranged = "offset" in args or "limit" in args
    size = os.fstat(fd).st_size
    if is_binary(os.pread(fd, 8192, 0)):
        os.close(fd)
        return fail(f"{args['path']} 看起来是二进制文件，read_file 只能读取文本文件")
    if not ranged and size > MAX_FILE_BYTES:
        os.close(fd)
        return fail(
            f"文件过大（{size} 字节，超过 5MB），请用 offset/limit 分段读取，例如 "
            f'read_file {{"path":"{args["path"]}","offset":1,"limit":{DEFAULT_READ_LIMIT}}}'
        )
    offset = max(int(args.get("offset", 1)), 1)
    limit = min(int(args.get("limit", DEFAULT_READ_LIMIT)), MAX_READ_LIMIT) if ranged else MAX_FILE_BYTES
    window = read_line_window(fd, offset - 1, max(limit, 1), ctx.cancel.raise_if_cancelled)
    total = window.total
    if total and offset > total:
        return fail(f"offset={offset} 超出文件行数（共 {total} 行）: {args['path']}")
    start = offset - 1
    chosen = window.lines
    end = start + len(chosen) if chosen else 0
    name = str(args["path"]).strip()
    header = f"文件内容: {name} (lines {start + 1 if chosen else 0}-{end} of {total})"
    body = [f"{start + i + 1:5d} | {line}" for i, line in enumerate(chosen)]
    parts = [header, *body]
    if end < total:
        parts.append(f"...(已截断，可用 offset={end + 1} 继续读取)")
    return ToolOutput("\n".join(parts))


def unified_diff(old: str, new: str, relative: str, *, created: bool = False) -> str | None:
    """`created`: the file did not exist before, so the old side is `/dev/null` as git shows it."""
    diff = list(
        difflib.unified_diff(
            old.splitlines(keepends=False),
            new.splitlines(keepends=False),
            "/dev/null" if created else f"a/{relative}",
            f"b/{relative}",
            lineterm="",
        )
    )
    if not diff:
        return None
    if len(diff) > MAX_DIFF_LINES:
        diff = [*diff[:MAX_DIFF_LINES], f"...(diff 过长，省略 {len(diff) - MAX_DIFF_LINES} 行)"]
    return "\n".join(diff)


def match_line_endings(original: str, old_text: str, new_text: str) -> tuple[str, str]:
    """read_file shows lines without their `\r`; on a CRLF file, a `\n`-only old_text means CRLF lines."""
    if "\r\n" not in original or "\n" not in old_text or "\r" in old_text or old_text in original:
        return old_text, new_text
    return old_text.replace("\n", "\r\n"), new_text.replace("\r\n", "\n").replace("\n", "\r\n")


def _shown(text: str) -> str:
    return text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")


def planned_diff(tool: str, args: Args, paths: PathGuard) -> str | None:
    """The diff write_file / edit_file would produce, without touching the disk (for approval prompts)."""
    target = paths.resolve(str(args.get("path", "")))
    exists = target.real.is_file()
    old = read_text(target.real) if exists else ""
    if tool == "write_file":
        new = str(args.get("content", ""))
    else:
        old_text, new_text = match_line_endings(
            old, str(args.get("old_text", "")), str(args.get("new_text", ""))
        )
        if not old_text or old_text not in old:
            return None
        new = old.replace(old_text, new_text, -1 if args.get("replace_all") else 1)
    return unified_diff(old, new, target.relative, created=not exists)


def edit_preview(tool: str, args: Args, paths: PathGuard | None) -> str | None:
    """What an approval of write_file / edit_file shows: the planned diff, else the text the call carries."""
    if paths is not None:
        with contextlib.suppress(Exception):  # a preview is a courtesy; the call itself reports real errors
            diff = planned_diff(tool, args, paths)
            if diff is not None:
                return diff
    if tool == "write_file":
        content = str(args.get("content", ""))
        return content if len(content) <= 2000 else content[:2000] + f"\n...(共 {len(content)} 字符)"
    if tool == "edit_file":
        return f"- {args.get('old_text', '')}\n+ {args.get('new_text', '')}"
    return None


def write_file(args: Args, ctx: ToolContext) -> ToolOutput:
    target = ctx.paths.resolve(args["path"])
    content: str = args["content"]
    data = content.encode("utf-8")
    if len(data) > MAX_FILE_BYTES:
        return fail(f"写入内容过大（{len(data)} 字节），write_file 上限为 5MB")
    if target.real.is_dir():
        return fail(f"{args['path']} 是目录，不能写入")
    existed = target.real.exists()
    try:
        fd = _open(ctx.paths, target, os.O_RDWR | os.O_CREAT, make_dirs=True)
    except NotRegularFile:
        return _not_regular(args["path"])
    except SymlinkSwapped:
        return _swapped(args["path"])
    old = os.pread(fd, MAX_FILE_BYTES + 1, 0).decode("utf-8", errors="replace")
    write_fd(fd, data)
    verb = "已覆盖" if existed else "已创建"
    lines = len(split_lines(content))
    return ToolOutput(
        f"✅ {verb}文件: {target.relative}（{lines} 行，{len(data)} 字节）",
        display=unified_diff(old, content, target.relative, created=not existed),
        metadata={"path": target.relative},
    )


def edit_file(args: Args, ctx: ToolContext) -> ToolOutput:
    target = ctx.paths.resolve(args["path"])
    old_text: str = args["old_text"]
    new_text: str = args["new_text"]
    if not target.real.exists() or target.real.is_dir():
        return fail(f"文件不存在: {args['path']}")
    if old_text == "":
        return fail("old_text 不能为空；要新建或整体重写文件请用 write_file")
    try:
        fd = _open(ctx.paths, target, os.O_RDWR)
    except NotRegularFile:
        return _not_regular(args["path"])
    except SymlinkSwapped:
        return _swapped(args["path"])
    if os.fstat(fd).st_size > MAX_FILE_BYTES:
        os.close(fd)
        return fail(f"文件过大（超过 5MB），edit_file 无法编辑: {args['path']}")
    try:
        outcome = _apply_edit(fd, args, old_text, new_text)
    except BaseException:
        os.close(fd)
        raise
    if isinstance(outcome, ToolOutput):
        os.close(fd)
        return outcome
    original, updated, count = outcome
    write_fd(fd, updated.encode("utf-8", errors="surrogateescape"))
    replace_all = bool(args.get("replace_all", False))
    return ToolOutput(
        f"✅ 已编辑文件: {target.relative}（替换 {count if replace_all else 1} 处）",
        display=unified_diff(_shown(original), _shown(updated), target.relative),
        metadata={"path": target.relative},
    )


def _apply_edit(fd: int, args: Args, old_text: str, new_text: str) -> ToolOutput | tuple[str, str, int]:
    # surrogateescape: bytes that are not UTF-8 come back unchanged on write, so an edit never garbles
    # the rest of a GBK / Latin-1 file (errors="replace" would turn them all into U+FFFD).
    original = os.pread(fd, MAX_FILE_BYTES + 1, 0).decode("utf-8", errors="surrogateescape")
    old_text, new_text = match_line_endings(original, old_text, new_text)
    problem = _match_problem(original, args, old_text)
    if problem is not None:
        return problem
    count = original.count(old_text)
    replace_all = bool(args.get("replace_all", False))
    updated = original.replace(old_text, new_text) if replace_all else original.replace(old_text, new_text, 1)
    if len(updated.encode("utf-8", errors="surrogateescape")) > MAX_FILE_BYTES:
        return fail("编辑后的文件超过 5MB，已放弃写入")
    return original, updated, count


def _match_problem(original: str, args: Args, old_text: str) -> ToolOutput | None:
    """Why old_text cannot be replaced in this text (absent, or not unique without replace_all), or None."""
    count = original.count(old_text)
    if count == 0:
        return ToolOutput(
            f"❌ 在 {args['path']} 中找不到 old_text（需要与文件内容逐字一致，包括缩进和换行）", success=False
        )
    if count > 1 and not args.get("replace_all", False):
        return fail(
            f"old_text 在文件中出现了 {count} 次: {args['path']}。请在 old_text 中加入更多上下文使其唯一，"
            "或设置 replace_all=true 替换全部"
        )
    return None


def edit_problem(args: Args, paths: PathGuard) -> ToolOutput | None:
    """Before an approval is asked: the error edit_file would give for this call (no file, empty or absent
    or ambiguous old_text), so nobody approves a diff that cannot apply; None when it would apply (the call
    itself checks again when it runs)."""
    target = paths.resolve(str(args.get("path", "")))
    if not target.real.exists() or target.real.is_dir():
        return fail(f"文件不存在: {args['path']}")
    old_text = str(args.get("old_text", ""))
    if old_text == "":
        return fail("old_text 不能为空；要新建或整体重写文件请用 write_file")
    try:
        data = read_regular_bytes(target.real, MAX_FILE_BYTES + 1)
    except (NotRegularFile, OSError):
        return None  # the call says what is wrong with it itself
    if data is None or len(data) > MAX_FILE_BYTES:
        return None
    original = data.decode("utf-8", errors="surrogateescape")
    old_text, _ = match_line_endings(original, old_text, str(args.get("new_text", "")))
    return _match_problem(original, args, old_text)


def write_problem(args: Args, paths: PathGuard) -> ToolOutput | None:
    """Before an approval is asked: the error write_file would give whatever the answer (a directory)."""
    target = paths.resolve(str(args.get("path", "")))
    if target.real.is_dir():
        return fail(f"{args['path']} 是目录，不能写入")
    return None


def list_dir(args: Args, ctx: ToolContext) -> ToolOutput:
    target = ctx.paths.resolve(args.get("path", "."))
    path = target.real
    if not path.exists():
        return fail(f"目录不存在: {args.get('path', '.')}")
    if not path.is_dir():
        return fail(f"{args.get('path')} 不是目录")
    entries = sorted(os.scandir(path), key=lambda e: (not e.is_dir(follow_symlinks=False), e.name.lower()))
    lines = [f"目录: {target.relative}（{len(entries)} 项）"]
    for entry in entries[:MAX_LIST_ENTRIES]:
        if entry.is_symlink():
            lines.append(f"  {entry.name}@ -> {os.readlink(entry.path)}")
        elif entry.is_dir():
            lines.append(f"  {entry.name}/")
        else:
            lines.append(f"  {entry.name}  ({_size(entry.stat().st_size)})")
    if len(entries) > MAX_LIST_ENTRIES:
        lines.append(f"...(仅列出前 {MAX_LIST_ENTRIES} 项)")
    if not entries:
        lines.append("  (空目录)")
    return ToolOutput("\n".join(lines))


def _size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / 1024 / 1024:.1f} MB"
    if n >= 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n} B"


def glob_files(args: Args, ctx: ToolContext) -> ToolOutput:
    base = ctx.paths.resolve(args.get("path", "."))
    pattern: str = args["pattern"].strip()
    max_results = max(1, int(args.get("max_results", 50)))
    if not pattern:
        return fail("pattern 不能为空")
    if pattern.startswith("/") or ".." in Path(pattern).parts:
        return fail("pattern 必须是相对于 path 的模式，不能以 / 开头或包含 ..")
    if not base.real.is_dir():
        return fail(f"目录不存在: {args.get('path', '.')}")
    within = "" if base.relative == "." else base.relative + "/"
    found = [
        within + rel
        for rel in matching_files(base.real, pattern, ctx.paths.contains, ctx.cancel, MAX_GLOB_EXAMINED)
    ]
    if not found:
        return ToolOutput(f"没有匹配 {pattern} 的文件（目录: {base.relative}）")
    shown = found[:max_results]
    lines = [f"匹配 {pattern} 的文件（目录: {base.relative}，共 {len(found)} 个）:", *shown]
    if len(found) > len(shown):
        lines.append(f"...(仅显示前 {len(shown)} 个，可调大 max_results 或缩小 pattern)")
    return ToolOutput("\n".join(lines))
