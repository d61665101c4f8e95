"""The settings of the browser tools (issue 48): which program runs, which private addresses a page may reach and
which local browser is shared are the user's choice, never a repository's .env. Declared here, listed in
`knobs.ALL_KNOBS` in this order."""

from __future__ import annotations

from paicli.config.knob_types import DEFAULT_DEBUG_PORT, Knob, endpoint_parser, names, protect, text

BROWSER_TOOLS = "browser"

BROWSER = protect(
    text(
        "PAICLI_BROWSER",
        BROWSER_TOOLS,
        "the Chromium the browser tools drive (a path or a program name); default: chromium, chromium-browser "
        "or google-chrome on PATH",
    )
)
BROWSER_ALLOW_HOSTS = protect(
    names(
        "PAICLI_BROWSER_ALLOW_HOSTS",
        BROWSER_TOOLS,
        "hosts the browser tools may open although they are loopback or private addresses "
        "(e.g. 127.0.0.1,localhost); others are refused as web_fetch refuses them",
    )
)
BROWSER_DEBUG_ADDRESS = protect(
    Knob(
        "PAICLI_BROWSER_DEBUG_ADDRESS",
        BROWSER_TOOLS,
        f"http://127.0.0.1:{DEFAULT_DEBUG_PORT}",
        "DevTools address of your own browser for browser_connect and /browser connect (a port or a "
        "127.0.0.1:PORT address; start the browser with --remote-debugging-port)",
        "str",
        "port or loopback host:port",
        endpoint_parser,
    )
)

BROWSER_KNOBS: tuple[Knob[object], ...] = (BROWSER, BROWSER_ALLOW_HOSTS, BROWSER_DEBUG_ADDRESS)
