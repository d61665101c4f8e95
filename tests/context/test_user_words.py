"""What the user said, as compaction sees it: typed words without memory block or attachment bodies, and the
values (by shape, in either language) a summary must keep."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.cli.mentions import attach_mentions
from paicli.context.user_words import (
    STDIN_MARKER,
    is_present,
    missing_values,
    split_attachments,
    typed_text,
    values_of,
)


@pytest.mark.parametrize(
    ("statement", "value"),
    [
        ("staging 数据库的主机是 db-stg-02.orion.internal", "db-stg-02.orion.internal"),
        ("发版分支叫 release/2027-q1", "release/2027-q1"),
        ("日志写在 /var/log/orion/app.log", "/var/log/orion/app.log"),
        ("the payments service listens on port 8443", "8443"),
        ("证书在 ~/.orion/keys/service.pem", "~/.orion/keys/service.pem"),
        ("镜像是 ghcr.io/orion/ci:3.11", "ghcr.io/orion/ci:3.11"),
        ("on-call this week is Priya Raman", "Priya Raman"),
        ("cron 是 '15 3 * * 1'", "15 3 * * 1"),
        ("命令叫 “make release-all”", "make release-all"),
        ("账号叫 qa_runner_02", "qa_runner_02"),
        ("负责人是王晓峰", "王晓峰"),
        ("数据迁移由陈嘉怡负责", "陈嘉怡"),
        ("we deploy with ArgoCD now", "ArgoCD"),
    ],
)
def test_values_are_found_by_their_shape(statement: str, value: str) -> None:
    assert value in values_of(statement)


@pytest.mark.parametrize(
    "plain",
    [
        "第 3 轮：请运行命令看看数据量",
        "帮我检查一下相关模块有没有问题，重点看边界情况",
        "看看搜索索引的日志里第 40 段时间有没有报错",
        "The tests look fine to me.",
    ],
)
def test_routine_requests_state_no_value(plain: str) -> None:
    assert values_of(plain) == []


def test_a_rule_word_prefix_adds_no_value() -> None:
    statement = "发版分支叫 release/2027-q1"
    assert values_of("请记住这些约定：" + statement) == values_of(statement)


def test_numbers_must_stand_alone_to_count_as_kept() -> None:
    assert is_present("45", "超时 45 秒") and not is_present("45", "第 145 行")
    values, missing = missing_values(["端口 5433，主机 db-1.lan"], "主机是 db-1.lan，端口 15433")
    assert values == ["5433", "db-1.lan"] and missing == ["5433"]


def test_attached_files_and_stdin_are_named_not_kept(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("secret_value_123 in the file\n" * 50, encoding="utf-8")
    content, _ = attach_mentions("对照 @notes.md 改一下", tmp_path)
    content += f"{STDIN_MARKER}piped_line_9 " * 3
    typed, named = split_attachments(content)
    assert typed == "对照 @notes.md 改一下"
    assert named.startswith("（附带的内容未列出：文件 notes.md、标准输入 ")
    assert "secret_value_123" not in typed_text(content)
    assert "notes.md" in values_of(content) and "secret_value_123" not in values_of(content)


def test_the_memory_block_is_not_the_users_words() -> None:
    content = "## 相关长期记忆\n\n下面这些只是线索。\n\n- 数据库在 db-old.lan\n\n\n请检查 api/v2 的路由"
    assert typed_text(content) == "请检查 api/v2 的路由"
    assert values_of(typed_text(content)) == ["api/v2"]
