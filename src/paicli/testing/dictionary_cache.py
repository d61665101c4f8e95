"""jieba's dictionary caches built once per machine and linked into a test's paicli home.

A paicli process whose home has stored memories segments text with jieba. In a fresh home the first such
process builds `jieba.cache` from jieba's bundled dictionary and then writes the prefix file (about 1.5 s of
CPU together); a suite that gives every test a fresh home would pay that in every test that saves a memory.
`seed_dictionary_cache` hard-links both files, built once by a separate process into a folder named after
the jieba release and dictionary, into `<paicli home>/cache/`: exactly what a home holds after its first load.
Both files are only ever replaced whole (jieba renames a new cache over the old one; `prefix_dict.write`
does the same), so a home that rebuilds them never alters the shared copy.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from paicli.testing.isolated_env import ISOLATED_PREFIXES

FILES = ("jieba.cache", "jieba-prefix.sqlite3")
_BUILD = (
    "from paicli.memory.tokenize import segment, wait_for_prefix_file\n"
    "segment('预热词典')\n"
    "assert wait_for_prefix_file(300), 'the prefix file was not written'\n"
)


def _source_stamp() -> str:
    """The jieba release and its bundled dictionary's size and time, without importing jieba here."""
    import importlib.util

    spec = importlib.util.find_spec("jieba")
    if spec is None or spec.origin is None:
        raise RuntimeError("jieba is not installed")
    dictionary = Path(spec.origin).parent / "dict.txt"
    stat = dictionary.stat()
    return f"{spec.origin} {stat.st_size} {stat.st_mtime_ns}"


def _shared_folder() -> Path:
    stamp = hashlib.sha256(_source_stamp().encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"paicli-test-dictionary-{os.getuid()}" / stamp


def _build(folder: Path) -> None:
    """Let a separate paicli process load the dictionary the usual way in a scratch home, then keep its files."""
    scratch = Path(tempfile.mkdtemp(prefix="build-", dir=folder.parent))
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith(ISOLATED_PREFIXES)}
        env.update({"HOME": str(scratch), "PAICLI_HOME": str(scratch / ".paicli")})
        subprocess.run([sys.executable, "-c", _BUILD], env=env, check=True, capture_output=True, timeout=600)
        built = scratch / ".paicli" / "cache"
        for name in FILES:
            if not (built / name).is_file():
                raise RuntimeError(f"building the dictionary cache left no {name}")
        os.replace(built, folder)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def prebuilt_dictionary() -> Path:
    """The shared folder holding FILES, built on first use (one builder at a time across processes)."""
    folder = _shared_folder()
    if all((folder / name).is_file() for name in FILES):
        return folder
    folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with open(folder.parent / ".lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not all((folder / name).is_file() for name in FILES):
                shutil.rmtree(folder, ignore_errors=True)
                _build(folder)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return folder


def seed_dictionary_cache(paicli_home: Path) -> None:
    """Link the prebuilt caches into `<paicli_home>/cache/` (copies where links cannot be made); files already
    there are left alone."""
    source = prebuilt_dictionary()
    cache = paicli_home / "cache"
    cache.mkdir(mode=0o700, parents=True, exist_ok=True)
    for name in FILES:
        target = cache / name
        if target.exists():
            continue
        try:
            os.link(source / name, target)
        except OSError:
            with contextlib.suppress(FileExistsError):
                shutil.copy2(source / name, target)
