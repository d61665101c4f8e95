"""A small MCP server written with the official SDK, for tests: stdio by default, `--http PORT` for streamable
HTTP. `--marker FILE` writes FILE when the server starts (tests prove a server was, or was not, started);
`--stderr-line TEXT` and `--stderr-env NAME` print to stderr at start (what a chatty server logs)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

app = MCPServer("paicli-test")


# a claim paicli must not trust: it still asks before calling `add`
@app.tool(annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False))
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


@app.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return f"echo: {text}"


@app.tool(annotations=ToolAnnotations(destructiveHint=True))
def crash() -> str:
    """End the server process at once (a crashing server)."""
    os._exit(3)


@app.tool()
def slow(seconds: float) -> str:
    """Sleep, then answer (a hanging server)."""
    time.sleep(seconds)
    return "done"


@app.resource("demo://readme")
def readme() -> str:
    """The project readme."""
    return "resource body: hello from MCP"


@app.prompt()
def greet(name: str) -> str:
    """Greet someone."""
    return f"hi {name}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    parser.add_argument("--marker")
    parser.add_argument("--stderr-line", action="append", default=[])  # printed to stderr at start
    parser.add_argument("--stderr-env", action="append", default=[])  # NAME=value of these, to stderr
    args = parser.parse_args()
    for line in args.stderr_line:
        print(line, file=sys.stderr, flush=True)
    for name in args.stderr_env:
        print(f"{name}={os.environ.get(name, '')}", file=sys.stderr, flush=True)
    if args.marker:
        Path(args.marker).write_text(str(os.getpid()), encoding="utf-8")
    if args.http:
        app.run(transport="streamable-http", host="127.0.0.1", port=args.http)
    else:
        app.run()


if __name__ == "__main__":
    main()
