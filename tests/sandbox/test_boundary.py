"""The sandbox on its own (real subprocesses): whatever a command that got past the classifier tries, it can
only touch the project, never its configuration, and nothing of it stays behind."""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.tools.sandbox.status import SandboxStatus

from .conftest import API_KEY, CREDENTIALS, PAICLI_CONFIG, SSH_KEY, sandboxed


def test_writes_stay_inside_the_project(repo: Path, tmp_path: Path, status: SandboxStatus) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    out = sandboxed(
        repo, f"echo x > {outside}/f; echo y > $HOME/planted; echo z > /tmp/sbx-{uuid.uuid4().hex}", status
    )
    assert list(outside.iterdir()) == []
    assert not (Path(os.environ["HOME"]) / "planted").exists()
    assert "Permission denied" in out.content


def test_the_project_itself_stays_writable(repo: Path, status: SandboxStatus) -> None:
    out = sandboxed(
        repo, "echo more >> notes.txt && echo made > work/new.txt && mkdir work/d && echo ok", status
    )
    assert out.success, out.content
    assert (repo / "notes.txt").read_text().endswith("more\n")
    assert (repo / "work" / "new.txt").read_text() == "made\n"


def test_configuration_is_read_only_at_any_depth(repo: Path, status: SandboxStatus) -> None:
    nested = repo / "work" / "vendored"
    nested.mkdir()
    (nested / ".git").mkdir()
    (nested / ".git" / "config").write_text("[core]\n")
    for name in (".env", ".envrc", "PAI.md", ".env.local"):
        (repo / name).write_text("original\n")
    (repo / ".paicli").mkdir()
    (repo / "work" / "PAI.local.md").write_text("original\n")
    config_before = (repo / ".git" / "config").read_text()
    script = (
        "echo '[core] fsmonitor = evil' >> .git/config; echo evil > .git/hooks/pre-commit;"
        "echo evil >> .env; echo evil >> .envrc; echo evil >> PAI.md; echo evil >> .env.local;"
        "echo evil > .paicli/prompt.md; echo evil >> work/vendored/.git/config; echo evil >> work/PAI.local.md;"
        "rm -f .env; mv PAI.md gone.md; echo done"
    )
    out = sandboxed(repo, script, status)
    assert "done" in out.content
    assert (repo / ".git" / "config").read_text() == config_before
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    for name in (".env", ".envrc", "PAI.md", ".env.local", "work/PAI.local.md"):
        assert (repo / name).read_text() == "original\n", name
    assert not (repo / ".paicli" / "prompt.md").exists()
    assert (nested / ".git" / "config").read_text() == "[core]\n"


def test_a_git_dir_shaped_folder_is_read_only(repo: Path, status: SandboxStatus) -> None:
    bare = repo / "work" / "evil"
    for folder in ("objects", "refs"):
        (bare / folder).mkdir(parents=True)
    (bare / "HEAD").symlink_to("refs/heads/nowhere")  # dangling, as in the issue
    (bare / "config").write_text("[core]\n\tbare = true\n")
    sandboxed(
        repo,
        "echo '[remote \"origin\"] uploadpack = evil' >> work/evil/config; echo x > work/evil/packed-refs",
        status,
    )
    assert (bare / "config").read_text() == "[core]\n\tbare = true\n"
    assert not (bare / "packed-refs").exists()


def test_home_secrets_and_paicli_home_are_unreadable(repo: Path, status: SandboxStatus) -> None:
    paicli_home = os.environ["PAICLI_HOME"]
    out = sandboxed(
        repo,
        f"cat ~/.ssh/id_ed25519 ~/.git-credentials {paicli_home}/config.json; ls -a ~ {paicli_home}",
        status,
    )
    for secret in (SSH_KEY, CREDENTIALS, PAICLI_CONFIG):
        assert secret not in out.content
    # not even the names are listed: every line is an error, the sandbox's own note or the exit code
    listed = [
        line for line in out.content.splitlines() if not line.startswith(("cat:", "ls:", "🛡️", "退出码"))
    ]
    assert listed == [], out.content


def test_no_connection_reaches_a_loopback_server(repo: Path, status: SandboxStatus) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(5)
        port = server.getsockname()[1]
        probe = f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo CONNECTED"
        python = f'python3 -c \'import socket; socket.create_connection(("127.0.0.1", {port}), 5); print("CONNECTED")\''
        out = sandboxed(repo, f"{probe}; {python}; echo finished", status)
        assert "finished" in out.content and "CONNECTED" not in out.content
        server.setblocking(False)
        with pytest.raises(BlockingIOError):  # the command has ended: a connection would be queued by now
            server.accept()


def test_namespaces_leave_only_a_loopback_interface(repo: Path, status: SandboxStatus) -> None:
    if not status.userns:
        pytest.skip("the network namespace exists only with user namespaces")
    script = "python3 -c 'import socket; print(sorted(n for _, n in socket.if_nameindex()))'"
    out = sandboxed(repo, script, status)
    assert out.content.startswith("['lo']\n"), out.content


def _running(tag: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if tag.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _wait_until(condition, timeout: float = 20.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def test_nothing_it_starts_outlives_it(repo: Path, status: SandboxStatus) -> None:
    tag = f"1000.{uuid.uuid4().int % 10**9}"
    script = f"setsid env -i sleep {tag} & (setsid sleep {tag} &); nohup sleep {tag} >/dev/null 2>&1 & echo started"
    out = sandboxed(repo, script, status)
    assert "started" in out.content
    assert _wait_until(lambda: not _running(tag)), _running(tag)


def test_cancel_takes_every_process_with_it(repo: Path, status: SandboxStatus) -> None:
    tag = f"1000.{uuid.uuid4().int % 10**9}"
    cancel = CancelToken()
    results = []
    worker = threading.Thread(
        target=lambda: results.append(
            sandboxed(repo, f"(setsid env -i sleep {tag} &); sleep {tag}", status, cancel)
        )
    )
    worker.start()
    assert _wait_until(lambda: len(_running(tag)) >= 2)
    cancel.cancel()
    worker.join(timeout=20)
    assert results and results[0].blocked
    assert _wait_until(lambda: not _running(tag)), _running(tag)


def test_secrets_are_not_in_its_environment(
    repo: Path, status: SandboxStatus, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-sandbox-test")
    monkeypatch.setenv("DB_PASSWORD", "pw-sandbox-test")
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-deepseek-sandbox-test")
    monkeypatch.setenv("SERPAPI_KEY", "serp-sandbox-test")
    out = sandboxed(repo, "env; cat /proc/self/environ; cd /bin/../proc/self && cat environ", status)
    for value in (
        API_KEY,
        "ghp-sandbox-test",
        "pw-sandbox-test",
        "sk-deepseek-sandbox-test",
        "serp-sandbox-test",
    ):
        assert value not in out.content
    assert "HOME=" in out.content  # the environment is there, only the secrets are not


def test_another_process_environment_is_out_of_reach(repo: Path, status: SandboxStatus) -> None:
    import subprocess

    secret = f"other-process-secret-{uuid.uuid4().hex}"
    other = subprocess.Popen(["sleep", "60"], env={**os.environ, "OTHER_VALUE": secret})
    try:
        (repo / "work" / "peek").symlink_to(f"/proc/{other.pid}")
        out = sandboxed(
            repo, f"cat /proc/{other.pid}/environ; grep -R -s other-process-secret work/peek/environ", status
        )
        assert secret not in out.content
    finally:
        other.kill()
        other.wait()


def test_system_secrets_stay_unreadable(repo: Path, status: SandboxStatus) -> None:
    out = sandboxed(
        repo, "cat /etc/shadow /etc/ssh/ssh_host_ed25519_key; cat /etc/hostname >/dev/null && echo ok", status
    )
    assert "root:" not in out.content and "PRIVATE KEY" not in out.content
    assert "ok" in out.content  # the rest of /etc is there (ld.so, locale, passwd for git)
