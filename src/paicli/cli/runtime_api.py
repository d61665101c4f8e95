"""The Runtime API's HTTP side (`paicli serve --http`): routes, the key check, JSON in and out, SSE.

Standard library `http.server`: a handful of JSON routes and one event stream need no framework, and nothing
new is installed. Every route but `GET /v1/health` needs the key."""

from __future__ import annotations

import hmac
import json
import re
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from paicli import __version__
from paicli.cli.approval_desk import ANSWERS, APPROVAL_POLICIES
from paicli.cli.headless import SessionBusy, UnknownSession
from paicli.cli.runtime_runs import Run, RunRegistry, RunRequest
from paicli.config.env import ConfigError
from paicli.config.modes import RUN_MODES

MAX_BODY = 1 << 20
_RUN = re.compile(r"^/v1/runs/([A-Za-z0-9-]+)$")
_CANCEL = re.compile(r"^/v1/runs/([A-Za-z0-9-]+)/cancel$")
_APPROVAL = re.compile(r"^/v1/runs/([A-Za-z0-9-]+)/approvals/([A-Za-z0-9-]+)$")


class BadRequest(Exception):
    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


class RuntimeServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], registry: RunRegistry, api_key: str) -> None:
        super().__init__(address, RuntimeHandler)
        self.registry = registry
        self.api_key = api_key.encode("utf-8")


def key_matches(expected: bytes, headers: Any) -> bool:
    """`Authorization: Bearer <key>` or `X-PaiCLI-API-Key: <key>`, compared in constant time."""
    offered = headers.get("X-PaiCLI-API-Key")
    if offered is None:
        auth = headers.get("Authorization") or ""
        scheme, _, token = auth.partition(" ")
        offered = token.strip() if scheme.lower() == "bearer" else ""
    return hmac.compare_digest(offered.encode("utf-8", "replace"), expected)


def parse_run_request(body: Any) -> RunRequest:
    if not isinstance(body, dict):
        raise BadRequest(HTTPStatus.BAD_REQUEST, "请求体必须是 JSON 对象")
    prompt = body.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise BadRequest(HTTPStatus.BAD_REQUEST, "prompt 必须是非空字符串")
    session_id = body.get("session_id")
    if session_id is not None and not isinstance(session_id, str):
        raise BadRequest(HTTPStatus.BAD_REQUEST, "session_id 必须是字符串")
    mode = body.get("mode", "react")
    if mode not in RUN_MODES:
        raise BadRequest(HTTPStatus.BAD_REQUEST, f"mode 只能是 {'、'.join(RUN_MODES)}")
    approvals = body.get("approval_policy", "deny")
    if approvals not in APPROVAL_POLICIES:
        raise BadRequest(HTTPStatus.BAD_REQUEST, f"approval_policy 只能是 {'、'.join(APPROVAL_POLICIES)}")
    for flag in ("stream", "wait"):
        if not isinstance(body.get(flag, flag == "wait"), bool):
            raise BadRequest(HTTPStatus.BAD_REQUEST, f"{flag} 必须是布尔值")
    if approvals == "ask" and body.get("stream") is not True and body.get("wait", True) is True:
        raise BadRequest(
            HTTPStatus.BAD_REQUEST,
            '"approval_policy": "ask" 需要 "stream": true 或 "wait": false（否则拿不到运行 id 来回答审批）',
        )
    return RunRequest(prompt, session_id or None, mode, approvals)


class RuntimeHandler(BaseHTTPRequestHandler):
    server: RuntimeServer
    server_version = f"paicli/{__version__}"

    def log_message(self, format: str, *args: Any) -> None:  # no access log on the server's terminal
        pass

    def do_GET(self) -> None:
        if self.path == "/v1/health":
            self._json(HTTPStatus.OK, {"status": "ok", "version": __version__})
            return
        if not self._authorized():
            return
        found = _RUN.match(self.path)
        run = self.server.registry.get(found.group(1)) if found else None
        if run is None:
            self._error(HTTPStatus.NOT_FOUND, "没有这个运行" if found else "没有这个接口")
            return
        self._json(HTTPStatus.OK, run.view())

    def do_POST(self) -> None:
        if not self._authorized():
            return
        try:
            body = self._body()
            if self.path == "/v1/runs":
                self._start(body)
            elif found := _CANCEL.match(self.path):
                run = self._run(found.group(1))
                run.cancel.cancel()
                self._json(HTTPStatus.ACCEPTED, run.view())
            elif found := _APPROVAL.match(self.path):
                self._answer(self._run(found.group(1)), found.group(2), body)
            else:
                raise BadRequest(HTTPStatus.NOT_FOUND, "没有这个接口")
        except BadRequest as exc:
            self._error(exc.status, str(exc))

    def _start(self, body: Any) -> None:
        request = parse_run_request(body)
        try:
            run = self.server.registry.start(request)
        except UnknownSession as exc:
            raise BadRequest(HTTPStatus.NOT_FOUND, str(exc)) from exc
        except SessionBusy as exc:
            raise BadRequest(HTTPStatus.CONFLICT, str(exc)) from exc
        except ConfigError as exc:
            raise BadRequest(HTTPStatus.INTERNAL_SERVER_ERROR, str(exc)) from exc
        if body.get("stream"):
            self._stream(run)
        elif body.get("wait", True) is False:
            self._json(HTTPStatus.ACCEPTED, run.view())  # the client polls GET /v1/runs/{id}
        else:
            self._json(HTTPStatus.OK, {"id": run.id, **run.wait()})

    def _answer(self, run: Run, approval_id: str, body: Any) -> None:
        decision = body.get("decision") if isinstance(body, dict) else None
        if decision not in ANSWERS:
            raise BadRequest(HTTPStatus.BAD_REQUEST, f"decision 只能是 {'、'.join(ANSWERS)}")
        if not run.answer(approval_id, decision):
            raise BadRequest(HTTPStatus.NOT_FOUND, f"没有等待回答的审批 {approval_id}")
        self._json(HTTPStatus.OK, {"id": run.id, "approval_id": approval_id, "decision": decision})

    def _stream(self, run: Run) -> None:
        """`text/event-stream`: one `data:` per stream-json line, a `run` line first (the ids to cancel or answer
        with), the result record last; the body ends with the connection."""
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            self._event({"type": "run", "id": run.id, "session_id": run.session_id})
            seen = 0
            while True:
                lines, record = run.lines_after(seen)
                for line in lines:
                    self._event(line)
                seen += len(lines)
                if record is not None and not lines:
                    self._event({"id": run.id, **record})
                    return
        except OSError:  # the client went away: the run goes on, GET /v1/runs/{id} has its result
            return

    def _event(self, obj: dict[str, Any]) -> None:
        self.wfile.write(b"data: " + json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n\n")
        self.wfile.flush()

    def _run(self, run_id: str) -> Run:
        run = self.server.registry.get(run_id)
        if run is None:
            raise BadRequest(HTTPStatus.NOT_FOUND, "没有这个运行")
        return run

    def _authorized(self) -> bool:
        if key_matches(self.server.api_key, self.headers):
            return True
        self._error(
            HTTPStatus.UNAUTHORIZED, "缺少或错误的 API Key（Authorization: Bearer <key> 或 X-PaiCLI-API-Key）"
        )
        return False

    def _body(self) -> Any:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError as exc:
            raise BadRequest(HTTPStatus.BAD_REQUEST, "Content-Length 无效") from exc
        if length > MAX_BODY:
            raise BadRequest(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"请求体超过 {MAX_BODY} 字节")
        raw = self.rfile.read(length) if length > 0 else b""
        if not raw:
            return {}
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise BadRequest(HTTPStatus.BAD_REQUEST, f"请求体不是有效的 JSON: {exc}") from exc

    def _json(self, status: HTTPStatus, payload: Any) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: HTTPStatus, message: str) -> None:
        self._json(status, {"error": {"status": int(status), "message": message}})
