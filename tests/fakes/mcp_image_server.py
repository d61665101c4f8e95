"""A one-tool MCP server (stdio, the official SDK) whose tool returns text and a PNG image, for the tests of
images that tools return (issue 45). The image bytes are fixed so a test can compare what reached the model."""

from __future__ import annotations

from mcp.server.mcpserver import Image, MCPServer
from mcp.types import ImageContent, TextContent

IMAGE_BYTES = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8

app = MCPServer("paicli-image-test")


@app.tool(structured_output=False)
def snapshot() -> list[TextContent | ImageContent]:
    """Take a screenshot of the page."""
    return [
        TextContent(type="text", text="页面截图如下"),
        Image(data=IMAGE_BYTES, format="png").to_image_content(),
    ]


if __name__ == "__main__":
    app.run()
