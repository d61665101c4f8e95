"""A local server's window at start (issue 40): asked once, remembered per endpoint and model for a day."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from paicli.cli.server_window import learned, recall, remember, with_server_window
from paicli.config.env import EnvLookup
from paicli.config.settings import Settings, load_settings
from paicli.llm.endpoints import is_local_endpoint
from paicli.llm.window_forms import ServerWindow


def settings(home: Path, url: str = "http://127.0.0.1:8080/v1", **extra: str) -> Settings:
    environ = {"PAICLI_HOME": str(home), "PAICLI_BASE_URL": url, "PAICLI_MODEL": "gemma-3-270m", **extra}
    return load_settings(EnvLookup(environ=environ, cwd=home))


class Probe:
    def __init__(self, found: ServerWindow | None) -> None:
        self.found = found
        self.asked: list[str] = []

    def __call__(self, url: str, key: str | None, model: str) -> ServerWindow | None:
        self.asked.append(f"{url}|{model}")
        return self.found


def test_a_local_server_is_asked_once_and_its_answer_used(tmp_path: Path) -> None:
    probe = Probe(ServerWindow(8192, "llama.cpp meta.n_ctx"))
    first = with_server_window(settings(tmp_path), probe)
    again = with_server_window(settings(tmp_path), probe)
    assert (first.context_window, first.window_source) == (8192, "server")
    assert again == first and probe.asked == ["http://127.0.0.1:8080/v1|gemma-3-270m"]


def test_a_server_that_does_not_say_is_remembered_too(tmp_path: Path) -> None:
    probe = Probe(None)
    for _ in range(2):
        unchanged = with_server_window(settings(tmp_path), probe)
        assert (unchanged.context_window, unchanged.window_source) == (128_000, "default")
    assert len(probe.asked) == 1


def test_nothing_is_asked_when_a_window_is_known_or_the_endpoint_is_remote(tmp_path: Path) -> None:
    probe = Probe(ServerWindow(8192, "x"))
    configured = with_server_window(settings(tmp_path, PAICLI_CONTEXT_WINDOW="32000"), probe)
    remote = with_server_window(settings(tmp_path, "https://api.example.com/v1"), probe)
    known = with_server_window(settings(tmp_path, PAICLI_MODEL="deepseek-chat"), probe)
    assert configured.context_window == 32000 and remote.window_source == "default"
    assert known.window_source == "model" and probe.asked == []


def test_a_window_learned_from_a_refusal_is_used_next_time_even_for_a_remote_endpoint(tmp_path: Path) -> None:
    remote = settings(tmp_path, "https://gateway.example.com/v1")
    learned(remote, 9000)
    assert with_server_window(remote, Probe(None)).context_window == 9000
    configured = settings(tmp_path, PAICLI_CONTEXT_WINDOW="32000")
    learned(configured, 9000)  # a configured window is the user's: a refusal says so in its message instead
    assert recall(tmp_path, configured.base_url, configured.model) is None


def test_an_old_answer_is_asked_again(tmp_path: Path) -> None:
    remember(tmp_path, "http://127.0.0.1:8080/v1", "m", ServerWindow(4096, "x"))
    entry = recall(tmp_path, "http://127.0.0.1:8080/v1", "m")
    assert entry is not None and entry.tokens == 4096
    assert recall(tmp_path, "http://127.0.0.1:8080/v1", "m", now=entry.at + 25 * 3600) is None
    assert replace(entry, tokens=None).tokens is None


def test_which_endpoints_are_local() -> None:
    local = [
        "http://127.0.0.1:8080/v1",
        "http://localhost:11434/v1",
        "http://192.168.1.20:1234/v1",
        "http://box.local/v1",
    ]
    remote = ["https://api.deepseek.com/v1", "http://8.8.8.8/v1", "https://gateway.example.com"]
    assert all(is_local_endpoint(url) for url in local) and not any(is_local_endpoint(url) for url in remote)


def test_a_server_that_is_not_running_is_asked_again_next_time(tmp_path: Path) -> None:
    asked: list[str] = []

    def down(url: str, key: str | None, model: str) -> ServerWindow | None:
        asked.append(url)
        raise ConnectionError("connection refused")

    for _ in range(2):
        assert with_server_window(settings(tmp_path), down).window_source == "default"
    assert len(asked) == 2 and recall(tmp_path, "http://127.0.0.1:8080/v1", "gemma-3-270m") is None
