"""The .env parser: the shapes people actually write."""

from __future__ import annotations

from pathlib import Path

from paicli.config.env import EnvLookup, parse_dotenv


def test_dotenv_lines_quotes_exports_and_comments() -> None:
    text = "\n".join(
        [
            "# a comment",
            "PLAIN=abc",
            "export EXPORTED = value ",
            'DOUBLE="has # hash and spaces"',
            "SINGLE='x y'  # trailing comment",
            "INLINE=sk-123   # my key",
            "HASH_INSIDE=abc#def",
            "EMPTY=",
            "not a setting",
            "PLAIN=second wins never",
        ]
    )
    assert parse_dotenv(text) == {
        "PLAIN": "abc",
        "EXPORTED": "value",
        "DOUBLE": "has # hash and spaces",
        "SINGLE": "x y",
        "INLINE": "sk-123",
        "HASH_INSIDE": "abc#def",
        "EMPTY": "",
    }


def test_an_inline_comment_never_reaches_the_key(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("DEEPSEEK_API_KEY=sk-live-1  # work account\n", encoding="utf-8")
    lookup = EnvLookup(
        environ={"HOME": str(tmp_path / "nohome"), "PAICLI_HOME": str(tmp_path / "h")}, cwd=tmp_path
    )
    assert lookup.get("DEEPSEEK_API_KEY") == "sk-live-1"
