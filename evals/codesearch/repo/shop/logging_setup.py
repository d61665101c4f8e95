import logging
from logging.handlers import RotatingFileHandler


def configure_logging(level: str, path: str = "shop.log") -> None:
    """Log to a file that rotates at 10 MB, keeping five old files."""
    handler = RotatingFileHandler(path, maxBytes=10 * 1024 * 1024, backupCount=5)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.setLevel(level.upper())
    root.addHandler(handler)
