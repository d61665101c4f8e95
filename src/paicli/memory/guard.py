"""The external-content guard for long-term memory (spec 5.5-5.6).

Once a session has read web pages, MCP results or fetched URLs with curl, nothing may be written to long-term
memory automatically: a page could carry instructions dressed up as user preferences. Wider than that, every
kind of text the model read that the user did not write (repository files, command output, `@file` and stdin
attachments, and the external sources) is recorded too: after it, a memory the model saves needs a person.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.parse
from collections.abc import Sequence
from typing import Protocol

from paicli.config import knobs
from paicli.lazyre import lazy_pattern

MAX_SOURCES = 8
CURL_SOURCE = "execute_command(curl/wget)"
MCP_RESOURCE_SOURCE = "mcp_resource_mention"
FILE_MENTION_KIND = "@ 引用的文件"
STDIN_KIND = "标准输入"
MCP_RESOURCE_KIND = "MCP 资源"
# the markers cli/mentions.py and the turn runner put before attached file and stdin text
_FILE_MENTION_MARK = '用户通过 @ 引用的文件内容：\n<file path="'
_STDIN_MARK = "以下是通过标准输入传入的内容："

_NETWORK_COMMAND = lazy_pattern(r"(?i)(?:^|[;&|\s])(?:curl|wget|httpie|lynx)(?:$|\s)")

# The reference's code list plus the article's paraphrase "保存到记忆".
EXPLICIT_MEMORY_PHRASES: tuple[str, ...] = (
    "记一下",
    "记住",
    "记下来",
    "以后记得",
    "下次记得",
    "保存这个偏好",
    "保存到长期记忆",
    "保存到记忆",
)


def explicit_memory_requested(text: str | None) -> bool:
    """True when the user's own words ask for something to be remembered."""
    if not text:
        return False
    return any(phrase in text for phrase in EXPLICIT_MEMORY_PHRASES)


_LATIN_TERM = lazy_pattern(r"[a-z0-9][a-z0-9._/-]*")
_HAN_RUN = lazy_pattern(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
GROUNDED_SHARE = 4  # at least a quarter of a fact's terms must be the user's own words


def _terms(text: str) -> set[str]:
    """Latin words and numbers, and Han character pairs (a lone Han character stands for itself)."""
    lowered = (text or "").lower()
    terms = {w.strip("._/-") for w in _LATIN_TERM().findall(lowered)} - {""}
    for run in _HAN_RUN().findall(lowered):
        terms.update(run[i : i + 2] for i in range(max(1, len(run) - 1)))
    return terms


def grounded_in(fact: str, user_words: str) -> bool:
    """Whether a fact the model wants to save restates the user's own words (`记住：以后用 tab 缩进` ->
    `项目用 tab 缩进`) rather than something from elsewhere: the user's 记住 covers only what they said."""
    terms = _terms(fact)
    return bool(terms) and len(terms & _terms(user_words)) * GROUNDED_SHARE >= len(terms)


def command_of(args_json: str | None) -> str:
    """The `command` argument of an execute_command call, or the raw text when it does not parse."""
    raw = args_json or ""
    try:
        parsed = json.loads(raw)
    except (ValueError, TypeError):
        return raw.strip()
    if isinstance(parsed, dict):
        command = parsed.get("command")
        return command if isinstance(command, str) else ""
    return raw.strip()


def is_network_command(command: str) -> bool:
    return bool(_NETWORK_COMMAND().search(command or ""))


class ExternalContextTracker:
    """Session-wide record of where external content came from (at most 8 distinct sources, in order)."""

    def __init__(self, *, guard_enabled: bool = knobs.MEMORY_DISABLE_ON_EXTERNAL_CONTEXT.default) -> None:
        self._guard_enabled = guard_enabled
        self._sources: list[str] = []
        # every kind of text read that the user did not write (external, repository, attachments)
        self._read: list[str] = []
        self._lock = threading.Lock()

    @property
    def guard_enabled(self) -> bool:
        return self._guard_enabled

    def observe(
        self,
        tool_name: str,
        args_json: str | None = None,
        *,
        external: bool,
        runs_command: bool = False,
        reads_project: bool = False,
        brought_content: bool = True,
        kind: str = "",
    ) -> bool:
        """Record a tool call that brings outside content in. Returns True when the call counted as external.
        What a tool is comes from its spec: `external` (web, MCP), `runs_command` (a curl in a command),
        `reads_project` (repository text: untrusted, not external); `kind` says in words what was read.
        `brought_content` False: the result is paicli's own words only (a search that failed): nothing read."""
        if not brought_content:
            return False
        name = (tool_name or "").strip()
        counted = external or (runs_command and is_network_command(command_of(args_json)))
        if counted:
            self.mark(name.lower() if external else CURL_SOURCE, kind)
        elif reads_project:
            self.mark_read(kind or name.lower())
        return counted

    def observe_user_input(self, expanded_text: str) -> bool:
        """An `@server:` MCP resource expanded into the user's input is external content too; an attached
        `@file` or piped stdin is untrusted text."""
        text = expanded_text or ""
        if _FILE_MENTION_MARK in text:
            self.mark_read(FILE_MENTION_KIND)
        if _STDIN_MARK in text:
            self.mark_read(STDIN_KIND)
        if '<resource server="' in text:
            self.mark(MCP_RESOURCE_SOURCE, MCP_RESOURCE_KIND)
            return True
        return False

    def mark(self, source: str, kind: str = "") -> None:
        """An external source (the memory metadata's tool names); also read content of `kind` (default: its name)."""
        source = (source or "").strip()
        if not source:
            return
        with self._lock:
            if source not in self._sources and len(self._sources) < MAX_SOURCES:
                self._sources.append(source)
        self.mark_read(kind or source)

    def mark_read(self, kind: str) -> None:
        kind = (kind or "").strip()
        with self._lock:
            if kind and kind not in self._read and len(self._read) < MAX_SOURCES:
                self._read.append(kind)

    def read_kinds(self) -> list[str]:
        """What the model read this session that the user did not write, in words (`仓库文件`, `网页`)."""
        with self._lock:
            return list(self._read)

    def sources(self) -> list[str]:
        with self._lock:
            return list(self._sources)

    def has_external(self) -> bool:
        with self._lock:
            return bool(self._sources)

    def blocks_automatic_memory(self) -> bool:
        return self._guard_enabled and self.has_external()

    def reset(self) -> None:
        with self._lock:
            self._sources.clear()
            self._read.clear()


# ---- ExplicitMemoryHints (spec 5.7) ------------------------------------------------------------------

_BROWSER_WORDS = ("chrome", "浏览器")
_LOGIN_WORDS = ("登录态", "已登录", "登录好的", "复用", "直接用", "连接")
_HINT_URL = lazy_pattern(r"https?://[^\s<>\"'`，。；、！？）)】》]+", re.IGNORECASE)
YUQUE_FACT = "访问 yuque.com（语雀）时优先复用用户已登录的 Chrome 登录态。"
NO_HOST_FACT = "用户明确允许在需要登录态的网站访问中复用已登录 Chrome。"


def browser_login_fact(user_input: str, recent_texts: Sequence[str] = ()) -> str | None:
    """The fact to remember when the user explicitly asks to reuse their logged-in Chrome, else None."""
    text = user_input or ""
    if not explicit_memory_requested(text):
        return None
    lowered = text.lower()
    if not any(word in lowered for word in _BROWSER_WORDS) or not any(word in text for word in _LOGIN_WORDS):
        return None
    host = _last_host([*recent_texts, text])
    if host is None and any(word in t.lower() for t in [*recent_texts, text] for word in ("yuque", "语雀")):
        host = "yuque.com"
    if host is None:
        return NO_HOST_FACT
    if host == "yuque.com":
        return YUQUE_FACT
    return f"访问 {host} 时优先复用用户已登录的 Chrome 登录态。"


def _last_host(texts: Sequence[str]) -> str | None:
    host: str | None = None
    for text in texts:
        for url in _HINT_URL().findall(text or ""):
            found = urllib.parse.urlsplit(url.rstrip(".,;:!?")).hostname
            if found:
                host = found.lower().removeprefix("www.")
    return host


class FactStore(Protocol):
    def store_fact(self, fact: str, scope: str | None = "project") -> object: ...


def apply_explicit_memory_hints(
    store: FactStore, tracker: ExternalContextTracker, user_input: str, recent_texts: Sequence[str] = ()
) -> str | None:
    """Before the model call (ReAct): save the browser-login preference globally unless external content was
    read in this session. Returns the saved fact, or None."""
    fact = browser_login_fact(user_input, recent_texts)
    if fact is None or tracker.blocks_automatic_memory():
        return None
    result = store.store_fact(fact, "global")
    return fact if getattr(result, "written", False) else None
