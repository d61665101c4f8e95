from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from paicli.memory.tokenize import matches, tokenize


def test_tokens_are_lower_cased_and_filtered() -> None:
    tokens = tokenize("项目使用 Java 17，运行 mvn test！a 的")
    assert {"项目", "使用", "java", "17", "mvn", "test"} <= tokens
    assert all(len(token) >= 2 for token in tokens)
    assert not {"，", "！", " ", "a", "的"} & tokens
    assert tokenize("") == set() and tokenize("  \n") == set()
    assert tokenize("。。。——") == set()


def test_chinese_is_segmented_without_spaces() -> None:
    tokens = tokenize("偏好设置")
    assert tokens == {"偏好", "设置"}
    assert matches("用户偏好使用Java开发", tokens)
    assert not matches("用户喜欢猫", tokens)
    assert matches("Uses JAVA", {"java"})


def _run(code: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PAICLI_HOME": str(home)}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)


def test_jieba_cache_lives_in_paicli_home_and_logs_nothing(tmp_path: Path) -> None:
    result = _run(
        "from paicli.memory.tokenize import tokenize; print(sorted(tokenize('长期记忆检索')))", tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "记忆" in result.stdout
    assert result.stderr == ""
    assert (tmp_path / "cache" / "jieba.cache").is_file()


def test_importing_retrieval_does_not_load_jieba_or_numpy(tmp_path: Path) -> None:
    code = (
        "import sys, paicli.memory.retriever, paicli.memory.tokenize, paicli.prompt.assembler\n"
        "print(sorted(m for m in ('jieba', 'numpy') if m in sys.modules))"
    )
    result = _run(code, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
