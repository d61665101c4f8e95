"""The system prompt's `## Tools` list names exactly the tools a request carries (issue 40)."""

from __future__ import annotations

from paicli.prompt.tool_list import with_tool_list

PROMPT = "## Language\n\n中文\n\n## Tools\n\nread_file write_file\n\n## Tool Policy\n\n- 先读后改\n"


def test_the_list_is_replaced_by_the_requests_tools_and_nothing_else_changes() -> None:
    aligned = with_tool_list(PROMPT, ["read_file", "write_file", "revert_turn", "mcp__docs__search"])
    assert aligned == PROMPT.replace("write_file", "write_file revert_turn mcp__docs__search")
    assert with_tool_list(aligned, ["read_file", "write_file", "revert_turn", "mcp__docs__search"]) == aligned


def test_a_prompt_without_the_section_or_a_request_without_tools_is_left_alone() -> None:
    assert (
        with_tool_list("## Tool Availability\n\n没有工具", ["read_file"])
        == "## Tool Availability\n\n没有工具"
    )
    assert with_tool_list(PROMPT, []) == PROMPT
