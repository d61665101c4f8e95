"""Issue 17 item 4: save_memory refuses secrets; the audit log is redacted and private."""

from __future__ import annotations

import json
import stat
from datetime import datetime, timezone
from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.fsperm import create_private_file, ensure_private_dir, open_private_append, secure_tree
from paicli.tools.audit import AuditLog
from paicli.tools.context import ToolContext
from paicli.tools.guards import PathGuard
from paicli.tools.memory import SaveMemoryTool, secret_reason


@pytest.mark.parametrize(
    "fact",
    [
        "OpenAI key 是 sk-proj-abcdefghijklmnopqrstuv",  # the example
        "数据库密码是 hunter2hunter2",
        "deploy with GITHUB_TOKEN=ghp_abcdefghijklmnopqrstu",
        "aws_secret_access_key = wJalrXUtnFEMIK7MDENG",
        "staging 的 Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig",
        "用户的手机号 13812345678",
        "连接串 postgres://admin:s3cret@db.internal/app",
        "the staging database password is hunter2hunter2",
    ],
)
def test_save_memory_refuses_secrets_with_a_reason(fact: str, tmp_path: Path) -> None:
    saved: list[str] = []

    def save(fact: str, scope: str, replace_id: str | None, keep_both: bool) -> str:
        saved.append(fact)
        return "saved"

    ctx = ToolContext(tmp_path, PathGuard(tmp_path), CancelToken(), None, 5.0)
    output = SaveMemoryTool(save)({"fact": fact}, ctx)
    assert not output.success and saved == []
    assert ("没有保存" in output.content and "密" in output.content) or "敏感" in output.content


@pytest.mark.parametrize(
    "fact",
    [
        "项目使用 pytest 和 ruff，提交前运行 .ci/run",
        "API 密钥放在环境变量 PAICLI_API_KEY 里",
        "默认用 token 计数来控制上下文",
        "the api key is stored in the PAICLI_API_KEY variable",
    ],
)
def test_ordinary_facts_still_save(fact: str) -> None:
    assert secret_reason(fact) is None


def test_audit_log_is_redacted_and_private(tmp_path: Path) -> None:
    key = "glm-configured-key-0123456789"
    directory = tmp_path / "home" / "audit"
    log = AuditLog(directory, lambda: datetime(2026, 1, 2, tzinfo=timezone.utc), secrets=[key])
    log.record(
        "execute_command",
        json.dumps({"command": f"curl -H 'Authorization: Bearer {key}' x"}),
        "denied",
        False,
    )
    log.record("execute_command", json.dumps({"command": "echo sk-abcdefghijklmnopqrstuv"}), "executed", True)
    log.record(
        "write_file",
        json.dumps({"path": ".env", "content": "DB_PASSWORD=hunter2hunter2\\"}),
        "executed",
        True,
    )
    log.record(
        "execute_command", '{"command": "export API_KEY=abcdefgh', "executed", False, detail=f"key {key}"
    )
    [path] = list(directory.iterdir())
    text = path.read_text(encoding="utf-8")
    for leaked in (key, "sk-abcdefghijklmnopqrstuv", "hunter2hunter2", "abcdefgh"):
        assert leaked not in text
    for record in log.recent(10):
        assert isinstance(json.loads(record["arguments"]), dict)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE(directory.parent.stat().st_mode) == 0o700


def test_private_file_helpers_ignore_a_permissive_umask(tmp_path: Path) -> None:
    import os

    old = os.umask(0)
    try:
        ensure_private_dir(tmp_path / "a" / "b")
        create_private_file(tmp_path / "a" / "b" / "log")
        with open_private_append(tmp_path / "c" / "x.jsonl") as handle:
            handle.write("x\n")
        loose = tmp_path / "a" / "loose.txt"
        loose.write_text("x", encoding="utf-8")
        (tmp_path / "a" / "open").mkdir()
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "a" / "b" / "log").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "c" / "x.jsonl").stat().st_mode) == 0o600
    secure_tree(tmp_path / "a")
    assert stat.S_IMODE(loose.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "a" / "open").stat().st_mode) == 0o700


def test_log_records_are_redacted_before_they_reach_the_file(tmp_path: Path) -> None:
    import logging

    from paicli.redact import RedactingFilter

    key = "configured-key-0123456789abcdef"
    path = tmp_path / "paicli.log"
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.addFilter(RedactingFilter([key]))
    logger = logging.getLogger("paicli.test.redacting")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        logger.warning("request failed with key %s and Bearer %s", key, "tok.abc.defghijk")
        try:
            raise RuntimeError(f"boom PASSWORD=hunter2hunter2 {key}")
        except RuntimeError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
        handler.close()
    text = path.read_text(encoding="utf-8")
    assert "boom" in text and "request failed" in text
    for leaked in (key, "tok.abc.defghijk", "hunter2hunter2"):
        assert leaked not in text


def test_prompt_history_on_disk_is_redacted(tmp_path: Path) -> None:
    from paicli.cli.repl_prompt import RedactedFileHistory

    path = tmp_path / "history"
    history = RedactedFileHistory(str(path))
    history.store_string("export OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwx && run")
    history.store_string("解释 main.py")
    text = path.read_text(encoding="utf-8")
    assert "sk-abcdefghijklmnopqrstuvwx" not in text and "解释 main.py" in text
