"""A REPL line's path to the request: the paicli frames between a piped REPL line and the openai SDK's
`create` call (issue 41 acceptance: shorter than ~22 frames in 13 files at 862ef6a).

Run from the repository root: python -m evals.bench_path [--show]
The real session (the composition root over a loopback fake server) reads one piped line; at the moment the
SDK's `Completions.create` (or its client's `post`, which llm/wire.py uses) is entered (on the request's streaming thread), the stacks of the REPL (main)
thread, the task thread and the streaming thread are taken. Counted: frames whose code is in the installed `paicli` package (its shipped test
fakes excluded), from the REPL's line loop (`run_piped`) down; `--show` lists them.
"""

from __future__ import annotations

import argparse
import io
import sys
import threading
from pathlib import Path
from tempfile import TemporaryDirectory
from types import FrameType
from typing import Any

import paicli
from paicli.config.parsed import ParsedConfig
from paicli.testing.openai_server import FakeOpenAIServer

PACKAGE = Path(paicli.__file__).parent
TESTING = PACKAGE / "testing"
START = "run_piped"  # the REPL's line loop: the path starts below it


def _ours(frame: FrameType) -> bool:
    path = Path(frame.f_code.co_filename)
    return path.is_relative_to(PACKAGE) and not path.is_relative_to(TESTING)


def _chain(frame: FrameType | None) -> list[FrameType]:
    """Outermost first."""
    frames: list[FrameType] = []
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    return frames[::-1]


def _label(frame: FrameType) -> str:
    path = Path(frame.f_code.co_filename).relative_to(PACKAGE)
    return f"{path}:{frame.f_code.co_name}"


def _sdk_request(frame: FrameType) -> bool:
    """The SDK's `Completions.create`, or its client's `post` (llm/wire.py sends the prepared body that way)."""
    name, where = frame.f_code.co_name, Path(frame.f_code.co_filename)
    if "openai" not in where.parts:
        return False
    return (name == "create" and "chat" in where.parts) or (
        name == "post" and where.name == "_base_client.py"
    )


class _Catch:
    def __init__(self, main: int) -> None:
        self.main = main
        self.worker: list[str] | None = None
        self.repl: list[str] | None = None

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if self.worker is not None or event != "call" or not _sdk_request(frame):
            return
        stacks = sys._current_frames()
        by_name = {thread.name: thread.ident for thread in threading.enumerate()}
        task = stacks.get(by_name.get("paicli-task", -1))
        self.worker = [_label(f) for f in _chain(task) if _ours(f)]
        self.worker += [_label(f) for f in _chain(frame) if _ours(f)]
        frames = _chain(stacks.get(self.main))
        names = [f.f_code.co_name for f in frames]
        below = frames[names.index(START) + 1 :] if START in names else frames
        self.repl = [_label(f) for f in below if _ours(f)]


def measure() -> tuple[list[str], list[str]]:
    from paicli.cli.app_backend import AppBackend
    from paicli.cli.compose import build_components
    from paicli.cli.repl import run_repl
    from paicli.config.env import EnvLookup
    from paicli.config.settings import load_settings
    from paicli.tools.approval import AutoApprover

    catch = _Catch(threading.get_ident())
    with TemporaryDirectory() as tmp, FakeOpenAIServer() as server:
        server.push("好的。")
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        env = EnvLookup(
            environ={
                "HOME": tmp,
                "PAICLI_HOME": str(root / ".paicli"),
                "PAICLI_BASE_URL": server.base_url,
                "PAICLI_MODEL": "fake-model",
                "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "false",
                "PAICLI_LOCAL_PORTS": "off",
            },
            cwd=project,
        )
        parts = build_components(
            load_settings(env, cwd=project), ParsedConfig.read(env), AutoApprover(), yes=True
        )
        backend = AppBackend(parts)
        threading.setprofile(catch)
        try:
            run_repl(
                backend,
                input=io.StringIO("你好\n"),
                output=io.StringIO(),
                progress=_quiet_console(),
                interactive=False,
                history_file=root / "history",
            )
        finally:
            threading.setprofile(None)  # type: ignore[arg-type]
    if catch.worker is None or catch.repl is None:
        raise SystemExit("the SDK's create was never called")
    return catch.repl, catch.worker


def _quiet_console() -> Any:
    from rich.console import Console

    return Console(file=io.StringIO())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="list the frames")
    args = parser.parse_args()
    repl, worker = measure()
    frames = repl + worker
    files = {label.split(":")[0] for label in frames}
    print(f"REPL thread: {len(repl)} frames; task and streaming threads: {len(worker)} frames")
    print(f"a REPL line's path to the request: {len(frames)} frames in {len(files)} files")
    if args.show:
        for label in frames:
            print("  " + label)


if __name__ == "__main__":
    main()
