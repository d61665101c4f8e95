"""A loopback site whose text exists only after its script ran: the page fetches its words from an API and
writes them in; a button adds more words when clicked."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RENDERED = "脚本渲染的口令是 LANTERN-42"
CLICKED = "按钮已点击，第二段口令 HARBOR-7"
PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>渲染测试页</title></head>
<body>
<h1>测试页</h1>
<p id="out">（加载中）</p>
<button id="more">显示更多</button>
<p id="after"></p>
<script>
document.getElementById('more').addEventListener('click', () => {
  document.getElementById('after').textContent = CLICKED_WORDS;
});
fetch('/api/words').then((r) => r.json()).then((data) => {
  document.getElementById('out').textContent = data.words;
});
</script>
</body></html>
""".replace("CLICKED_WORDS", json.dumps(CLICKED, ensure_ascii=False))


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.server.paths.append(self.path)  # type: ignore[attr-defined]
        if self.path == "/away":  # to the same server under a name the user did not let through
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:{self.server.server_address[1]}/secret")
            self.end_headers()
            return
        if self.path == "/api/words":
            body, kind = json.dumps({"words": RENDERED}, ensure_ascii=False).encode(), "application/json"
        elif self.path in ("/", "/index.html"):
            body, kind = PAGE.encode(), "text/html; charset=utf-8"
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return


@contextmanager
def loopback_site(paths: list[str] | None = None) -> Iterator[str]:
    """The site's base URL (http://127.0.0.1:PORT/) while the block runs; `paths`: gets every path requested."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.paths = paths if paths is not None else []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
