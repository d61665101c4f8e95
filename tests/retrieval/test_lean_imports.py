"""Retrieval over a store with copies (copy keys set) leaves `numpy.ma` unloaded: numpy's own `isin` and
`unique` would import it on a large store's first query (issue 49: `-p` CPU with 50k memories)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_CODE = """
import sys
from datetime import timezone
from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.memory.retriever import MemoryRetriever
from tests.retrieval.scoped import global_fact, ours
from tests.retrieval.fakes import NOW, ListStore

names = "上限 下限 超时 重试 队列 日志 缓存 端口 驱动 版本 账号 密码 地址 编码 时区 分片 副本 监控 告警 备份".split()
# enough statements of distinct shapes (copy keys) that numpy's isin would sort them rather than loop
entries = [ours(f"own-{i}", f"数据库连接池的{name}是 {i + 10}") for i, name in enumerate(names)]
entries += [global_fact(f"g-{i}", f"数据库连接池的{names[i % 20]}是 {i + 100}") for i in range(60)]
values = MemoryValues.parse(EnvLookup(environ={}))
retriever = MemoryRetriever(ListStore(entries), values, clock=lambda: NOW, zone=timezone.utc)
top = [item.entry.id for item in retriever.top("数据库连接池的上限是多少", "/repo")]
print(top[0], "numpy.ma" in sys.modules, "numpy" in sys.modules)
"""


def test_a_query_over_copies_does_not_load_numpy_ma(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PAICLI_HOME": str(tmp_path), "PYTHONPATH": str(root)}
    result = subprocess.run(
        [sys.executable, "-c", _CODE], capture_output=True, text=True, env=env, cwd=root, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["own-0", "False", "True"]
