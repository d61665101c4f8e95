import os
from pathlib import Path

import tomllib

DEFAULTS = {"port": 8080, "db_url": "sqlite:///shop.db", "log_level": "info"}


def load_config(path: Path) -> dict[str, object]:
    """Read settings from a TOML file; SHOP_* environment variables override them."""
    settings = dict(DEFAULTS)
    if path.exists():
        settings.update(tomllib.loads(path.read_text()))
    for key in settings:
        override = os.environ.get("SHOP_" + key.upper())
        if override is not None:
            settings[key] = override
    return settings
