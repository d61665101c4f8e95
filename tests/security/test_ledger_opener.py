"""Issue 39: every ledger write goes through one opener that knows every configured key (all providers', every
source), so a `/resume` into an earlier session cannot write another provider's key in clear."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

import paicli
from paicli.config.parsed import ParsedConfig
from paicli.llm.messages import Message
from paicli.session.opener import LedgerOpener
from paicli.testing.openai_server import FakeOpenAIServer
from paicli.testing.proc import paicli_env, run_paicli
from tests.sources import product_sources
from tests.tools.helpers import env as lookup

SRC = Path(paicli.__file__).parent
# Bare random strings: no secret shape catches them, only knowing them as configured keys does.
CURRENT_KEY = "Vq4Np8Ls2Kd6Hf0Jx3Mb7Rw1Tz5Yc9Ge"
ENV_FILE_KEY = "Dq7Wm2Xv9Lp4Rt8Ny3Hs6Jk1Bf5Gc0Zu"
SAVED_KEY = "Pa3Sd8Fg2Hj7Kl1Zx6Cv0Bn4Mq9We5Rt"
ALL_KEYS = (CURRENT_KEY, ENV_FILE_KEY, SAVED_KEY)


def _forms(key: str) -> list[str]:
    """The key and encodings a tool's output may show it in (base64 of `user:key`, as in a Basic header)."""
    return [key, key.encode().hex(), base64.b64encode(f"svc:{key}".encode()).decode()]


def _traces(key: str) -> list[str]:
    """What must not be left of those forms (the middle of the base64 blob depends on the key alone)."""
    forms = _forms(key)
    return [forms[0], forms[1], forms[2][8:-4]]


def test_no_product_module_opens_a_ledger_for_writing_any_other_way() -> None:
    constructors = re.compile(r"ConversationLedger(?:\.(?:create|open_existing|open_in))?\(")
    allowed = {SRC / "session" / "ledger.py", SRC / "session" / "opener.py"}
    offenders = [
        str(path.relative_to(SRC))
        for path in product_sources(SRC)
        if path not in allowed and constructors.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_opener_knows_every_configured_key(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text(json.dumps({"providers": {"kimi": {"apiKey": SAVED_KEY}}}))
    (home / ".env").write_text(f"DEEPSEEK_API_KEY={ENV_FILE_KEY}\n")
    env = lookup({"PAICLI_HOME": str(home), "PAICLI_API_KEY": CURRENT_KEY})
    assert set(LedgerOpener(ParsedConfig.read(env).keys()).keys) == set(ALL_KEYS)  # as the session opens it


def test_every_way_of_opening_masks_every_key_and_its_encodings(tmp_path: Path) -> None:
    opener = LedgerOpener(ALL_KEYS)
    ledger = opener.create(tmp_path / "home", tmp_path, "m", "p", "0")
    assert ledger.path is not None
    ledger.append_message("react", "agent", "user_input", Message.user(" ".join(_forms(SAVED_KEY))))
    ledger.close()
    continued = opener.existing(ledger.path)
    continued.append_message("react", "agent", "user_input", Message.user(" ".join(_forms(ENV_FILE_KEY))))
    continued.close()
    resumed, _ = opener.resume(ledger.path, model="m2", provider="p2")
    resumed.append_message("react", "agent", "user_input", Message.user(" ".join(_forms(CURRENT_KEY))))
    resumed.close()
    stored = ledger.path.read_text(encoding="utf-8")
    assert stored.count("user_input") == 3
    assert not [trace for key in ALL_KEYS for trace in _traces(key) if trace in stored]


@pytest.mark.e2e  # paicli processes
def test_resume_with_two_providers_never_writes_either_key_in_clear(
    project: Path, isolated_home: Path
) -> None:
    paicli_home = isolated_home / ".paicli"
    paicli_home.mkdir(exist_ok=True)
    (paicli_home / ".env").write_text(f"DEEPSEEK_API_KEY={ENV_FILE_KEY}\n", encoding="utf-8")
    (paicli_home / "config.json").write_text(json.dumps({"providers": {"kimi": {"apiKey": SAVED_KEY}}}))
    pasted = " ".join(form for key in ALL_KEYS for form in _forms(key))
    with FakeOpenAIServer() as server:
        server.push("记住了。", f"收到：{pasted}")
        env = paicli_env(isolated_home, server.base_url, PAICLI_API_KEY=CURRENT_KEY)
        first = run_paicli(["-p", "第一次会话"], env, project)
        assert first.returncode == 0, first.stderr
        repl = run_paicli([], env, project, stdin=f"/resume 1\n请核对这些字符串 {pasted}\n/exit\n")
        assert repl.returncode == 0, repl.stderr
        assert "第一次会话" in json.dumps(server.requests[1], ensure_ascii=False)
        server.assert_no_violations()
    ledgers = sorted((paicli_home / "history" / "raw").glob("*.jsonl"))
    stored = "".join(path.read_text(encoding="utf-8") for path in ledgers)
    assert "请核对这些字符串" in stored and "session_resumed" in stored
    leaked = [trace for key in ALL_KEYS for trace in _traces(key) if trace in stored]
    assert leaked == []
