"""The subject key table (issue 28): same subject with another value, different subjects, paraphrases, zh/en."""

from __future__ import annotations

import pytest

from paicli.memory.subject import decode, encode, has_correction_cue, relate_subjects, subject_of

# (stored fact, incoming fact, expected relation)
TABLE: list[tuple[str, str, str]] = [
    # same subject, another value (Chinese)
    ("我们项目用的是 Java 17", "项目升级到 Java 21 了，17 已经不用了", "changed"),
    ("测试环境的端口是 8080", "测试环境端口现在是 9090，之前说的 8080 是旧环境的", "changed"),
    ("数据库用 PostgreSQL 15", "数据库换成 MySQL 8", "changed"),
    ("部署负责人是张三", "部署负责人换成李四", "changed"),
    ("配置文件在 /etc/app.yaml", "配置文件改成 /opt/app/config.yaml", "changed"),
    ("构建工具是 Gradle", "构建工具换成 Maven", "changed"),
    ("后端服务端口号是 3000", "后端服务的端口改成 3001", "changed"),
    ("生产部署目标是 k8s 集群 prod-east", "生产部署目标换成 prod-west", "changed"),
    ("团队约定：分支名用小写", "团队约定：分支名用大写", "changed"),
    ("回答一律用中文", "回答一律用英文", "changed"),
    ("Node 版本是 18", "Node 版本升级到 20", "changed"),
    ("日志目录是 logs/app", "日志目录改为 var/log/app", "changed"),
    ("Redis 端口是 6379", "Redis 端口现在是 6380", "changed"),
    ("主分支叫 master", "主分支改成 main", "changed"),
    ("前端包管理器用 npm", "前端包管理器换成 pnpm", "changed"),
    # same subject, another value (English)
    ("The API port is 8080", "The API port is now 9090", "changed"),
    ("We use Java 17", "We upgraded to Java 21", "changed"),
    ("The build tool is Gradle", "The build tool is Maven now", "changed"),
    ("Python version is 3.10", "Python version is 3.12", "changed"),
    ("The config file is config/dev.yaml", "The config file is config/prod.yaml", "changed"),
    # a correction cue naming the old value, without a new value on the same subject
    ("CI 用 Jenkins", "我们不再用 Jenkins 了", "corrects"),
    ("CI uses Jenkins", "We no longer use Jenkins", "corrects"),
    # paraphrases and re-statements: same subject, same value
    ("测试环境的端口是 8080", "测试环境端口是 8080", "same"),
    ("我们项目用的是 Java 17", "项目用 Java 17", "same"),
    ("构建工具是 Gradle", "我们的构建工具是 Gradle", "same"),
    ("The API port is 8080", "API port is 8080", "same"),
    ("后端服务端口号是 3000", "后端服务的端口是 3000", "same"),
    ("数据库用 PostgreSQL 15", "数据库使用 PostgreSQL 15", "same"),
    # different subjects
    ("项目用 Java 17", "项目用 Python 3.11", "none"),
    ("构建工具是 Gradle", "测试框架是 pytest", "none"),
    ("测试环境端口是 8080", "生产环境端口是 8080", "none"),
    ("Node 版本是 18", "Java 升级到 21，17 已经不用了", "none"),
    ("Redis 端口是 6379", "MySQL 端口是 3306", "none"),
    ("The API port is 8080", "The admin port is 9000", "none"),
    ("部署负责人是张三", "测试负责人是李四", "none"),
    ("配置文件在 /etc/app.yaml", "日志目录是 /var/log/app", "none"),
    ("We use Java 17", "We use Kotlin 1.9", "none"),
    ("CI 用 Jenkins", "我们不再用 Travis 了", "none"),
    ("回答一律用中文", "代码注释用英文", "none"),
    # no subject at all: nothing to relate
    ("每次发布前跑三遍测试", "每次发布前跑五遍测试", "none"),
    ("喜欢简洁的回答", "讨厌冗长的解释", "none"),
    ("记得先跑测试", "项目用 Java 17", "none"),
]


@pytest.mark.parametrize(("stored", "incoming", "expected"), TABLE)
def test_relation_table(stored: str, incoming: str, expected: str) -> None:
    assert relate_subjects(subject_of(stored), subject_of(incoming), incoming) == expected


def test_table_is_large_enough() -> None:
    assert len(TABLE) >= 40
    assert {kind for _, _, kind in TABLE} == {"changed", "corrects", "same", "none"}


def test_subject_words_and_value() -> None:
    subject = subject_of("我们项目用的是 Java 17")
    assert subject is not None
    assert subject.words == frozenset({"java"}) and subject.value == "17"
    port = subject_of("测试环境端口现在是 9090，之前说的 8080 是旧环境的")
    assert port is not None and port.value == "9090"


def test_key_is_deterministic_and_round_trips() -> None:
    first = encode(subject_of("数据库用 PostgreSQL 15"))
    assert first == encode(subject_of("数据库用 PostgreSQL 15"))
    usable, subject = decode(first)
    assert usable and subject == subject_of("数据库用 PostgreSQL 15")
    assert decode("0|x|y") == (False, None)
    assert decode(encode(None)) == (True, None)


@pytest.mark.parametrize(
    "text",
    [
        "项目改成 Java 21",
        "端口换成 9090",
        "升级到 Node 20 了",
        "不再用 Jenkins",
        "现在是 main 分支",
        "之前说的 8080 是旧的",
        "We switched to Maven",
        "The port is now 9090",
    ],
)
def test_correction_cues(text: str) -> None:
    assert has_correction_cue(text)


@pytest.mark.parametrize("text", ["项目用 Java 17", "测试环境端口是 8080", "We use Gradle"])
def test_plain_statements_carry_no_cue(text: str) -> None:
    assert not has_correction_cue(text)
