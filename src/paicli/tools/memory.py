"""The save_memory tool: hands the fact to the memory manager's callable (the turn policy guards it first).

Long-term memory is plain text on disk and goes into every later prompt, so a fact that carries a secret is
refused with the reason, using the same secret patterns as automatic extraction and ledger redaction.
"""

from __future__ import annotations

from paicli.lazyre import lazy_pattern
from paicli.redact import looks_like_secret
from paicli.tools.context import SaveMemory, ToolContext
from paicli.tools.schema import Args, ToolOutput

# A secret's name followed by its value: `密码是 hunter22`, `token: abc123`, `API key = …`.
_NAMED_VALUE = lazy_pattern(  # compiled with the first save
    r"(?i)(?:api[_ -]?key|access[_ -]?key|secret|password|passwd|pwd|token|密码|密钥|秘钥|口令|令牌)"
    r"(?:\s*(?:是|为|:|：|=)\s*\S{4,}|\s+is\s+(?=\S*[0-9_!@#$%^&*-])\S{6,})"
)


def secret_reason(fact: str) -> str | None:
    """Why `fact` must not be stored, or None."""
    if looks_like_secret(fact) or _NAMED_VALUE().search(fact):
        return "内容里有 API Key、访问令牌或密码之类的密钥值"
    from paicli.memory.extract_words import SECRET_SHAPES  # its many patterns load with the first save

    match = SECRET_SHAPES.search(fact)
    if match:
        return f"内容里有疑似凭据或个人敏感信息（“{match.group()[:12]}…”这一类）"
    return None


class SaveMemoryTool:
    def __init__(self, save: SaveMemory) -> None:
        self._save = save

    def __call__(self, args: Args, ctx: ToolContext) -> ToolOutput:
        fact = str(args["fact"]).strip()
        if not fact:
            return ToolOutput("❌ fact 不能为空", success=False)
        reason = secret_reason(fact)
        if reason is not None:
            return ToolOutput(
                f"❌ 没有保存这条记忆：{reason}。长期记忆以明文存放在磁盘上，并会出现在以后每次对话里，"
                "不能保存密钥、密码和个人敏感信息；请把其中的非敏感部分（例如“密钥放在环境变量 X 里”）另行保存。",
                success=False,
            )
        text = self._save(
            fact,
            str(args.get("scope", "project")),
            args.get("replace_id") or None,
            bool(args.get("keep_both", False)),
        )
        return ToolOutput(text)
