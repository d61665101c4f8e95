"""A session's browser: found, gated and registered once by the composition root; closed with the session."""

from __future__ import annotations

from collections.abc import Callable

from paicli.browser.driver import BrowserDriver
from paicli.browser.find import find_browser
from paicli.browser.gate import PageGate
from paicli.browser.tools import BrowserTools
from paicli.config.browser_values import BrowserValues
from paicli.config.env import process_environ
from paicli.tools.sandbox.environ import sandbox_env


def build_browser(values: BrowserValues, keys: Callable[[], tuple[str, ...]]) -> BrowserTools:
    """Nothing starts here: the browser launches at its first use. Its environment is the allow-list a command
    nobody approved gets (PATH, HOME, locale …), so no key of paicli's reaches it under any name."""
    environ = process_environ()
    executable = find_browser(values.program, environ)
    gate = PageGate(frozenset(host.strip("[]") for host in values.allow_hosts))
    driver = BrowserDriver(executable, sandbox_env(environ, (), keys()), gate)
    return BrowserTools(driver, gate, values.debug_address)
