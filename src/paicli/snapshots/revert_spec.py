"""`revert_turn` as the model sees it: the tool table needs only this, so a session offers the tool without
importing the snapshot store (snapshots/tool.py implements it, loaded at the first call)."""

from __future__ import annotations

from paicli.tools.schema import Param, ToolSpec

REVERT_TURN = ToolSpec(
    "revert_turn",
    "把项目文件恢复到第 n 近的快照（每轮首次改文件前自动拍，n=1 最近）；恢复前会先快照现状。",
    (Param("n", "integer", "", default=1, minimum=1),),
    snapshot_first=False,  # it takes its own snapshot of the current state first
    ask_reason="撤回会把项目文件改回快照时的样子，任何模式下都先请你确认",
    summary="撤回改动: 把项目文件恢复到第 {n} 近的快照",
)
