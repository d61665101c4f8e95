"""Ctrl+V pastes a clipboard image as `@image:<abs path> ` (spec 10.1): read with wl-paste (Wayland) or xclip
(X11). The tools here are fakes on a PATH of the test's own, speaking the real tools' arguments."""

from __future__ import annotations

import base64
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input

from paicli.cli.app_backend import AppBackend
from paicli.cli.clipboard import paste_image
from paicli.testing.openai_server import FakeOpenAIServer
from tests.cli.served_session import served_parts
from tests.cli.test_repl_interactive import CTRL_D, ENTER, Session, wait_for

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))
CTRL_V = "\x16"


def fake_tool(folder: Path, name: str, types: str = "image/png\ntext/plain") -> Path:
    """`name` on PATH: lists `types` when asked for them (wl-paste --list-types, xclip -t TARGETS), else the PNG."""
    folder.mkdir(exist_ok=True)
    script = folder / name
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "if '--list-types' in sys.argv or 'TARGETS' in sys.argv:\n"
        f"    print({types!r})\n"
        "else:\n"
        f"    sys.stdout.buffer.write({PNG!r})\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return folder


@pytest.mark.parametrize(("tool", "session"), [("wl-paste", "WAYLAND_DISPLAY"), ("xclip", "DISPLAY")])
def test_the_clipboard_image_is_saved_privately_and_typed_as_a_reference(
    tmp_path: Path, tool: str, session: str
) -> None:
    bin_dir = fake_tool(tmp_path / "bin", tool)
    pasted = paste_image(tmp_path / "home", {"PATH": str(bin_dir), session: ":0"})
    assert pasted.path is not None and pasted.path.read_bytes() == PNG
    assert pasted.path.is_relative_to(tmp_path / "home" / "images")
    assert stat.S_IMODE(pasted.path.stat().st_mode) == 0o600
    assert pasted.typed == f"@image:{pasted.path} "


def test_why_there_is_no_image_is_said(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert "DISPLAY" in paste_image(home, {"PATH": ""}).message
    missing = paste_image(home, {"PATH": str(tmp_path), "WAYLAND_DISPLAY": "w"})
    assert missing.path is None and "wl-paste" in missing.message
    assert "xclip" in paste_image(home, {"PATH": str(tmp_path), "DISPLAY": ":0"}).message
    text_only = fake_tool(tmp_path / "bin", "wl-paste", types="text/plain")
    empty = paste_image(home, {"PATH": str(text_only), "WAYLAND_DISPLAY": "w"})
    assert empty.path is None and empty.message == "📋 剪贴板里没有图片"
    assert not (home / "images").exists()


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as created:
        yield created


def test_ctrl_v_at_the_prompt_sends_the_image_with_the_turn(pipe: PipeInput, tmp_path: Path) -> None:
    bin_dir = fake_tool(tmp_path / "bin", "wl-paste")
    with FakeOpenAIServer(default_reply="一张测试图片") as server:
        parts = served_parts(
            tmp_path, server.base_url, PAICLI_VISION="on", PATH=str(bin_dir), WAYLAND_DISPLAY="wayland-0"
        )
        session = Session(AppBackend(parts), pipe, tmp_path / "h")  # type: ignore[arg-type]

        def feeder(inp: PipeInput) -> None:
            inp.send_text(CTRL_V + "这是什么" + ENTER)
            wait_for(session, "一张测试图片")
            inp.send_text(CTRL_D)

        session.run(feeder)
        user = [m for m in server.requests[0]["messages"] if m["role"] == "user"][-1]
    assert user["content"][0]["text"].startswith(f"@image:{tmp_path / '.paicli' / 'images'}")
    assert user["content"][1]["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(PNG).decode()
