"""Inputs too large for any request are refused, with their size, before a request is made.

Two layers: piped stdin is read up to a hard byte cap (a larger stream is drained and counted, never held);
then the whole expanded input of a run (prompt, `@file` mentions, stdin) must fit the context window.
"""

from __future__ import annotations

from typing import BinaryIO

from paicli.context.estimate import estimate_tokens

MAX_STDIN_BYTES = 64 * 1024 * 1024
_DRAIN_CAP = 4 * 1024 * 1024 * 1024
_CHUNK = 1 << 20
WINDOW_SHARE = 0.8  # what one input may take of the window; the rest is system prompt, tools and the answer


def read_capped(stream: BinaryIO, cap: int = MAX_STDIN_BYTES) -> tuple[bytes | None, int]:
    """(data, size) when at most `cap` bytes; (None, size) when larger — the rest is drained and counted
    (up to 4 GiB; a size past that is reported as that much)."""
    data = stream.read(cap + 1) or b""
    if len(data) <= cap:
        return data, len(data)
    size = len(data)
    del data
    while size < _DRAIN_CAP:
        chunk = stream.read(_CHUNK)
        if not chunk:
            break
        size += len(chunk)
    return None, size


def human_bytes(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size:,} 字节（{size / 1024 / 1024:.1f} MB）"
    return f"{size:,} 字节"


def stdin_too_large_text(size: int, cap: int = MAX_STDIN_BYTES) -> str:
    more = "至少 " if size >= _DRAIN_CAP else ""
    return (
        f"标准输入过大：{more}{human_bytes(size)}，超过上限 {cap // 1024 // 1024} MB，没有发送任何请求。"
        "请只传入需要的部分（例如先用 head / tail / grep 过滤），或把内容写进项目里的文件，让 paicli 用 read_file 分段读取"
    )


def oversize_input(text: str, window_tokens: int) -> str | None:
    """Why this input cannot be sent (with its size), or None when it fits."""
    limit = int(window_tokens * WINDOW_SHARE)
    if len(text) // 4 > limit:  # every character costs at least 1/4 token: no need to count them all
        tokens = len(text) // 4
        about = "至少约"
    else:
        tokens = estimate_tokens(text)
        about = "约"
        if tokens <= limit:
            return None
    size = len(text.encode("utf-8", errors="replace"))
    return (
        f"输入过大：{about} {tokens:,} tokens（{human_bytes(size)}），超过上下文窗口 {window_tokens:,} tokens 中单次输入可用的 "
        f"{limit:,} tokens，没有发送任何请求。请缩小输入（例如先用 head / grep 过滤），或把内容写进项目里的文件，"
        "让 paicli 用 read_file / grep_code 按需读取"
    )
