"""`/model` subcommands (spec 10.3) and "did you mean" for unknown commands."""

from __future__ import annotations

from paicli.cli.command_table import BUILTIN
from paicli.cli.models import (
    ModelChoice,
    ModelCommand,
    is_known_target,
    list_text,
    parse_model_args,
    rejected_text,
)

CHOICES = [
    ModelChoice("deepseek", "deepseek-chat", 128_000, current=True),
    ModelChoice("glm", "glm-5.1", 200_000),
]


def test_subcommands_are_not_model_names() -> None:
    assert parse_model_args("") == ModelCommand("show")
    assert parse_model_args("list") == ModelCommand("list")
    assert parse_model_args("LIST") == ModelCommand("list")
    assert parse_model_args("info") == ModelCommand("info", "")
    assert parse_model_args("refresh glm") == ModelCommand("refresh", "glm")
    assert parse_model_args("add glm glm-6") == ModelCommand("add", "glm glm-6")
    assert parse_model_args("a b c") == ModelCommand("invalid", "a b c")
    assert parse_model_args("glm") == ModelCommand("switch", "glm")


def test_unknown_names_are_rejected_with_the_list() -> None:
    assert not is_known_target("lsit", CHOICES)
    assert is_known_target("glm", CHOICES) and is_known_target("glm-5.1", CHOICES)
    assert is_known_target("deepseek/deepseek-reasoner", CHOICES)
    text = rejected_text("lsit", CHOICES)
    assert (
        text.startswith("❌ 不认识的模型: lsit")
        and "deepseek/deepseek-chat" in text
        and "glm/glm-5.1" in text
    )


def test_list_marks_the_current_model() -> None:
    lines = list_text(CHOICES, numbered=True).splitlines()
    assert lines[1].startswith("  ● 1. deepseek/deepseek-chat") and lines[2].startswith("    2. glm/glm-5.1")


def test_a_typo_gets_did_you_mean_not_the_whole_list() -> None:
    reply = BUILTIN.unknown_reply("/comapct")
    assert "你是不是想输入 /compact" in reply and "可用命令" not in reply
    assert "可用命令" in BUILTIN.unknown_reply("/zzzzzz")
