"""Which endpoints are a server the user runs (cheap to import: start-up asks it)."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def is_local_endpoint(base_url: str) -> bool:
    """Loopback, a private network address or a `.local` name: a server the user runs, not a cloud API."""
    host = (urlsplit(base_url).hostname or "").lower()
    if host == "localhost" or host.endswith((".local", ".localhost")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local
