"""`recall` as the model sees it: the tool table needs only this, so a run that never recalls anything imports
neither the handler (tools/recall.py) nor the session catalog and search it reads (cli/session_factory.py loads
it at the first call)."""

from __future__ import annotations

from paicli.tools.schema import Param, ToolSpec

RECALL = ToolSpec(
    "recall",
    "取回压缩移走的原文：id 为标记后 recall: 的编号；或用 query 检索本会话和本项目以前的会话。",
    (
        Param("id", "string", "如 r57、r12-340"),
        Param("query", "string", ""),
        Param("top_k", "integer", "", default=5, minimum=1),
    ),
    read_only=True,
    parallel_safe=True,
    reads_project=True,  # recalled tool output may carry repository text: a memory write after it asks
    content_kind="取回的历史对话原文",
)
