"""`/index`, `/search <query>` and `/graph <symbol>` (issue 46, spec 10.3): build or refresh the project's code
index (in the background at the terminal, with progress; at once in a script), show what search_code would
return, and show a symbol's definitions, callers and imports from the index."""

from __future__ import annotations

from pathlib import Path

from paicli.cli.backend import CommandReply
from paicli.cli.commands import CommandContext
from paicli.codeindex.indexer import CodeIndex, RefreshReport
from paicli.codeindex.store import IndexUnavailable
from paicli.codeindex.tool import NOT_INDEXED, heading, progress_note
from paicli.termsafe import strip_terminal

PREVIEW_LINES = 6
GRAPH_ROWS = 20
UNAVAILABLE = "代码索引不可用（本会话未建立代码索引）。"


def _index(ctx: CommandContext) -> CodeIndex | None:
    return ctx.session.parts.code_index.get() if ctx.session.parts.code_index is not None else None


def done_text(report: RefreshReport) -> str:
    size = report.size_bytes / (1024 * 1024)
    return (
        f"✅ 代码索引已更新：{report.files} 个文件（本次解析 {report.parsed} 个，移除 {report.removed} 个），"
        f"{report.chunks} 个片段，{report.symbols} 个符号，用时 {report.seconds:.1f} 秒，索引 {size:.1f} MB。"
        "下一轮起模型可以用 search_code。"
    )


def index_command(ctx: CommandContext, args: str) -> None:
    index = _index(ctx)
    if index is None:
        ctx.reply(CommandReply(UNAVAILABLE, ok=False))
        return
    if args.strip() and (index.root / Path(args.strip()).expanduser()).resolve() != index.root.resolve():
        ctx.reply(
            CommandReply(f"❌ 只能索引当前项目：{index.root}（在那个目录里启动 paicli 来索引它）", ok=False)
        )
        return
    if index.running:
        done, total = index.progress
        ctx.reply(CommandReply(f"⏳ 代码索引正在建立：{done}/{total} 个文件。"))
        return
    if not ctx.io.interactive:  # a script's next line may search: build before answering
        try:
            ctx.reply(CommandReply(done_text(index.refresh_now())))
        except (IndexUnavailable, OSError) as error:
            ctx.reply(CommandReply(f"❌ 建立代码索引失败：{error}", ok=False))
        return
    post = ctx.session.parts.notices.post

    def finished(report: RefreshReport | None, error: str | None) -> None:
        post(done_text(report) if report is not None else f"❌ 建立代码索引失败：{error}")

    index.start(finished)
    ctx.reply(
        CommandReply(
            f"🔍 正在后台为 {index.root} 建立代码索引（只读取有变化的文件），完成后会提示；/index 查看进度。"
        )
    )


def _asked_of_ready_index(ctx: CommandContext, args: str, usage: str) -> tuple[CodeIndex, str] | None:
    """The index and the command's argument; None once the usage or the not-indexed line is replied."""
    index = _index(ctx)
    asked = args.strip()
    if not asked:
        ctx.reply(CommandReply(usage, ok=False))
        return None
    if index is None or not index.ready:
        ctx.reply(CommandReply(NOT_INDEXED, ok=False))
        return None
    return index, asked


def search_command(ctx: CommandContext, args: str) -> None:
    found = _asked_of_ready_index(ctx, args, "用法：/search <查询>")
    if found is None:
        return
    index, query = found
    try:
        index.fresh()
        hits = index.search(query, 10)
    except IndexUnavailable as error:
        ctx.reply(CommandReply(f"❌ {error}", ok=False))
        return
    if not hits:
        ctx.reply(CommandReply(f"没有找到与「{query}」相关的代码。{progress_note(index)}"))
        return
    parts = [f"🔎 「{query}」的结果：{progress_note(index)}"]
    for rank, hit in enumerate(hits, 1):
        preview = "\n".join("     " + line for line in hit.text.splitlines()[:PREVIEW_LINES])
        parts.append(f"{heading(rank, hit)}\n{strip_terminal(preview)}")
    ctx.reply(CommandReply("\n".join(parts)))


def graph_command(ctx: CommandContext, args: str) -> None:
    found = _asked_of_ready_index(ctx, args, "用法：/graph <符号>（类名、函数名或 类.方法）")
    if found is not None:
        index, symbol = found
        ctx.reply(CommandReply(graph_text(index, symbol)))


def graph_text(index: CodeIndex, symbol: str) -> str:
    store = index.store
    definitions = store.definitions(symbol)
    callers = store.callers(symbol, GRAPH_ROWS)
    importers = store.importers(symbol, GRAPH_ROWS)
    if not definitions and not callers and not importers:
        return f"索引里没有找到符号 {symbol}。"
    lines = [f"🕸️ {symbol}"]
    lines.append("定义：" if definitions else "定义：（索引里没有）")
    lines.extend(f"  {d.path}:{d.line} {d.kind} {d.qualified}" for d in definitions[:GRAPH_ROWS])
    lines.append("调用者：" if callers else "调用者：（没有找到）")
    lines.extend(f"  {c.path}:{c.start}-{c.end} {c.symbol or '（模块代码）'}" for c in callers)
    files = list(dict.fromkeys(d.path for d in definitions))[:5]
    for path, imports in store.imports_of(files).items():
        lines.append(f"{path} 的导入：" + ("" if imports else "（无）"))
        lines.extend(f"  {line}" for line in imports[:GRAPH_ROWS])
    if importers:
        lines.append("导入它的文件：")
        lines.extend(f"  {path}: {line}" for path, line in importers)
    return strip_terminal("\n".join(lines))
