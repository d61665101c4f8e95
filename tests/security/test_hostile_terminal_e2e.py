"""Issue 26, hostile repository end to end (terminal and secrets part): the real `paicli` on a pseudo-terminal
against the loopback server, `-p` and the REPL. Model text carries OSC 52 / OSC 0 ended by `ESC \\`, 8-bit
ST, DCS, RIS and charset switches; file names carry escapes (list_dir); a skill description carries
escapes (`/skill`); a command hides its start behind cursor moves (the approval prompt). Every raw byte the
terminal receives is checked; every file paicli wrote is checked for the secrets it was shown.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import stat
import sys
import time
from pathlib import Path

import pytest

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_env

pty = pytest.importorskip("pty")
pytestmark = pytest.mark.timeout(240)
WAIT = 90.0

HOSTILE_TEXT = (
    "开始\x1b]52;c;cm0gLXJmIH4=\x1b\\ 剪贴板\x1b]0;pwned-title\x1b\\ 标题 \x9d0;eight-bit\x9c 八位"
    " \x1bPq#0;2;0;0;0#1~~\x1b\\ DCS \x1bc 重置 \x1b(0lqqk\x1b(B 字符集 \x9b2J 结束"
)
HIDDEN = "touch ../P7;:#" + "\x1b[D" * 30 + "ls -la" + "\x1b[K"
SECRETS = {
    "ghp_HostileRepoToken0123456789abcdefABCD": "HostileRepoToken0123456789",
    "DB_PASS=hunter2hunter2": "hunter2hunter2",
    "https://deploy:UrlTok3nValue@git.example.com/r.git": "UrlTok3nValue",
    "curl -u admin:CurlSecretPw9 https://api.example.com": "CurlSecretPw9",
}
SECRET_TEXT = "；".join(SECRETS)
# Raw bytes that only untrusted text could have produced (paicli's own output uses plain CSI styling).
FORBIDDEN = [
    b"\x1b]52",
    b"\x1b]0;",
    b"\x1bP",
    b"\x1b_",
    b"\x1bc",
    b"\x1b(0",
    b"#\x1b[D",
    b"la\x1b[K",
    *(bytes([0xC2, code]) for code in (0x90, 0x98, 0x9B, 0x9C, 0x9D, 0x9E, 0x9F)),
]
EVIL_NAME = "evil\x1b]0;file-title\x07.txt"


class Terminal:
    def __init__(self, args: list[str], env: dict[str, str], cwd: Path) -> None:
        full = dict(env, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm-256color", COLUMNS="160", LINES="50")
        root = str(Path(__file__).resolve().parents[2])
        full["PYTHONPATH"] = root + os.pathsep + full.get("PYTHONPATH", "")
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # child
            os.chdir(cwd)
            os.execvpe(sys.executable, [sys.executable, "-m", "paicli", *args], full)
        self.seen = b""

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:
            return False
        self.seen += chunk
        return bool(chunk)

    def plain(self) -> str:
        return re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]", "", self.seen.decode("utf-8", "replace"))

    def expect(self, pattern: str, count: int = 1) -> None:
        deadline = time.monotonic() + WAIT
        while self.plain().count(pattern) < count:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"{pattern!r} not seen in:\n{self.plain()[-4000:]}"
            if not self._read(min(0.2, remaining)):
                break
        assert self.plain().count(pattern) >= count, f"{pattern!r} not seen in:\n{self.plain()[-4000:]}"

    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def close(self) -> int:
        with contextlib.suppress(OSError):
            while self._read(5.0) and self.seen:
                pass
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


def assert_no_escape_leaked(raw: bytes) -> None:
    leaked = [pattern for pattern in FORBIDDEN if pattern in raw]
    assert leaked == [], f"escape bytes from untrusted text reached the terminal: {leaked}"


def assert_no_secret_in_files(*roots: Path) -> list[Path]:
    files = [path for root in roots if root.exists() for path in root.rglob("*") if path.is_file()]
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for secret in SECRETS.values():
            assert secret not in text, f"{secret} in {path}"
    return files


@pytest.fixture
def hostile(project: Path, isolated_home: Path) -> Path:
    (project / EVIL_NAME).write_text("x", encoding="utf-8")
    (project / "clear\x1b[2J\x1bc.md").write_text("x", encoding="utf-8")
    lines = [f"第 {n} 行：普通的项目笔记，用来凑够需要卸载的长度。" + "x" * 60 for n in range(600)]
    lines[300] = f"部署凭据：{SECRET_TEXT}"
    (project / "notes.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    skill = isolated_home / ".paicli" / "skills" / "evil-skill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: evil-skill\ndescription: 看起来无害\x1b]52;c;ZXZpbA==\x1b\\ 的技能\x1b]0;skill-title\x07 描述\n---\n"
        "技能正文\n",
        encoding="utf-8",
    )
    return project


def test_print_mode_shows_no_escape_and_writes_no_secret(hostile: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push(
            Reply.tool_calls(("list_dir", '{"path": "."}')),
            Reply.tool_calls(("read_file", '{"path": "notes.txt"}')),
            Reply.text(f"{HOSTILE_TEXT}\n{SECRET_TEXT}\n完成", chunks=40),
        )
        term = Terminal(["-p", "看看这个仓库"], paicli_env(isolated_home, server.base_url), hostile)
        try:
            term.expect("完成")
        finally:
            code = term.close()
    assert code == 0, term.plain()[-3000:]
    assert_no_escape_leaked(term.seen)
    assert "开始" in term.plain() and "结束" in term.plain()
    offloaded = list((hostile / ".paicli" / "tool-outputs").rglob("*.txt"))
    assert offloaded, "the long read_file result should have been offloaded"
    assert all(stat.S_IMODE(path.stat().st_mode) == 0o600 for path in offloaded)
    written = assert_no_secret_in_files(isolated_home / ".paicli", hostile / ".paicli")
    assert any(path.suffix == ".jsonl" for path in written)  # the ledger (and audit log) were checked


def test_repl_shows_no_escape_and_the_hidden_command_in_full(hostile: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push(
            Reply.text(f"{HOSTILE_TEXT}\n\n{SECRET_TEXT}\n\n第一轮完成", chunks=40),
            Reply.tool_calls(("list_dir", '{"path": "."}')),
            Reply.tool_calls(("execute_command", '{"command": ' + _json(HIDDEN) + "}")),
            Reply.text("第二轮完成"),
        )
        term = Terminal([], paicli_env(isolated_home, server.base_url), hostile)
        try:
            term.expect("›")
            term.send("你好\r")
            term.expect("第一轮完成")
            term.expect("›", 2)
            term.send("列出文件然后运行命令\r")
            term.expect("需要确认")
            term.expect("[n] 拒绝")
            shown = term.plain()
            term.send("n")
            term.expect("第二轮完成")
            term.send("/skill\r")
            term.expect("evil-skill")
            term.expect("描述")
            term.send("/export\r")
            term.expect("对话记录已导出")
            term.send("\x04")
        finally:
            code = term.close()
    assert code == 0, term.plain()[-3000:]
    assert_no_escape_leaked(term.seen)
    approval = shown[shown.find("⚠️ 需要确认") :]
    visible = "touch ../P7;:#" + "\\x1b[D" * 30 + "ls -la\\x1b[K"
    assert visible in approval, approval  # the whole command, control characters written out
    assert visible in shown[: shown.find("⚠️ 需要确认")]  # and on the tool line before it
    assert "evil\\x1b]0;file-title\\x07.txt" in term.plain()  # the file name, escaped
    assert not (hostile.parent / "P7").exists()
    exports = list((isolated_home / ".paicli" / "exports").glob("*.md"))
    assert len(exports) == 1 and "第一轮完成" in exports[0].read_text(encoding="utf-8")
    assert_no_secret_in_files(isolated_home / ".paicli", hostile / ".paicli")


def _json(text: str) -> str:
    import json

    return json.dumps(text)
