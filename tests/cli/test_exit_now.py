"""The process exit skips the interpreter's teardown but not what teardown must do: working threads finish,
atexit hooks run, buffered output reaches the stream, and the exit code is the decided one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

CHILD = """
import atexit, sys, threading, time
from paicli.cli.app import _exit_now

def work():
    time.sleep(0.3)  # still running when the exit starts
    with open(sys.argv[1], "w") as handle:
        handle.write("saved")

threading.Thread(target=work).start()
atexit.register(lambda: sys.stderr.write("hook ran\\n"))
sys.stdout.write("buffered answer")  # no newline, no flush: only the exit's flush delivers it
_exit_now(3)
"""


def test_exit_waits_for_threads_runs_hooks_and_flushes(tmp_path: Path) -> None:
    marker = tmp_path / "saved.txt"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(marker)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 3
    assert done.stdout == "buffered answer"
    assert "hook ran" in done.stderr
    assert marker.read_text() == "saved"
