"""Level 1 (spec 2.2): oversized tool output goes to a session file; the history gets a notice with previews."""

from __future__ import annotations

import json
import logging
import re
import threading
import uuid
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from paicli.config.compaction_values import OffloadValues
from paicli.context.estimate import utf16_len
from paicli.context.recall_ids import TAG, offload_id
from paicli.fsperm import ensure_private_dir, write_private_text
from paicli.redact import Redactor

log = logging.getLogger(__name__)

DEFAULT_THRESHOLD_CHARS = 32_000
MIN_THRESHOLD_CHARS = 2_000
DEFAULT_HEAD_CHARS = 2_000
COMMAND_HEAD_CHARS = 8_000
TAIL_CHARS = 800
SUGGESTED_READ_LINES = 200
COMMAND_CAPTURE_CHARS = 2_000_000
COMMAND_INLINE_CHARS = 8_000
OFFLOAD_DIR = Path(".paicli") / "tool-outputs"
OFFLOAD_PREFIX = "[工具输出过大，完整内容已卸载到会话文件]"
_BYPASS_PREFIXES = (".paicli/tool-outputs", "./.paicli/tool-outputs")
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")

Clock = Callable[[], datetime]


def default_threshold(context_trigger_tokens: int | None) -> int:
    """32,000 chars; when the summary trigger is below 64K tokens, at most half of it (in chars).

    Without this cap a single 30,000-char result, which level 1 lets through, could overflow a 16K window.
    """
    if not context_trigger_tokens or context_trigger_tokens <= 0:
        return DEFAULT_THRESHOLD_CHARS
    return max(MIN_THRESHOLD_CHARS, min(DEFAULT_THRESHOLD_CHARS, context_trigger_tokens // 2))


def new_session_dir_name(clock: Clock = datetime.now) -> str:
    return f"session-{clock().strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"


def safe_tool_name(tool: str) -> str:
    cleaned = _UNSAFE_NAME.sub("_", tool or "")[:60]
    return cleaned if cleaned.strip() else "tool"


def count_lines(text: str) -> int:
    """Java String.lines().count(): a trailing line break does not start another line."""
    if not text:
        return 0
    parts = _LINE_BREAK.split(text)
    return len(parts) - 1 if parts[-1] == "" else len(parts)


def head(text: str, n: int) -> str:
    if len(text) <= n:
        return text
    prefix = text[:n]
    cut = prefix.rfind("\n")
    return prefix[:cut] if cut > n // 2 else prefix


def tail(text: str, n: int) -> str:
    if len(text) <= n:
        return text
    suffix = text[-n:]
    cut = suffix.find("\n")
    return suffix[cut + 1 :] if 0 <= cut < n // 2 else suffix


class ToolResultOffloader:
    """One per session. Thread-safe: parallel read-only tools may offload at the same time."""

    def __init__(
        self,
        project_root: Path | str,
        values: OffloadValues | None = None,
        session_dir_name: str | None = None,
        clock: Clock = datetime.now,
        *,
        context_trigger_tokens: int | None = None,
        redact: Callable[[str], str] | None = None,
    ) -> None:
        self._redact = redact or Redactor().text  # an offload file is on disk: no key in clear
        self._root = Path(project_root)
        values = values or OffloadValues()
        self._enabled = values.enabled
        configured = values.threshold_chars
        self.threshold = max(MIN_THRESHOLD_CHARS, configured or default_threshold(context_trigger_tokens))
        self.session_dir_name = session_dir_name or new_session_dir_name(clock)
        self._lock = threading.Lock()
        self._counter = 0

    @property
    def enabled(self) -> bool:
        return self._enabled

    @property
    def session_dir(self) -> Path:
        return self._root / OFFLOAD_DIR / self.session_dir_name

    @property
    def command_capture_limit(self) -> int:
        """How many chars execute_command should read from a process."""
        return COMMAND_CAPTURE_CHARS if self._enabled else COMMAND_INLINE_CHARS

    def offload_if_oversized(self, tool: str, args_json: str, content: str) -> str:
        if not self._enabled or content is None or utf16_len(content) <= self.threshold:
            return content
        if self._bypass(tool, args_json):
            return content
        return self.offload(tool, content, DEFAULT_HEAD_CHARS)

    def offload(self, tool: str, content: str, head_chars: int) -> str:
        """Always writes the full content and returns the notice (used directly by execute_command)."""
        try:
            relative = self._write(tool, content)
        except OSError as exc:
            log.warning("tool output offload failed: %s", exc)
            return (
                content[: self.threshold]
                + f"\n...(输出过大且写入会话文件失败，已截断，原始 {utf16_len(content)} 字符)"
            )
        return self._notice(tool, content, relative, head_chars)

    def command_output_for_context(self, output: str, overflowed: bool = False) -> str:
        """execute_command's captured output as it should enter the history (spec 2.2 special path)."""
        if not self._enabled:
            if len(output) > COMMAND_INLINE_CHARS or overflowed:
                return output[:COMMAND_INLINE_CHARS] + "\n...(输出已截断)"
            return output
        if len(output) <= COMMAND_INLINE_CHARS:
            return output
        saved = output + (f"...(超过 {COMMAND_CAPTURE_CHARS} 字符的部分未保存)\n" if overflowed else "")
        return self.offload("execute_command", saved, COMMAND_HEAD_CHARS)

    def _bypass(self, tool: str, args_json: str) -> bool:
        if tool != "read_file":
            return False
        try:
            args = json.loads(args_json) if args_json else {}
        except ValueError:
            return False
        if not isinstance(args, dict):
            return False
        if args.get("offset") is not None or args.get("limit") is not None:
            return True
        path = args.get("path")
        if not isinstance(path, str):
            return False
        normalized = path.replace("\\", "/")
        if normalized.startswith(_BYPASS_PREFIXES):
            return True
        try:
            return Path(path).is_absolute() and Path(path).resolve().is_relative_to(
                (self._root / OFFLOAD_DIR).resolve()
            )
        except (OSError, ValueError):
            return False

    def _write(self, tool: str, content: str) -> str:
        base = self._root / OFFLOAD_DIR
        with self._lock:
            self._counter += 1
            number = self._counter
            ensure_private_dir(self.session_dir)
            if not base.resolve().is_relative_to(self._root.resolve()):
                raise OSError(
                    f"{OFFLOAD_DIR} leads outside the project"
                )  # a symlink planted by the repository
            ignore = base / ".gitignore"
            if not ignore.exists() and not ignore.is_symlink():
                write_private_text(ignore, "*\n")
        target = self.session_dir / f"{number:03d}-{safe_tool_name(tool)}.txt"
        write_private_text(target, self._redact(content))
        return target.relative_to(self._root).as_posix()

    def _notice(self, tool: str, content: str, relative: str, head_chars: int) -> str:
        read_back = json.dumps(
            {"path": relative, "offset": 1, "limit": SUGGESTED_READ_LINES},
            ensure_ascii=False,
            separators=(",", ":"),
        )
        parts = [
            f"{OFFLOAD_PREFIX} {TAG}{offload_id(relative)}\n",
            f"tool: {tool}\n",
            f"原始大小: {utf16_len(content)} 字符 / {count_lines(content)} 行\n",
            f"文件: {relative}\n",
            f"读回: read_file {read_back}，按需调整 offset 分段读取\n",
            "--- 开头预览 ---\n",
            head(content, head_chars),
        ]
        if len(content) > head_chars + TAIL_CHARS:
            parts.append("\n--- 结尾预览 ---\n" + tail(content, TAIL_CHARS))
        return "".join(parts)
