"""The save_memory tool: hands the fact to the memory manager's callable (the turn policy guards it first)."""

from __future__ import annotations

from paicli.tools.context import SaveMemory, ToolContext
from paicli.tools.schema import Args, ToolOutput


class SaveMemoryTool:
    def __init__(self, save: SaveMemory) -> None:
        self._save = save

    def __call__(self, args: Args, ctx: ToolContext) -> ToolOutput:
        fact = str(args["fact"]).strip()
        if not fact:
            return ToolOutput("❌ fact 不能为空", success=False)
        text = self._save(
            fact,
            str(args.get("scope", "project")),
            args.get("replace_id") or None,
            bool(args.get("keep_both", False)),
        )
        return ToolOutput(text)
