"""A fake language server on stdio for the LSP tests: each line holding `ERROR: text` or `WARN: text` of an opened
or changed document becomes an error or a warning diagnostic; `--env-file PATH` writes the server's environment
there as JSON at start. Framing is written here on its own (not paicli's), so the two sides check each other."""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def read(stream: Any) -> dict[str, Any] | None:
    length = 0
    while True:
        line = stream.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


def write(message: dict[str, Any]) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    sys.stdout.buffer.write(f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    sys.stdout.buffer.flush()


def diagnostics(text: str) -> list[dict[str, Any]]:
    found = []
    for number, line in enumerate(text.splitlines()):
        for marker, severity in (("ERROR:", 1), ("WARN:", 2)):
            if marker in line:
                column = line.index(marker)
                found.append(
                    {
                        "range": {
                            "start": {"line": number, "character": column},
                            "end": {"line": number, "character": len(line)},
                        },
                        "severity": severity,
                        "message": line[column + len(marker) :].strip(),
                        "source": "fake",
                    }
                )
    return found


def main() -> None:
    if "--env-file" in sys.argv:
        with open(sys.argv[sys.argv.index("--env-file") + 1], "w", encoding="utf-8") as out:
            json.dump(dict(os.environ), out)
    while (message := read(sys.stdin.buffer)) is not None:
        method = message.get("method")
        params = message.get("params") or {}
        if method == "initialize":
            write({"id": message["id"], "result": {"capabilities": {"textDocumentSync": 1}}})
        elif method == "shutdown":
            write({"id": message["id"], "result": None})
        elif method == "exit":
            return
        elif method in ("textDocument/didOpen", "textDocument/didChange"):
            document = params["textDocument"]
            text = document["text"] if method.endswith("didOpen") else params["contentChanges"][-1]["text"]
            published = {
                "uri": document["uri"],
                "version": document["version"],
                "diagnostics": diagnostics(text),
            }
            write({"method": "textDocument/publishDiagnostics", "params": published})


if __name__ == "__main__":
    main()
