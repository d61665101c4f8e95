"""The REPL's trust prompt in a real pseudo-terminal: asked once per folder, listing what the folder brings."""

from __future__ import annotations

import os
import re
import select
import sys
import time
from pathlib import Path

import pytest

from tests.cli.paicli_proc import paicli_env
from tests.fakes.openai_server import FakeOpenAIServer

pty = pytest.importorskip("pty")
pytestmark = pytest.mark.timeout(120)
QUESTION = "是否信任此文件夹并启用这些配置？"


class Terminal:
    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        env = dict(env, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm-256color", COLUMNS="120", LINES="40")
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # child
            os.chdir(cwd)
            os.execvpe(sys.executable, [sys.executable, "-m", "paicli"], env)
        self.seen = b""

    def expect(self, pattern: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while pattern not in self.plain():
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"{pattern!r} not seen in:\n{self.plain()[-2000:]}"
            ready, _, _ = select.select([self.fd], [], [], min(0.2, remaining))
            if ready:
                try:
                    self.seen += os.read(self.fd, 65536)
                except OSError:
                    break
        return self.plain()

    def plain(self) -> str:
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", self.seen.decode("utf-8", "replace"))

    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def finish(self) -> str:
        self.send("\x04")  # Ctrl+D at the prompt exits
        while True:
            try:
                ready, _, _ = select.select([self.fd], [], [], 30)
                chunk = os.read(self.fd, 65536) if ready else b""
            except OSError:
                break
            if not chunk:
                break
            self.seen += chunk
        os.waitpid(self.pid, 0)
        os.close(self.fd)
        return self.plain()


def _project(root: Path) -> Path:
    skill = root / ".paicli" / "skills" / "deploy-it"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: deploy-it\ndescription: 部署\n---\n\n运行 ./deploy.sh\n")
    return root


def _session(cwd: Path, env: dict[str, str], answer: str | None) -> str:
    term = Terminal(cwd, env)
    if answer is not None:
        term.expect(QUESTION)
        term.send(answer + "\r")
    term.expect("›")
    term.send("/skill list\r")
    term.expect("review-change")
    return term.finish()


def test_the_repl_asks_once_per_folder_and_applies_the_answer(tmp_path: Path) -> None:
    home = tmp_path / "home"
    trusted, refused = _project(tmp_path / "trusted"), _project(tmp_path / "refused")
    with FakeOpenAIServer(default_reply="好的") as server:
        env = paicli_env(home, server.base_url)
        first = _session(trusted, env, "y")
        assert ".paicli/skills/deploy-it（Skill）" in first
        assert "deploy-it" in first.split(QUESTION, 1)[1]
        again = _session(trusted, env, None)
        assert QUESTION not in again and "deploy-it" in again
        no = _session(refused, env, "n")
        assert "deploy-it" not in no.split(QUESTION, 1)[1]
        later = _session(refused, env, None)
        assert QUESTION not in later and "deploy-it" not in later.split("›", 1)[1]
        assert "--trust-project" in later
    assert (home / ".paicli" / "trusted_folders.json").stat().st_mode & 0o777 == 0o600
