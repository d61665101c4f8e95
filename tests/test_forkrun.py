"""The suite's forked paicli runs (paicli.testing.forkrun) give what a fresh `python -m paicli` gives: the same
exit code, stdout and stderr for a usage error, a piped task, a failing task and a piped REPL, with the run's own
environment, folder and stdin."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from paicli.testing import forkrun
from paicli.testing.openai_server import FakeOpenAIServer
from paicli.testing.proc import paicli_command, paicli_env

pytestmark = pytest.mark.e2e


def fresh(
    args: list[str], env: dict[str, str], cwd: Path, stdin: str | None
) -> subprocess.CompletedProcess[str]:
    streams = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
    return subprocess.run(
        paicli_command(args), env=env, cwd=cwd, capture_output=True, text=True, timeout=120, **streams
    )


def forked(
    args: list[str], env: dict[str, str], cwd: Path, stdin: str | None
) -> subprocess.CompletedProcess[str]:
    return forkrun.forked_run(paicli_command(args), args, env, cwd, stdin, 120)


CASES = [
    (["--bogus"], None),
    (["-p", ""], "从标准输入来的任务\n"),
    (["--output-format", "json"], "你好\n"),
    ([], "你好\n/nosuchcommand\n"),
]


@pytest.mark.parametrize(("args", "stdin"), CASES)
def test_a_forked_run_matches_a_fresh_interpreter(
    project: Path, isolated_home: Path, args: list[str], stdin: str | None
) -> None:
    results = []
    for run in (fresh, forked):
        home = isolated_home / run.__name__
        with FakeOpenAIServer(default_reply="好的。") as server:
            done = run(args, paicli_env(home, server.base_url), project, stdin)
            requests = server.requests
        err = re.sub(r"session-[0-9a-f-]+", "SESSION", done.stderr)  # each run's new session has its own id
        results.append((done.returncode, done.stdout, err, len(requests)))
    assert results[0] == results[1]


def test_a_forked_run_reads_its_own_environment_and_folder(project: Path, isolated_home: Path) -> None:
    (project / ".env").write_text(
        "PAICLI_MODLE=other\n", encoding="utf-8"
    )  # found only from the run's folder
    env = paicli_env(isolated_home, None, PAICLI_CONTEX_WINDOW="32000")  # and no provider at all
    done = forked(["-p", "你好"], env, project, None)
    assert done.returncode == 2, done.stderr
    assert "PAICLI_CONTEX_WINDOW" in done.stderr and "PAICLI_MODLE" in done.stderr
    assert done.stdout == ""
    assert os.getcwd() == str(project)  # the test's own folder is untouched
