"""`/permissions`: lists the permission rules in force (numbered), `remove <N>` drops one of the user's,
`allow|ask|deny <entry>` adds one to the user's `permissions.json` (tools/rule_book.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paicli.cli.backend import CommandReply
from paicli.cli.commands import Form
from paicli.tools.rule_book import PROJECT_PERMISSIONS, RuleBook, RuleFileError
from paicli.tools.rules import KINDS, RuleKind

if TYPE_CHECKING:
    from paicli.cli.commands import CommandContext

PERMISSIONS_FORMS = (
    Form("allow <规则>", "添加允许规则，如 execute_command(npm test*)"),
    Form("ask <规则>", "添加每次都要确认的规则"),
    Form("deny <规则>", "添加拒绝规则，如 read_file(.secrets/*)"),
    Form("remove <编号>", "删除一条你自己的规则"),
)
USAGE = "用法: /permissions allow <规则>（ask、deny 同样）；/permissions remove <编号>；规则写作 工具名 或 工具名(通配符)"
_KIND_TEXT = {"allow": "允许", "ask": "询问", "deny": "拒绝"}


def permissions_command(ctx: CommandContext, args: str) -> None:
    book = ctx.session.parts.approval.rule_book
    if book is None:
        ctx.reply(CommandReply("这个会话没有权限规则。", ok=False))
        return
    ctx.reply(permissions_reply(book, args))


def permissions_reply(book: RuleBook, args: str) -> CommandReply:
    word, _, rest = args.strip().partition(" ")
    word, rest = word.lower(), rest.strip()
    try:
        if not word:
            return CommandReply(listing(book))
        if word == "remove" and rest.isdigit():
            return _remove(book, int(rest))
        if word in KINDS and rest:
            kind: RuleKind = word
            rule = book.add(kind, rest)
            if rule is None:
                return CommandReply(f"无法识别的规则: {rest}。格式: 工具名 或 工具名(通配符)", ok=False)
            return CommandReply(f"🛡️ 已添加{_KIND_TEXT[kind]}规则 {rule.entry}（{book.user_path}）")
    except RuleFileError as error:
        return CommandReply(f"⚠️ {error}", ok=False)
    return CommandReply(USAGE, ok=False)


def listing(book: RuleBook) -> str:
    rules = book.current()
    lines = ["🛡️ 权限规则（拒绝优先于询问，询问优先于允许；沙箱和受保护文件不受规则影响）:"]
    if not rules.rules:
        lines.append(f"   （没有规则）在 {book.user_path} 里写 " + '{"allow": [], "ask": [], "deny": []}')
    for number, rule in enumerate(rules.rules, 1):
        where = "项目" if rule.source == "project" else "用户"
        lines.append(f"   {number}. [{_KIND_TEXT[rule.kind]}] {rule.entry}  （{where}）")
    lines += [f"   ⚠️ {problem}" for problem in rules.problems]
    if book.project_ignored():
        lines.append(f"   ℹ 此文件夹未被信任，{PROJECT_PERMISSIONS} 没有生效")
    lines.append("   " + USAGE)
    return "\n".join(lines)


def _remove(book: RuleBook, number: int) -> CommandReply:
    rules = book.current().rules
    if not 1 <= number <= len(rules):
        return CommandReply(f"没有编号为 {number} 的规则（/permissions 查看）", ok=False)
    rule = rules[number - 1]
    if rule.source == "project":
        return CommandReply(
            f"规则 {rule.entry} 来自项目的 {PROJECT_PERMISSIONS}，请在那个文件里修改", ok=False
        )
    if not book.remove(rule):
        return CommandReply(f"规则 {rule.entry} 已不在 {book.user_path} 里", ok=False)
    return CommandReply(f"🛡️ 已删除{_KIND_TEXT[rule.kind]}规则 {rule.entry}")
