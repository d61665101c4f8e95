"""Issue 39: the environment of a command. Nobody approved it: an allow-list (the user's own setting may add
names, never paicli's keys, sockets or a credential-looking value). A human approved it: the user's
environment without any configured key, under whatever name."""

from __future__ import annotations

import base64
import os
from functools import partial
from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.config import knobs
from paicli.config.env import EnvLookup
from paicli.config.keys import configured_keys
from paicli.config.values import SandboxValues
from paicli.tools.context import ToolContext
from paicli.tools.guards import PathGuard
from paicli.tools.sandbox.environ import approved_env, sandbox_env
from paicli.tools.sandbox.executor import SandboxExecutor
from paicli.tools.sandbox.status import SandboxGate, probe
from paicli.tools.shell import execute_command, unconfined
from tests.tools.helpers import env as lookup

PROVIDER_KEY = "sk-envtest-provider-0123456789abcdef"
OTHER_PROVIDER_KEY = "kimi-envtest-9876543210fedcba"
# Credentials under names no deny-list of *_KEY/*_TOKEN/*_PASSWORD would catch (the class, own names).
ODD_NAMES = {
    "PGPASS": "pgpw-41",
    "REDIS_PWD": "rpw-77",
    "ORDERS_DB_URL": "postgresql://svc:Orders-Pw-5521@db.internal:5432/orders",
    "SIGNING_PASSPHRASE": "two words here",
    "CI_DEPLOY_CREDS": "deploy:hunter9",
    "APP_SECRETS": '{"stripe":"x"}',
    "BUGSNAG_DSN": "https://0f1e2d3c4b5a69788796a5b4c3d2e1f0@bugs.example.com/12",
    "REGISTRY_AUTH_CONFIG": '{"auths":{"r.example.com":{"auth":"dTpw"}}}',
    "NPM_CONFIG__AUTH": "bnBtOnNlY3JldA==",
    "KUBE_CLIENT_CERT_DATA": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t",
}
SOCKETS = {
    "SSH_AUTH_SOCK": "/tmp/ssh-XXXX/agent.123",
    "DOCKER_HOST": "unix:///var/run/docker.sock",
    "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus",
    "XDG_RUNTIME_DIR": "/run/user/1000",
    "GPG_AGENT_INFO": "/run/user/1000/gnupg/S.gpg-agent:0:1",
    "WAYLAND_DISPLAY": "wayland-0",
    "PODMAN_SOCK": "/run/user/1000/podman/podman.sock",
}
BASE = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/home/dev",
    "LANG": "zh_CN.UTF-8",
    "LC_ALL": "zh_CN.UTF-8",
    "TERM": "xterm-256color",
    "TZ": "Asia/Shanghai",
    "USER": "dev",
    "SHELL": "/bin/bash",
}


def _keys() -> tuple[str, ...]:
    return configured_keys(
        lookup({"PAICLI_API_KEY": PROVIDER_KEY, "KIMI_API_KEY": OTHER_PROVIDER_KEY}), Path("/nonexistent")
    )


def test_unapproved_commands_get_the_base_names_and_nothing_else() -> None:
    env = {**BASE, **ODD_NAMES, **SOCKETS, "PAICLI_API_KEY": PROVIDER_KEY, "EDITOR": "vim"}
    assert sandbox_env(env, keys=_keys()) == BASE


@pytest.mark.parametrize("name", sorted(ODD_NAMES))
def test_a_credential_under_any_other_name_never_reaches_an_unapproved_command(name: str) -> None:
    kept = sandbox_env({**BASE, name: ODD_NAMES[name]}, keys=_keys())
    assert name not in kept and ODD_NAMES[name] not in kept.values()


def test_socket_and_agent_variables_stay_out_even_when_the_user_lists_them() -> None:
    listed = [name.lower() for name in SOCKETS]
    kept = sandbox_env({**BASE, **SOCKETS}, allow=listed, keys=_keys())
    assert not set(SOCKETS) & set(kept)


def test_a_listed_name_whose_value_points_at_a_socket_is_dropped() -> None:
    env = {
        **BASE,
        "XDG_RUNTIME_DIR": "/run/user/4242",
        "MY_BUS": "/run/user/4242/custom-bus",
        "MY_ABSTRACT": "unix:abstract=/tmp/dbus-Qx1",
        "BUILD_CACHE": "/srv/cache/builds",
    }
    kept = sandbox_env(env, allow=("my_bus", "my_abstract", "build_cache"), keys=_keys())
    assert kept.get("BUILD_CACHE") == "/srv/cache/builds"
    assert "MY_BUS" not in kept and "MY_ABSTRACT" not in kept


def test_the_allow_setting_can_never_add_paicli_keys_or_settings() -> None:
    env = {
        **BASE,
        "PAICLI_API_KEY": PROVIDER_KEY,
        "KIMI_API_KEY": OTHER_PROVIDER_KEY,
        "SERPAPI_KEY": "serp-envtest-00112233",
        "PAICLI_HOME": "/home/dev/.paicli",
    }
    kept = sandbox_env(env, allow=[name.lower() for name in env], keys=_keys())
    assert kept == BASE


def test_a_listed_name_passes_unless_its_value_looks_like_a_credential() -> None:
    token = "ghp_" + "Zx8" * 12
    env = {**BASE, "NODE_ENV": "production", "BUILD_LABEL": token, "MIRROR": "https://u:mirrorpw1@m.example"}
    kept = sandbox_env(env, allow=("node_env", "build_label", "mirror"), keys=_keys())
    assert kept["NODE_ENV"] == "production"
    assert "BUILD_LABEL" not in kept and "MIRROR" not in kept


def test_a_configured_key_is_dropped_under_any_name_and_encoding() -> None:
    encoded = base64.b64encode(f"user:{OTHER_PROVIDER_KEY}".encode()).decode()
    env = {**BASE, "COPY": OTHER_PROVIDER_KEY, "COPY_B64": encoded, "LANGUAGE": PROVIDER_KEY.encode().hex()}
    unapproved = sandbox_env(env, allow=("copy", "copy_b64"), keys=_keys())
    assert not {"COPY", "COPY_B64", "LANGUAGE"} & set(unapproved)
    approved = approved_env(env, _keys())
    assert not {"COPY", "COPY_B64", "LANGUAGE"} & set(approved) and approved["PATH"] == BASE["PATH"]


def test_a_search_path_is_judged_entry_by_entry() -> None:
    env = {**BASE, "PATH": "/opt/apikey:/usr/bin:/home/dev/secret-tools/bin"}
    assert sandbox_env(env, keys=_keys())["PATH"] == env["PATH"]


def test_an_approved_command_keeps_the_users_own_credentials_but_no_configured_key() -> None:
    env = {**BASE, **ODD_NAMES, **SOCKETS, "PAICLI_API_KEY": PROVIDER_KEY, "KIMI_API_KEY": OTHER_PROVIDER_KEY}
    approved = approved_env(env, _keys())
    assert {**BASE, **ODD_NAMES, **SOCKETS}.items() <= approved.items()
    assert PROVIDER_KEY not in approved.values() and OTHER_PROVIDER_KEY not in approved.values()


def test_a_repository_env_file_cannot_set_the_allow_list_or_turn_snapshots_off(project: Path) -> None:
    (project / ".env").write_text(
        "PAICLI_COMMAND_ENV_ALLOW=AWS_SECRET_ACCESS_KEY,PAICLI_API_KEY\nPAICLI_SNAPSHOTS=off\n",
        encoding="utf-8",
    )
    found = EnvLookup(environ={"HOME": os.environ["HOME"]}, cwd=project)
    assert knobs.COMMAND_ENV_ALLOW.read(found) == ()
    assert knobs.SNAPSHOTS.read(found) == "on"
    assert set(found.refused_protected()) == {"PAICLI_COMMAND_ENV_ALLOW", "PAICLI_SNAPSHOTS"}


def test_the_users_own_env_file_may_set_the_allow_list(project: Path) -> None:
    home = Path(os.environ["HOME"])
    (home / ".env").write_text("PAICLI_COMMAND_ENV_ALLOW=NODE_ENV\n", encoding="utf-8")
    found = EnvLookup(environ={"HOME": str(home)}, cwd=project)
    assert knobs.COMMAND_ENV_ALLOW.read(found) == ("node_env",)


def _printed_environment(project: Path, sandboxed: bool) -> dict[str, str]:
    """What `env` prints when it runs as if the classifier had passed it (the boundary on its own), with the
    allow setting read the way a session reads it: the environment, the user's and the project's `.env`."""
    found = EnvLookup(cwd=project)
    status = probe("auto", True) if sandboxed else None
    if status is not None and not status.active:
        pytest.skip(f"no sandbox here: {status.reason}")
    allow = SandboxGate(SandboxValues.parse(found)).env_allow
    keys = partial(configured_keys, found)
    executor = (
        SandboxExecutor(status, str(found.home), allow, keys)
        if status is not None
        else unconfined(allow, keys).unasked
    )
    ctx = ToolContext(project, PathGuard(project), CancelToken(), executor=executor)
    output = execute_command({"command": "env"}, ctx)
    assert output.success, output.content
    pairs = (line.partition("=") for line in output.content.splitlines())
    return {name: value for name, sep, value in pairs if sep}


@pytest.mark.e2e  # a real sandbox
@pytest.mark.parametrize("sandboxed", [False, True], ids=["unconfined", "sandboxed"])
def test_a_real_unapproved_command_sees_only_the_allow_list(
    project: Path, monkeypatch: pytest.MonkeyPatch, sandboxed: bool
) -> None:
    for name, value in {**ODD_NAMES, **SOCKETS}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PAICLI_API_KEY", PROVIDER_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-envtest-secret-0099")
    monkeypatch.setenv("NODE_ENV", "test")
    # the user's own ~/.env lists two names; the repository's ./.env (looked up before it) tries to widen
    (Path(os.environ["HOME"]) / ".env").write_text("PAICLI_COMMAND_ENV_ALLOW=NODE_ENV,SSH_AUTH_SOCK\n")
    (project / ".env").write_text("PAICLI_COMMAND_ENV_ALLOW=AWS_SECRET_ACCESS_KEY,PAICLI_API_KEY\n")
    printed = _printed_environment(project, sandboxed)
    assert printed.get("NODE_ENV") == "test" and printed.get("PATH") == os.environ["PATH"]
    leaked = set(printed) & {*ODD_NAMES, *SOCKETS, "PAICLI_API_KEY", "AWS_SECRET_ACCESS_KEY"}
    assert not leaked
    assert PROVIDER_KEY not in "\n".join(printed.values())
