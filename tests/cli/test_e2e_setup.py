"""First run without a key, end to end: `paicli` in a pseudo-terminal (the real prompt, masked key input),
`--setup`, loopback discovery only when nothing is configured, and the short exit-2 message without a terminal."""

from __future__ import annotations

import os
import re
import select
import stat
import sys
import time
from pathlib import Path

import pytest
from rich.cells import cell_len

from paicli.config.env import parse_dotenv
from paicli.testing.openai_server import FakeOpenAIServer
from paicli.testing.proc import paicli_env, run_paicli

pty = pytest.importorskip("pty")
pytestmark = pytest.mark.timeout(120)


class Terminal:
    """`python -m paicli ARGS` on a pseudo-terminal; read what it shows, type like a person."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path) -> None:
        full = dict(env, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm-256color", COLUMNS="120", LINES="40")
        root = str(Path(__file__).resolve().parents[2])
        full["PYTHONPATH"] = root + os.pathsep + full.get("PYTHONPATH", "")
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # child
            os.chdir(cwd)
            os.execvpe(sys.executable, [sys.executable, "-m", "paicli", *args], full)
        self.seen = b""
        self.mark = 0

    def plain(self) -> str:
        text = self.seen.decode("utf-8", "replace")
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][AB0-9]|\r", "", text)

    def expect(self, pattern: str, timeout: float = 60.0) -> None:
        """Wait for `pattern` after the previous match (a question asked twice must be seen twice)."""
        deadline = time.monotonic() + timeout
        while pattern not in self.plain()[self.mark :]:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"{pattern!r} not seen in:\n{self.plain()[self.mark :][-3000:]}"
            ready, _, _ = select.select([self.fd], [], [], min(0.2, remaining))
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                self.seen += chunk
        text = self.plain()
        found = text.find(pattern, self.mark)
        assert found >= 0, text[self.mark :][-3000:]
        self.mark = found + len(pattern)

    def answer(self, text: str) -> None:
        os.write(self.fd, text.encode() + b"\r")

    def finish(self) -> int:
        while True:  # drain until the child closes the terminal
            try:
                ready, _, _ = select.select([self.fd], [], [], 1.0)
                if ready:
                    chunk = os.read(self.fd, 65536)
                    if not chunk:
                        break
                    self.seen += chunk
                elif os.waitpid(self.pid, os.WNOHANG)[0]:
                    break
            except OSError:
                break
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


def test_first_run_sets_up_an_endpoint_then_the_repl_starts(project: Path, isolated_home: Path) -> None:
    # Discovery itself is tested in process with generous timeouts (test_setup_flow, tests/llm/test_probe.py);
    # here the endpoint is typed, so nothing depends on how fast a probe is answered on a loaded machine.
    with FakeOpenAIServer(models=("llama3.1:8b", "qwen2.5-coder:7b"), default_reply="你好！我在。") as local:
        env, url = paicli_env(isolated_home, None), local.base_url
        term = Terminal([], env, project)
        term.expect("欢迎使用 paicli")
        term.expect("10. 其他 OpenAI 兼容接口")
        term.expect("输入编号")
        term.answer("10")
        term.expect("接口地址")
        term.answer(url)
        term.expect("没有就直接回车")
        term.answer("")
        term.expect("2. qwen2.5-coder:7b")
        term.expect("选择模型")
        term.answer("2")
        term.expect("设置完成，使用 qwen2.5-coder:7b (paicli)")
        term.expect("qwen2.5-coder:7b (paicli)")  # the REPL banner
        term.expect("›")
        term.answer("在吗")
        term.expect("你好！我在。")
        term.answer("/exit")
        assert term.finish() == 0
        assert local.requests and local.requests[-1]["model"] == "qwen2.5-coder:7b"
        local.assert_no_violations()
    home = isolated_home / ".paicli"
    saved = parse_dotenv((home / ".env").read_text(encoding="utf-8"))
    assert saved == {"PAICLI_BASE_URL": url, "PAICLI_MODEL": "qwen2.5-coder:7b"}
    assert stat.S_IMODE((home / ".env").stat().st_mode) == 0o600
    assert stat.S_IMODE(home.stat().st_mode) == 0o700


def test_setup_reruns_with_a_masked_key_and_probes_nothing_when_configured(
    project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer(api_key="sk-typed-secret-42") as remote, FakeOpenAIServer() as local:
        home = isolated_home / ".paicli"
        home.mkdir(exist_ok=True)  # the suite may have given it jieba's caches already
        (home / ".env").write_text(
            f"PAICLI_BASE_URL={remote.base_url}\nPAICLI_MODEL=fake-model\n", encoding="utf-8"
        )
        env = paicli_env(
            isolated_home, None, PAICLI_LOCAL_PORTS=str(local.port), DEEPSEEK_BASE_URL=remote.base_url
        )
        term = Terminal(["--setup"], env, project)
        term.expect("输入编号")
        term.answer("1")  # DeepSeek: no local server is listed, nothing was probed
        term.expect("DEEPSEEK_API_KEY（输入显示为 *")
        term.answer("sk-typed-wrong-1")
        term.expect("API Key 无效或没有权限（HTTP 401）")
        term.expect("DEEPSEEK_API_KEY（输入显示为 *", timeout=30)
        term.answer("sk-typed-secret-42")
        term.expect("连接成功")
        term.answer("")
        term.expect("deepseek-flash (deepseek)")
        term.expect("›")
        term.answer("/exit")
        assert term.finish() == 0
        assert local.gets == []
        assert "1. DeepSeek" in term.plain() and "在本机发现" not in term.plain()
    shown = term.plain()
    assert "sk-typed-secret-42" not in shown and "sk-typed-wrong-1" not in shown  # typed, never echoed
    assert "*" * len("sk-typed-secret-42") in shown  # masked, as the prompt says
    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8").split())
    assert "masked as you type: one `*` per character" in readme  # and as the README says (issue 44 item 9)
    assert "not shown while you type" not in readme
    saved = parse_dotenv((home / ".env").read_text(encoding="utf-8"))
    assert saved == {"DEEPSEEK_API_KEY": "sk-typed-secret-42"}  # the earlier endpoint no longer wins


def test_a_configured_key_starts_the_repl_without_probing(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as remote, FakeOpenAIServer() as local:
        env = paicli_env(
            isolated_home,
            None,
            PAICLI_LOCAL_PORTS=str(local.port),
            DEEPSEEK_API_KEY="sk-k",
            DEEPSEEK_BASE_URL=remote.base_url,
        )
        term = Terminal([], env, project)
        term.expect("deepseek-flash (deepseek)")
        term.expect("›")
        term.answer("/exit")
        assert term.finish() == 0
        assert local.gets == [] and remote.gets == []
    assert "欢迎使用" not in term.plain()


def test_without_a_terminal_no_key_is_a_short_exit_2_and_nothing_is_probed(
    project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer() as local:
        env = paicli_env(isolated_home, None, PAICLI_LOCAL_PORTS=str(local.port))
        oneshot = run_paicli(["-p", "在吗"], env, project)
        piped = run_paicli([], env, project, stdin="在吗\n")
        setup = run_paicli(["--setup"], env, project, stdin="1\n")
        both = run_paicli(["-p", "x", "--setup"], env, project)
        assert local.gets == []
    assert oneshot.returncode == 2 and piped.returncode == 2
    lines = oneshot.stderr.rstrip("\n").splitlines()
    assert 1 <= len(lines) <= 2 and all(cell_len(line) <= 80 for line in lines), lines
    assert "运行 paicli" in lines[0] and "DEEPSEEK_API_KEY" in lines[0]  # the first line says what to do
    assert "PAICLI_BASE_URL" in oneshot.stderr and "paicli --help" in oneshot.stderr
    assert piped.stderr == oneshot.stderr and piped.stdout == ""
    assert setup.returncode == 2 and "--setup 需要在终端中交互运行" in setup.stderr
    assert both.returncode == 2 and "--setup 不能和 -p 一起使用" in both.stderr
    assert not (isolated_home / ".paicli" / ".env").exists()


def test_help_lists_every_provider_variable(project: Path, isolated_home: Path) -> None:
    proc = run_paicli(["--help"], paicli_env(isolated_home, None), project)
    assert proc.returncode == 0
    for name in (
        "PAICLI_BASE_URL",
        "PAICLI_API_KEY",
        "PAICLI_MODEL",
        "DEEPSEEK_API_KEY",
        "GLM_API_KEY",
        "HUNYUAN_API_KEY",
        "STEP_API_KEY",
        "KIMI_API_KEY",
        "FREELLMAPI_API_KEY",
        "XFYUN_MAAS_API_KEY",
        "AGNES_API_KEY",
        "OPENAI_API_KEY",
        "PAICLI_CONTEXT_WINDOW",
        "--setup",
    ):
        assert name in proc.stdout


def test_ctrl_c_during_setup_exits_130_and_ctrl_d_exits_2_saving_nothing(
    project: Path, isolated_home: Path
) -> None:
    env = paicli_env(isolated_home, None)
    interrupted = Terminal([], env, project)
    interrupted.expect("输入编号")
    os.write(interrupted.fd, b"\x03")
    assert interrupted.finish() == 130
    ended = Terminal([], env, project)
    ended.expect("输入编号")
    os.write(ended.fd, b"\x04")
    assert ended.finish() == 2
    assert "设置没有完成，没有保存任何内容" in ended.plain()
    assert not (isolated_home / ".paicli" / ".env").exists()


def test_abandoning_setup_keeps_an_existing_configuration(project: Path, isolated_home: Path) -> None:
    home = isolated_home / ".paicli"
    home.mkdir(exist_ok=True)  # the suite may have given it jieba's caches already
    (home / ".env").write_text("DEEPSEEK_API_KEY=sk-kept-0001\n", encoding="utf-8")
    term = Terminal(["--setup"], paicli_env(isolated_home, None), project)
    term.expect("输入编号")
    os.write(term.fd, b"\x04")
    assert term.finish() == 2
    assert "原来的配置保持不变" in term.plain()
    assert (home / ".env").read_text(encoding="utf-8") == "DEEPSEEK_API_KEY=sk-kept-0001\n"
