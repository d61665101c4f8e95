"""`recall`: the exact original text of what compaction took out of the context, by recall id or by query.

Ids come from the placeholders, offload notices and summaries (`context/recall_ids.py`): `r57` is one message
of this session's ledger, `r12-340` the span a summary replaced, `<dir>/<NNN-tool>` an offload file, and
`session-…:r57` a message of an earlier session of this project (as query results name them). A query ranks
the messages of this session and of this project's earlier sessions by BM25 over jieba tokens.

Read-only and parallel-safe. The result is framed as untrusted data by the runner like every tool result:
what it returns was mostly tool output (files, commands, web pages) when it first came in; the user's own
words come back marked as the user's (`用户`). It is redacted again on the way out, and the runner offloads
a large result like any other.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from paicli.context.offload import OFFLOAD_DIR, OFFLOAD_PREFIX, head
from paicli.context.recall_ids import OFFLOAD_ID, format_ref, parse_ref, split_session
from paicli.memory.tokenize import document_tokens
from paicli.session.catalog import find_session, list_sessions
from paicli.session.recall_search import (
    Hit,
    Record,
    excerpt,
    indexed_text,
    lookup,
    rank,
    read_records,
)
from paicli.tools.boundary import unwrap
from paicli.tools.context import ToolContext
from paicli.tools.recall_spec import RECALL
from paicli.tools.registry import Tool
from paicli.tools.schema import Args, ToolOutput

__all__ = ["RECALL", "RecallTool"]

MAX_RESULT_CHARS = 200_000  # a span beyond this is cut (the runner offloads anything over its threshold)
MAX_FILE_CHARS = 24_000  # an offload file larger than this is pointed to, not copied again
EXCERPT_CHARS = 600
EARLIER_SESSIONS = 20
MAX_TOP_K = 20
_OFFLOAD_FILE_LINE = "文件: "

CurrentLedger = Callable[[], tuple[Path | None, str]]
Tokens = Callable[[str], list[str]]


@dataclass
class RecallTool:
    """The handler over one session: its ledger (path and id, read on each call), home and project."""

    home: Path
    project_root: Path
    current: CurrentLedger
    redact: Callable[[str], str] = lambda text: text
    tokens: Tokens = document_tokens
    _cache: dict[tuple[str, int, int], list[Record]] = field(default_factory=dict, repr=False)
    _tokens: dict[tuple[str, int], list[str]] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def tool(
        cls, home: Path, project_root: Path, current: CurrentLedger, redact: Callable[[str], str]
    ) -> Tool:
        return Tool(RECALL, cls(home, project_root, current, redact))

    def __call__(self, args: Args, ctx: ToolContext) -> ToolOutput:
        wanted = str(args.get("id") or "").strip()
        query = str(args.get("query") or "").strip()
        if not wanted and not query:
            return ToolOutput("❌ recall 需要 id（占位符或摘要里 recall: 后的编号）或 query（检索词）", False)
        try:
            if wanted:
                text, ok = self._by_id(wanted)
            else:
                text, ok = self._by_query(query, min(int(args.get("top_k") or 5), MAX_TOP_K))
        except OSError as exc:
            return ToolOutput(f"❌ 读取会话记录失败：{exc}", False)
        return ToolOutput(self.redact(text), ok)

    # ---- by id ------------------------------------------------------------------------------------

    def _by_id(self, wanted: str) -> tuple[str, bool]:
        session, rest = split_session(wanted)
        if session is None and OFFLOAD_ID().match(rest):
            return self._offload_file(f"{OFFLOAD_DIR.as_posix()}/{rest}.txt", f"recall:{rest}")
        ref = parse_ref(rest)
        if ref is None:
            return f"❌ 无法识别的 recall id：{wanted}（应形如 r57、r12-340）", False
        path, label = self._session_file(session)
        if path is None and session is None:
            return "❌ 本会话没有会话记录可查（会话账本不可用）", False
        if path is None:
            return f"❌ 找不到会话 {session}（只能取回本项目的会话记录）", False
        found = lookup(self._records(path), *ref)
        if not found:
            return f"❌ {label}的记录里没有 {format_ref(ref)}", False
        return self._transcript(found, f"recall {wanted}（{label}，{len(found)} 条原始消息）"), True

    def _session_file(self, session: str | None) -> tuple[Path | None, str]:
        current, current_id = self.current()
        if session is None or session == current_id:
            return current, "本会话"
        info = find_session(self.home, session)
        same = info is not None and _same_root(Path(info.project_root), self.project_root)
        return (info.path, f"会话 {info.session_id}") if info is not None and same else (None, "")

    def _transcript(self, records: Sequence[Record], title: str) -> str:
        parts = [title]
        used = len(title)
        for index, record in enumerate(records):
            body = self._original(record)
            block = f"--- #{record.sequence} {record.label} ---\n{body}"
            if used + len(block) > MAX_RESULT_CHARS:
                parts.append(f"…（还有 {len(records) - index} 条未列出；用更小的编号范围分次取回）")
                break
            parts.append(block)
            used += len(block)
        return "\n".join(parts)

    def _original(self, record: Record) -> str:
        """A message's original text; a tool result without its frame (the whole recall result is framed
        again), and, when it was offloaded as it came in, the full text from its file."""
        if record.role != "tool":
            return record.text
        inner = unwrap(record.text)
        if inner.startswith(OFFLOAD_PREFIX):
            for line in inner.splitlines():
                if line.startswith(_OFFLOAD_FILE_LINE):
                    text, ok = self._offload_file(line[len(_OFFLOAD_FILE_LINE) :].strip(), "")
                    return text if ok else inner
        return inner

    def _offload_file(self, relative: str, title: str) -> tuple[str, bool]:
        base = (self.project_root / OFFLOAD_DIR).resolve()
        try:
            real = (self.project_root / relative).resolve()
            if not real.is_relative_to(base) or not real.is_file():
                return f"❌ 卸载文件不存在：{relative}", False
            text = real.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            return f"❌ 读取卸载文件失败：{relative}（{exc}）", False
        if len(text) > MAX_FILE_CHARS:
            pointer = f"完整原文在 {relative}（{len(text)} 字符），用 read_file 按 offset/limit 分段读取；开头部分：\n"
            text = pointer + head(text, MAX_FILE_CHARS)
        return (f"{title}\n{text}" if title else text), True

    # ---- by query ---------------------------------------------------------------------------------

    def _by_query(self, query: str, top_k: int) -> tuple[str, bool]:
        current, current_id = self.current()
        records = _before_this_turn(self._records(current)) if current is not None else []
        earlier = list_sessions(self.home, self.project_root, exclude_session_id=current_id)
        for info in earlier[:EARLIER_SESSIONS]:
            records = records + self._records(info.path)
        words = self.tokens(query)
        hits = rank(records, words, self._record_tokens, top_k)
        searched = min(len(earlier), EARLIER_SESSIONS)
        if not hits:
            return f"在本会话和本项目之前的 {searched} 个会话里没有找到与“{query}”相关的记录。", True
        lines = [f"“{query}”在本会话和本项目之前的 {searched} 个会话里找到 {len(hits)} 条："]
        for number, hit in enumerate(hits, start=1):
            lines.append(f"{number}. {self._hit_title(hit, current_id)}")
            lines.append("   " + excerpt(hit.record.text, words, EXCERPT_CHARS).replace("\n", "\n   "))
        lines.append("用 recall 的 id 参数取回某条的完整原文。")
        return "\n".join(lines), True

    @staticmethod
    def _hit_title(hit: Hit, current_id: str) -> str:
        record = hit.record
        ref = f"r{record.sequence}"
        if record.session_id == current_id:
            return f"id {ref} · 本会话 · {record.label}"
        day = datetime.fromtimestamp(record.timestamp / 1000).strftime("%Y-%m-%d %H:%M")
        return f"id {record.session_id}:{ref} · {day} 的会话 · {record.label}"

    def _record_tokens(self, record: Record) -> list[str]:
        """Tokens of one message, segmented once per process (jieba is the slow part of a query)."""
        key = (record.session_id, record.sequence)
        with self._lock:
            known = self._tokens.get(key)
        if known is None:
            known = self.tokens(indexed_text(record))
            with self._lock:
                self._tokens[key] = known
        return known

    def _records(self, path: Path) -> list[Record]:
        """A ledger's records, read again only when the file changed (the running session's grows)."""
        try:
            stat = path.stat()
        except OSError:
            return []
        key = (str(path), stat.st_size, stat.st_mtime_ns)
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None:
            return cached
        records = read_records(path)
        with self._lock:
            for old in [k for k in self._cache if k[0] == key[0]]:
                del self._cache[old]
            self._cache[key] = records
        return records


def _before_this_turn(records: list[Record]) -> list[Record]:
    """The running turn (its request, its calls) is in the context already: not worth a hit."""
    for index in range(len(records) - 1, -1, -1):
        record = records[index]
        if record.role == "user" and record.mode == "react" and record.actor == "agent":
            return records[:index]
    return records


def _same_root(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
