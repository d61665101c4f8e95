"""Issue 26: one redactor for every sink. Each secret shape of the table is written through each sink (ledger,
audit log, /export, offload file, log file, memory store) and the secret part must not be in the file."""

from __future__ import annotations

import json
import logging
import stat
from datetime import datetime
from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.cli.session_commands import export_command
from paicli.config.compaction_values import OffloadValues
from paicli.config.run_values import MemoryValues
from paicli.context.offload import ToolResultOffloader
from paicli.llm.messages import Message, ToolCall
from paicli.memory.manager import MemoryManager
from paicli.memory.store import LongTermMemory
from paicli.redact import REDACTED, RedactingFilter, Redactor, looks_like_secret
from paicli.tools.audit import AuditLog
from paicli.tools.context import ToolContext
from paicli.tools.guards import PathGuard
from paicli.tools.memory import SaveMemoryTool
from tests.session.helpers import new_ledger
from tests.tools.helpers import env

PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0A1B\n\n"
    "MIIEowIBAAKCAQEAPEMBODYSECRETx1y2z3\nQWERTYUIOPASDFGHJKLZXCVBNM0987654321\n-----END RSA PRIVATE KEY-----"
)
# (name, text as it would appear, the part that must never reach a file)
SHAPES: list[tuple[str, str, str]] = [
    (
        "github classic",
        "export GH=ghp_Zq9XwV8uT7sR6qP5oN4mL3kJ2iH1gF0eDcBa",
        "Zq9XwV8uT7sR6qP5oN4mL3kJ2iH1gF0eDcBa",
    ),
    (
        "github fine-grained",
        "github_pat_11AAAAAAA0FinEGrainedSecretValue_abcdefXYZ",
        "FinEGrainedSecretValue",
    ),
    ("gitlab", "token glpat-GitLabSecret12345678901", "GitLabSecret12345678901"),
    ("slack bot", "SLACK=xoxb-1234567890-0987654321-SlackSecretValue", "SlackSecretValue"),
    ("slack webhook", "https://hooks.slack.com/services/T000/B000/HookSecretValue12", "HookSecretValue12"),
    ("stripe live", "stripe sk_live_StripeSecretValue4242", "StripeSecretValue4242"),
    ("stripe restricted", "rk_test_StripeRestricted9999", "StripeRestricted9999"),
    ("pem private key", PEM, "PEMBODYSECRET"),
    ("url credentials", "postgres://admin:UrlPassw0rdX@db.internal/app", "UrlPassw0rdX"),
    (
        "git url token user",
        "git clone https://ghx_TokenAsUserName0123456789@github.com/o/r",
        "TokenAsUserName0123456789",
    ),
    (
        "git url oauth2",
        "git remote add origin https://oauth2:GitOauthTok3n99@gitlab.com/o/r.git",
        "GitOauthTok3n99",
    ),
    ("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJqd3RzZWNyZXQifQ.JwtSignatureSecret_abc", "JwtSignatureSecret"),
    ("env DB_PASS", "DB_PASS=dbpw77 ./run.sh", "dbpw77"),
    ("netrc line", "machine api.example.com login alice password NetrcPw55", "NetrcPw55"),
    ("MYSQL_PWD", "MYSQL_PWD=MyPwd123 mysql -u root", "MyPwd123"),
    ("google api key", "key=AIzaSyGoogleSecretValue_0123456789abcdef", "GoogleSecretValue"),
    ("openai key", "OPENAI sk-proj-OpenAISecretValue0123456789", "OpenAISecretValue"),
    ("anthropic key", "sk-ant-api03-AnthropicSecretValue0123456", "AnthropicSecretValue"),
    ("deepseek key", "DEEPSEEK sk-0123456789abcdefDeepSeekSecret", "DeepSeekSecret"),
    ("aws access key id", "aws AKIAQWERTYUIOPASDFGH configured", "AKIAQWERTYUIOPASDFGH"),
    ("aws secret key", "aws_secret_access_key = AwsSecretKeyValue/K7MDENG", "AwsSecretKeyValue"),
    ("curl -u", "curl -u deploy:CurlPw99 https://api.example.com", "CurlPw99"),
    ("mysql -p", "mysql -h db -u root -pMysqlInlinePw db", "MysqlInlinePw"),
    ("--password pw", "pg_dump --password OptPw11 mydb", "OptPw11"),
    ("--password=pw", "tool --password=EqPw22 run", "EqPw22"),
    ("bearer", "curl -H 'Authorization: Bearer BearerSecret.Value_123'", "BearerSecret"),
    ("basic auth header", "Authorization: Basic QmFzaWNTZWNyZXRWYWx1ZQ==", "QmFzaWNTZWNyZXRWYWx1ZQ"),
    ("sshpass", "sshpass -p SshPw33 ssh host", "SshPw33"),
    (
        "npm token",
        "//registry.npmjs.org/:_authToken=npm_NpmSecretValue01234567890123456789ab",
        "NpmSecretValue",
    ),
    ("chinese prose", "数据库密码是 ProsePw44", "ProsePw44"),
    # issue 39: fourteen more shapes (own variants), each a general form rather than one string
    (
        "kubeconfig key data",
        "users:\n- user:\n    client-key-data: S3ViZUNsaWVudEtleUJvZHlTZWNyZXQ9PQ==\n",
        "S3ViZUNsaWVudEtleUJvZHlTZWNyZXQ",
    ),
    (
        "docker auth",
        '{"auths": {"ghcr.io": {"auth": "Ym90OkRvY2tlckF1dGhTZWNyZXQ3Nw=="}}}',
        "Ym90OkRvY2tlckF1dGhTZWNyZXQ3Nw",
    ),
    (
        "azure account key",
        "DefaultEndpointsProtocol=https;AccountName=st;AccountKey=QXp1cmVTdG9yYWdlS2V5U2VjcmV0MDE=;",
        "QXp1cmVTdG9yYWdlS2V5U2VjcmV0MDE",
    ),
    ("yaml passphrase", "signing:\n  passphrase: correct horse battery\n", "correct horse battery"),
    (
        "age secret key",
        "AGE-SECRET-KEY-1AGESECRETKEYBODYQPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8",
        "AGESECRETKEYBODY",
    ),
    ("telegram bot token", "bot 7012345678:AAFTelegramBotSecret_0123456789abcdef", "FTelegramBotSecret"),
    ("docker hub pat", "docker login -u me -p dckr_pat_DockerHubPatSecret0123", "DockerHubPatSecret"),
    ("shopify token", "X-Shopify-Access-Token: shpat_ShopifySecret0123456789abcdef", "ShopifySecret"),
    ("slack app token", "SLACK_APP=xapp-1-A01234567-SlackAppSecret-0123456789", "SlackAppSecret"),
    (
        "digitalocean token",
        "doctl auth init -t dop_v1_DigitalOceanSecret0123456789abcdef0123456789",
        "DigitalOceanSecret",
    ),
    (
        "databricks token",
        "host=https://x.cloud.databricks.com dapi0123456789abcdef0123456789abcdef",
        "0123456789abcdef0123456789abcdef",
    ),
    ("mailgun key", "MG=key-MailgunSecretValue0123456789abcd", "MailgunSecretValue"),
    (
        "atlassian token",
        "jira login --token ATATT3xAtlassianApiTokenSecret0123456789",
        "AtlassianApiTokenSecret",
    ),
    (
        "putty private lines",
        "PuTTY-User-Key-File-3: ssh-ed25519\nPublic-Lines: 1\nAAAAC3Nz\nPrivate-Lines: 1\nAAAAIPuttyPrivateBody\nPrivate-MAC: 00ff\n",
        "PuttyPrivateBody",
    ),
]
CONFIGURED_KEY = "configured-provider-key-0123456789"
IDS = [name for name, _, _ in SHAPES]


def test_the_table_has_at_least_twenty_shapes() -> None:
    assert len(SHAPES) >= 20 and len(set(IDS)) == len(IDS)


@pytest.mark.parametrize(("name", "text", "secret"), SHAPES, ids=IDS)
def test_redactor_masks_every_shape(name: str, text: str, secret: str) -> None:
    redacted = Redactor().text(text)
    assert secret not in redacted and REDACTED in redacted, redacted


@pytest.mark.parametrize(("name", "text", "secret"), SHAPES, ids=IDS)
def test_ledger_file_has_no_secret(name: str, text: str, secret: str, tmp_path: Path) -> None:
    ledger = new_ledger(tmp_path / "home", tmp_path / "proj", secrets=[CONFIGURED_KEY])
    call = ToolCall("c1", "execute_command", json.dumps({"command": text}, ensure_ascii=False))
    ledger.append_message("react", "agent", "model", Message.user(f"{text} {CONFIGURED_KEY}"))
    ledger.append_message("react", "agent", "model", Message.assistant(text, (call,)))
    ledger.append_message("react", "agent", "tool", Message.tool("c1", f"output: {text}"))
    ledger.close()
    assert ledger.path is not None
    stored = ledger.path.read_text(encoding="utf-8")
    assert secret not in stored and CONFIGURED_KEY not in stored
    for line in stored.splitlines():
        json.loads(line)  # still one JSON object per line


@pytest.mark.parametrize(("name", "text", "secret"), SHAPES, ids=IDS)
def test_audit_log_has_no_secret(name: str, text: str, secret: str, tmp_path: Path) -> None:
    audit = AuditLog(tmp_path / "audit", secrets=[CONFIGURED_KEY])
    audit.record(
        "execute_command", json.dumps({"command": text}), "executed", True, detail=f"{text} {CONFIGURED_KEY}"
    )
    audit.record("execute_command", f"not json {text}", "denied", False)
    stored = "".join(path.read_text(encoding="utf-8") for path in (tmp_path / "audit").iterdir())
    assert stored.count("\n") == 2 and secret not in stored and CONFIGURED_KEY not in stored


@pytest.mark.parametrize(("name", "text", "secret"), SHAPES, ids=IDS)
def test_export_file_has_no_secret(name: str, text: str, secret: str, tmp_path: Path) -> None:
    call = ToolCall("c1", "execute_command", json.dumps({"command": text}, ensure_ascii=False))
    history = [
        Message.system("system"),
        Message.user(f"请用 {text}"),
        Message.assistant(None, (call,)),
        Message.tool("c1", f"ran: {text}\n{CONFIGURED_KEY}"),
        Message.assistant(f"完成：{text}"),
    ]
    target = tmp_path / "out.md"
    reply = export_command(
        history,
        str(target),
        home=tmp_path / "home",
        project_root=tmp_path,
        session_id="s",
        model="m",
        now=lambda: datetime(2026, 12, 1, 12, 0, 0),
        redactor=Redactor([CONFIGURED_KEY]),
    )
    assert reply.ok
    stored = target.read_text(encoding="utf-8")
    assert secret not in stored and CONFIGURED_KEY not in stored and "## 🤖 助手" in stored


@pytest.mark.parametrize(("name", "text", "secret"), SHAPES, ids=IDS)
def test_offload_file_has_no_secret_and_is_private(name: str, text: str, secret: str, tmp_path: Path) -> None:
    offloader = ToolResultOffloader(
        tmp_path, OffloadValues.parse(env()), redact=Redactor([CONFIGURED_KEY]).text
    )
    output = "\n".join(f"line {n}" for n in range(3000)) + f"\n{text}\n{CONFIGURED_KEY}\n"
    notice = offloader.command_output_for_context(output)
    files = sorted(offloader.session_dir.glob("*.txt"))
    assert len(files) == 1 and files[0].name in notice
    stored = files[0].read_text(encoding="utf-8")
    assert "line 2999" in stored and secret not in stored and CONFIGURED_KEY not in stored
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
    assert stat.S_IMODE(offloader.session_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(offloader.session_dir.parent.stat().st_mode) == 0o700


def test_offload_default_redacts_shapes_without_configured_keys(tmp_path: Path) -> None:
    offloader = ToolResultOffloader(tmp_path, OffloadValues.parse(env()))
    offloader.offload("execute_command", "x" * 50 + "\ncurl -u a:DefaultPw1 https://h\n", 10)
    (stored,) = offloader.session_dir.glob("*.txt")
    assert "DefaultPw1" not in stored.read_text(encoding="utf-8")


def test_offload_refuses_a_tool_outputs_symlink_leading_out(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    project = tmp_path / "proj"
    (project / ".paicli").mkdir(parents=True)
    (project / ".paicli" / "tool-outputs").symlink_to(outside)
    offloader = ToolResultOffloader(project, OffloadValues.parse(env()))
    result = offloader.offload("execute_command", "y" * 5000, 100)
    assert "写入会话文件失败" in result and list(outside.rglob("*.txt")) == []


@pytest.mark.parametrize(("name", "text", "secret"), SHAPES, ids=IDS)
def test_log_file_has_no_secret(name: str, text: str, secret: str, tmp_path: Path) -> None:
    path = tmp_path / "paicli.log"
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.addFilter(RedactingFilter([CONFIGURED_KEY]))
    logger = logging.getLogger(f"paicli.test.redact.{name}")
    logger.propagate = False
    logger.addHandler(handler)
    try:
        logger.warning("request failed for %s with %s", text, CONFIGURED_KEY)
        try:
            raise RuntimeError(text)
        except RuntimeError:
            logger.exception("boom")
    finally:
        logger.removeHandler(handler)
        handler.close()
    stored = path.read_text(encoding="utf-8")
    assert "request failed" in stored and "RuntimeError" in stored
    assert secret not in stored and CONFIGURED_KEY not in stored


def _memory(tmp_path: Path) -> tuple[SaveMemoryTool, Path]:
    folder = tmp_path / "memory"
    manager = MemoryManager(
        LongTermMemory(folder, MemoryValues.parse(env())), tmp_path, MemoryValues.parse(env())
    )
    return SaveMemoryTool(manager.save_memory_tool), folder


def _stored_memory(folder: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize(("name", "text", "secret"), SHAPES, ids=IDS)
def test_memory_store_never_gets_the_secret(name: str, text: str, secret: str, tmp_path: Path) -> None:
    tool, folder = _memory(tmp_path)
    ctx = ToolContext(tmp_path, PathGuard(tmp_path), CancelToken(), None, 5.0)
    output = tool({"fact": f"部署时使用 {text}"}, ctx)
    assert not output.success and "没有保存" in output.content
    assert secret not in _stored_memory(folder)


@pytest.mark.parametrize(
    "fact",
    [
        "key: s k - p r o j - a b c d e f g h i j k l m n o p q r s t u v w x",
        "密钥 s\u200bk\u200b-\u200bp\u200br\u200bo\u200bj\u200b-\u200b0\u200b1\u200b2\u200b3\u200b4\u200b5\u200b6\u200b7\u200b8\u200b9\u200ba\u200bb\u200bc\u200bd",
        "ｓｋ－ｐｒｏｊ－ＡＢＣＤＥＦＧＨＩＪＫＬＭＮＯＰＱＲＳＴ",
        "g h p _ A B C D E F G H I J K L M N O P Q R S T U V W X Y Z 0 1 2 3",
    ],
)
def test_a_spelled_out_key_does_not_pass_save_memory(fact: str, tmp_path: Path) -> None:
    assert looks_like_secret(fact)
    tool, folder = _memory(tmp_path)
    ctx = ToolContext(tmp_path, PathGuard(tmp_path), CancelToken(), None, 5.0)
    output = tool({"fact": fact}, ctx)
    assert not output.success
    assert not folder.exists() or "p r o j" not in _stored_memory(folder)


@pytest.mark.parametrize(
    "fact",
    ["项目使用 p n p m 管理依赖", "用户偏好 a b c 顺序", "测试命令是 pytest -q -x", "token 计数用 tiktoken"],
)
def test_ordinary_facts_are_not_taken_for_secrets(fact: str) -> None:
    assert not looks_like_secret(fact)
