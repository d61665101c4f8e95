"""Each server's last listing (tools, resources, prompts) under <paicli home>/mcp/cache/, so a session's first
request already carries the tools and stays byte-identical when the server answers the same."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paicli import fsperm
from paicli.mcp.config import ServerConfig
from paicli.mcp.naming import server_file_name


@dataclass(frozen=True)
class Listing:
    tools: tuple[dict[str, Any], ...] = ()
    resources: tuple[dict[str, Any], ...] = ()
    prompts: tuple[dict[str, Any], ...] = ()
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self, fingerprint: str) -> str:
        body = {
            "fingerprint": fingerprint,
            "tools": list(self.tools),
            "resources": list(self.resources),
            "prompts": list(self.prompts),
        }
        return json.dumps(body, ensure_ascii=False, sort_keys=True, indent=1)


class ListingCache:
    def __init__(self, home: Path) -> None:
        self.folder = home / "mcp" / "cache"

    def path(self, server: str) -> Path:
        return self.folder / f"{server_file_name(server)}.json"

    def load(self, server: ServerConfig) -> Listing | None:
        """The cached listing, or None when missing, unreadable or written for another command/url."""
        try:
            data = json.loads(self.path(server.name).read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return None
        if not isinstance(data, dict) or data.get("fingerprint") != server.fingerprint():
            return None

        def items(key: str) -> tuple[dict[str, Any], ...]:
            value = data.get(key)
            return tuple(item for item in value if isinstance(item, dict)) if isinstance(value, list) else ()

        return Listing(items("tools"), items("resources"), items("prompts"))

    def store(self, server: ServerConfig, listing: Listing) -> None:
        text = listing.to_json(server.fingerprint())
        path = self.path(server.name)
        try:
            if path.read_text(encoding="utf-8") == text:
                return
        except OSError:
            pass
        fsperm.ensure_private_dir(self.folder)
        fsperm.write_private_text(path, text)
