"""Where each setting came from: a project ./.env never sets protected settings, and a key goes only to a base
URL from its own source or a more trusted one (contract, "Provider configuration")."""

from __future__ import annotations

from collections import deque
from pathlib import Path

import pytest

from paicli.cli.first_run import run_first_setup
from paicli.config import knobs
from paicli.config.env import (
    ENVIRONMENT,
    HOME_DOTENV,
    PROJECT_DOTENV,
    USER_DOTENV,
    EnvLookup,
    home_dir,
    is_protected,
)
from paicli.config.settings import load_settings
from paicli.config.sources import ConfigSources
from paicli.llm.probe import CheckResult

DEEPSEEK_DEFAULT = "https://api.deepseek.com/v1"


class Layout:
    def __init__(self, tmp_path: Path, **environ: str) -> None:
        self.user_home = tmp_path / "home"
        self.paicli_home = self.user_home / ".paicli"
        self.project = tmp_path / "project"
        for folder in (self.paicli_home, self.project):
            folder.mkdir(parents=True, exist_ok=True)
        self.environ = {"HOME": str(self.user_home), **environ}

    def files(self, *, project: str = "", home: str = "", user: str = "") -> Layout:
        for path, text in (
            (self.project / ".env", project),
            (self.paicli_home / ".env", home),
            (self.user_home / ".env", user),
        ):
            if text:
                path.write_text(text, encoding="utf-8")
        return self

    def env(self) -> EnvLookup:
        return EnvLookup(environ=self.environ, cwd=self.project)


@pytest.mark.parametrize(
    "key",
    [
        "PAICLI_HOME",
        "PAICLI_AUDIT_DIR",
        "PAICLI_MEMORY_DIR",
        "PAICLI_MEMORY_DISABLE_ON_EXTERNAL_CONTEXT",
        "PAICLI_APPROVAL_MODE",
        "PAICLI_COMMAND_SANDBOX",  # another issue's knob: protected by its name before it is declared
        "PAICLI_LOG_DIR",
        "HOME",
    ],
)
def test_protected_settings_are_ignored_in_the_project_env_only(tmp_path: Path, key: str) -> None:
    layout = Layout(tmp_path).files(project=f"{key}=from-project\n")
    env = layout.env()
    assert env.get(key) == layout.environ.get(key) and env.refused_protected() == (key,)
    layout.files(home=f"{key}=from-home\n")
    assert layout.env().get(key) == layout.environ.get(key, "from-home")  # HOME: the process's own


def test_knob_declarations_state_protection() -> None:
    marked = {knob.key for knob in knobs.ALL_KNOBS if knob.protected}
    assert {"PAICLI_HOME", "PAICLI_AUDIT_DIR", "PAICLI_MEMORY_DIR", "PAICLI_APPROVAL_MODE"} <= marked
    assert all(is_protected(key) for key in marked)
    assert not is_protected("PAICLI_MODEL") and not is_protected("DEEPSEEK_BASE_URL")
    assert "(protected: never from a project .env)" in knobs.markdown_table()


def test_a_guard_switched_off_in_the_project_stays_on(tmp_path: Path) -> None:
    env = Layout(tmp_path).files(project="PAICLI_MEMORY_DISABLE_ON_EXTERNAL_CONTEXT=false\n").env()
    assert knobs.MEMORY_DISABLE_ON_EXTERNAL_CONTEXT.read(env) is True
    assert home_dir(env) == tmp_path / "home" / ".paicli"


def test_lookup_order_and_trust_ranks(tmp_path: Path) -> None:
    layout = Layout(tmp_path, A="env").files(
        project="A=p\nB=p\nC=p\n", home="A=h\nB=h\nC=h\nD=h\n", user="D=u\nE=u\n"
    )
    env = layout.env()
    assert [env.get(k) for k in "ABCDE"] == ["env", "p", "p", "h", "u"]
    assert [found.rank for found in env.candidates("A")] == [ENVIRONMENT, PROJECT_DOTENV, HOME_DOTENV]
    assert env.lookup("E") is not None and env.lookup("E").rank == USER_DOTENV  # type: ignore[union-attr]


def test_running_in_the_home_folder_keeps_the_user_env_trusted(tmp_path: Path) -> None:
    layout = Layout(tmp_path).files(user="PAICLI_AUDIT_DIR=/tmp/audit\n")
    env = EnvLookup(environ=layout.environ, cwd=layout.user_home)
    assert env.get("PAICLI_AUDIT_DIR") == "/tmp/audit" and env.refused_protected() == ()


def test_a_symlinked_project_env_is_not_read(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    outside = tmp_path / "elsewhere.env"
    outside.write_text("DEEPSEEK_API_KEY=sk-outside-0123456789\n", encoding="utf-8")
    (layout.project / ".env").symlink_to(outside)
    assert layout.env().get("DEEPSEEK_API_KEY") is None


def test_a_project_base_url_never_gets_a_key_saved_elsewhere(tmp_path: Path) -> None:
    layout = Layout(tmp_path).files(
        project="DEEPSEEK_BASE_URL=http://attacker.invalid/v1\n", home="DEEPSEEK_API_KEY=sk-home-0123456789\n"
    )
    settings = load_settings(layout.env(), cwd=layout.project)
    assert settings.base_url == DEEPSEEK_DEFAULT and settings.api_key == "sk-home-0123456789"
    (notice,) = settings.notices
    assert "DEEPSEEK_BASE_URL=http://attacker.invalid/v1" in notice and DEEPSEEK_DEFAULT in notice


def test_a_more_trusted_base_url_is_used_when_the_project_one_is_refused(tmp_path: Path) -> None:
    layout = Layout(tmp_path).files(
        project="DEEPSEEK_BASE_URL=http://attacker.invalid/v1\n",
        home="DEEPSEEK_API_KEY=sk-home-0123456789\nDEEPSEEK_BASE_URL=http://proxy.home/v1\n",
    )
    settings = load_settings(layout.env(), cwd=layout.project)
    assert settings.base_url == "http://proxy.home/v1" and len(settings.notices) == 1


def test_a_project_naming_its_own_endpoint_and_key_works(tmp_path: Path) -> None:
    layout = Layout(tmp_path).files(
        project="DEEPSEEK_BASE_URL=http://gateway.corp/v1\nDEEPSEEK_API_KEY=sk-project-0123456789\n",
        home="DEEPSEEK_API_KEY=sk-home-0123456789\n",
    )
    settings = load_settings(layout.env(), cwd=layout.project)
    assert (settings.base_url, settings.api_key, settings.notices) == (
        "http://gateway.corp/v1",
        "sk-project-0123456789",
        (),
    )


def test_an_environment_key_goes_only_to_an_environment_url(tmp_path: Path) -> None:
    layout = Layout(tmp_path, DEEPSEEK_API_KEY="sk-env-0123456789").files(
        user="DEEPSEEK_BASE_URL=http://user.env/v1\n"
    )
    assert load_settings(layout.env(), cwd=layout.project).base_url == DEEPSEEK_DEFAULT
    layout.environ["DEEPSEEK_BASE_URL"] = "http://env/v1"
    assert load_settings(layout.env(), cwd=layout.project).base_url == "http://env/v1"


def test_a_generic_endpoint_in_the_project_never_gets_a_saved_generic_key(tmp_path: Path) -> None:
    layout = Layout(tmp_path).files(
        project="PAICLI_BASE_URL=http://attacker.invalid/v1\nPAICLI_MODEL=m\n",
        home="PAICLI_API_KEY=sk-generic-0123456789\nDEEPSEEK_API_KEY=sk-home-0123456789\n",
    )
    settings = load_settings(layout.env(), cwd=layout.project)
    assert "attacker" not in settings.base_url
    assert settings.provider == "deepseek"


def test_a_keyless_project_endpoint_still_works(tmp_path: Path) -> None:
    layout = Layout(tmp_path).files(project="PAICLI_BASE_URL=http://127.0.0.1:9/v1\nPAICLI_MODEL=m\n")
    settings = load_settings(layout.env(), cwd=layout.project)
    assert (settings.base_url, settings.api_key) == ("http://127.0.0.1:9/v1", None)


class _ScriptedIO:
    def __init__(self, *answers: str) -> None:
        self.answers = deque(answers)
        self.said: list[str] = []

    def say(self, text: str, style: str | None = None) -> None:
        self.said.append(text)

    def ask(self, question: str, *, secret: bool = False) -> str | None:
        return self.answers.popleft() if self.answers else None


class _RecordingChecker:
    def __init__(self) -> None:
        self.urls: list[str] = []

    def list_models(self, base_url: str, api_key: str | None) -> CheckResult:
        self.urls.append(base_url)
        return CheckResult("ok", models=("deepseek-flash",))

    def one_token(self, base_url: str, api_key: str | None, model: str) -> CheckResult:
        self.urls.append(base_url)
        return CheckResult("ok")


def test_setup_checks_a_pasted_key_against_the_provider_never_a_project_override(tmp_path: Path) -> None:
    layout = Layout(tmp_path, PAICLI_HOME=str(tmp_path / "home" / ".paicli"))
    layout.files(project="DEEPSEEK_BASE_URL=http://attacker.invalid/v1\n")
    checker = _RecordingChecker()
    result = run_first_setup(
        layout.env(), _ScriptedIO("1", "sk-pasted-0123456789", ""), checker=checker, env_factory=layout.env
    )
    assert result is not None
    assert checker.urls and all(url == DEEPSEEK_DEFAULT for url in checker.urls)
    assert result.settings.base_url == DEEPSEEK_DEFAULT


def test_search_endpoints_follow_the_same_rule(tmp_path: Path) -> None:
    layout = Layout(tmp_path).files(
        project="DEEPSEEK_SEARCH_BASE_URL=http://attacker.invalid\nSERPAPI_BASE_URL=http://own.serp\n"
        "SERPAPI_KEY=serp-project-key\n",
        home="DEEPSEEK_API_KEY=sk-home-0123456789\n",
    )
    env = layout.env()
    assert env.endpoint_for("DEEPSEEK_SEARCH_BASE_URL", "DEEPSEEK_API_KEY") is None
    assert env.endpoint_for("SERPAPI_BASE_URL", "SERPAPI_KEY") == "http://own.serp"


def test_config_report_names_the_base_url_actually_used(tmp_path: Path) -> None:
    from paicli.cli.session_commands import config_report

    layout = Layout(tmp_path).files(
        project="DEEPSEEK_BASE_URL=http://attacker.invalid/v1\n",
        home="DEEPSEEK_API_KEY=sk-home-0123456789\nDEEPSEEK_BASE_URL=http://proxy.home/v1\n",
    )
    env = layout.env()
    report = config_report(load_settings(env, cwd=layout.project), ConfigSources.parse(env))
    (line,) = [row for row in report.splitlines() if row.strip().startswith("base_url")]
    assert "http://proxy.home/v1" in line and str(layout.paicli_home / ".env") in line
    assert "attacker" not in report
