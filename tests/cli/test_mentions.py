"""`@path` mentions: what the model gets, and the line that tells the user what was attached or skipped."""

from __future__ import annotations

from pathlib import Path

from paicli.cli.mentions import MAX_FILE_CHARS, attach_mentions
from tests.cli.served_session import served_parts


def test_attached_files_and_skipped_mentions_are_reported(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("a = 1\nb = 2\n", encoding="utf-8")
    (root / "blob.bin").write_bytes(b"\xff\xfe\x00binary")
    (tmp_path / "secret.txt").write_text("outside", encoding="utf-8")
    text = "看看 @src/app.py、@src/app.py、@nope.py、@src、@blob.bin、@../secret.txt，问下 @张三"
    expanded, notes = attach_mentions(text, root)
    assert expanded.startswith(text) and expanded.count('<file path="src/app.py">\na = 1\nb = 2\n') == 1
    assert "outside" not in expanded and "binary" not in expanded
    assert notes == [
        ("info", "📎 已附上 @src/app.py（2 行）"),
        ("warn", "⚠️ 没找到 @nope.py，没有附上"),
        ("info", "📁 @src 是目录，只把路径交给模型（它可以自己列目录）"),
        ("warn", "⚠️ @blob.bin 不是可读的 UTF-8 文本，没有附上"),
        ("warn", "⚠️ @../secret.txt 在项目目录之外，没有附上"),
    ]  # "@张三" addresses a person: no note


def test_a_long_file_is_cut_and_the_note_says_so(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("".join(f"line {i}\n" for i in range(20_000)), encoding="utf-8")
    expanded, notes = attach_mentions("读 @big.txt", tmp_path)
    assert f"只附上前 {MAX_FILE_CHARS} 个字符" in expanded
    assert notes == [
        ("info", f"📎 已附上 @big.txt 的前 {MAX_FILE_CHARS:,} 个字符（全文 20000 行，其余由模型按需读取）")
    ]


def test_text_without_mentions_is_unchanged(tmp_path: Path) -> None:
    assert attach_mentions("写信给 a@b.com", tmp_path) == ("写信给 a@b.com", [])


def test_the_session_shows_the_notes_before_the_model_answers(tmp_path: Path) -> None:
    from paicli.agent.events import AgentEvent, Notice, TextDelta
    from paicli.cancel import CancelToken
    from paicli.cli.app_backend import AppBackend
    from paicli.testing.openai_server import FakeOpenAIServer

    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.md").write_text("# 笔记\n", encoding="utf-8")
    with FakeOpenAIServer() as server:
        server.push("看过了。")
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        events: list[AgentEvent] = []
        try:
            backend.run("看看 @notes.md 和 @todo.md", "react", events.append, CancelToken())
        finally:
            backend.close(5)
        sent = str(server.requests[0]["messages"][-1]["content"])
    notices = [(e.level, e.text) for e in events if isinstance(e, Notice)]
    assert notices[:2] == [("info", "📎 已附上 @notes.md（1 行）"), ("warn", "⚠️ 没找到 @todo.md，没有附上")]
    first_text = next(i for i, e in enumerate(events) if isinstance(e, TextDelta))
    assert all(events.index(n) < first_text for n in events if isinstance(n, Notice) and "@" in n.text)
    assert '<file path="notes.md">' in sent
