"""The built-in slash commands: one frozen row each, in /help order, with its handler (cli/command_handlers.py),
argument check, idle-only flag and completions. A new command is one row here plus its test."""

from __future__ import annotations

from paicli.cli import browser_command as bc
from paicli.cli import code_commands as code
from paicli.cli import command_handlers as h
from paicli.cli import compaction_commands as cc
from paicli.cli import effort_command as ec
from paicli.cli import permissions_command as pc
from paicli.cli import task_commands as tc
from paicli.cli.commands import (
    CommandSpec,
    CommandTable,
    Completions,
    Form,
    any_args,
    count_args,
    forms_args,
    mcp_args,
    one_of,
    skill_args,
)
from paicli.config.modes import MODE_NAMES, MODES
from paicli.memory.commands import MEMORY_FORMS

_MEMORY_FORMS = tuple(Form(args, text) for args, text in MEMORY_FORMS)
_SAVE: Completions = (
    ("--global", "保存为对所有项目生效的全局记忆"),
    ("--project", "明确保存为本项目的记忆（默认）"),
    ("--force", "与已有记忆冲突时仍然两条都保留"),
)
_MODEL_FORMS = (
    Form("list", "列出已配置的模型"),
    Form("info [<模型>]", "查看当前（或指定）模型的信息"),
    Form("add <provider> <模型 id>", "把一个模型加入模型目录（config.json）"),
    Form("refresh <provider>", "从 provider 的模型列表刷新模型目录"),
)
_SKILL_FORMS = (
    Form("list", "列出全部 Skill 及来源、是否启用"),
    Form("show <名称>", "显示一个 Skill 的说明"),
    Form("on <名称>", "启用一个 Skill"),
    Form("off <名称>", "停用一个 Skill"),
    Form("reload", "重新扫描 Skill 目录"),
)
_MCP_FORMS = (
    Form("restart <名称>", "重启一个服务器"),
    Form("logs <名称>", "查看服务器的输出"),
    Form("disable <名称>", "停用一个服务器"),
    Form("enable <名称>", "启用一个服务器"),
    Form("resources [<名称>]", "列出资源"),
    Form("prompts [<名称>]", "列出提示词"),
)
_MODE: Completions = tuple((mode.name, mode.hint) for mode in MODES)
_HITL: Completions = (("on", "每次危险操作都请求确认"), ("default", "恢复默认确认策略"))
_INIT: Completions = (("--force", "覆盖已有的 PAI.md"),)
_HISTORY: Completions = (("clear", "清空输入历史"),)
_COMPACT_FORMS = (
    Form("show", "查看上次压缩的摘要与回执（保留了什么、摘要了什么、清理了什么，以及代价）"),
    Form("--preview [<重点>]", "只预览摘要，不应用"),
    Form("undo", "撤销上次压缩（恢复压缩前的上下文，之后的对话保留）"),
)
_PIN_FORMS = (Form("last", "固定你的上一条消息"),)
_EXPORT: Completions = (("--view", "导出模型此刻看到的上下文"),)
_SNAPSHOT: Completions = (
    ("list", "列出快照"),
    ("status", "查看快照状态"),
    ("clean", "删除全部快照（clean --all：整个快照库）"),
)
_REWIND: Completions = (("--conversation", "只回退对话"), ("--files", "只恢复文件"))
_SCOPE_FLAGS = ("--conversation", "--chat", "--files")


def _rewind_args(args: str) -> bool:
    """A number or search words, with at most one of the scope flags."""
    return sum(word.lower() in _SCOPE_FLAGS for word in args.split()) <= 1


def _sessions_args(args: str) -> bool:
    words = args.split()
    return not words or (words[0].lower() == "clean" and len(words) <= 2)


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("help", "/help", "显示可用命令及用法", handler=h.help_command),
    CommandSpec(
        "clear",
        "/clear",
        "清空当前对话历史（长期记忆不受影响）",
        bare_words=("clear",),
        bare_question="⚠️ 要清空当前对话历史吗？输入 y 清空，直接回车取消：",
        handler=h.clear,
        idle_only=True,
    ),
    CommandSpec(
        "compact",
        "/compact [<重点>]",
        "立即压缩对话上下文，可附带摘要时要保留的重点",
        accepts=any_args,
        handler=h.compact,
        idle_only=True,  # it replaces the view the running task is using (so does undo)
        forms=_COMPACT_FORMS,
    ),
    CommandSpec(
        "pin",
        "/pin <内容>",
        "固定一段话：原文一直留在上下文里，压缩不会移走",
        accepts=any_args,
        handler=cc.pin_command,
        forms=_PIN_FORMS,
    ),
    CommandSpec("pins", "/pins", "列出固定内容", handler=cc.pins_command),
    CommandSpec("unpin", "/unpin <编号>", "取消一条固定内容", accepts=count_args, handler=cc.unpin_command),
    CommandSpec(
        "context",
        "/context",
        "查看上下文窗口占用：系统提示、工具定义、对话各占多少",
        aliases=("ctx",),
        handler=h.context,
    ),
    CommandSpec(
        "memory",
        "/memory [<子命令>]",
        "查看长期记忆的状态和用法",
        aliases=("mem",),
        accepts=forms_args(*_MEMORY_FORMS),
        handler=h.memory,
        forms=_MEMORY_FORMS,
    ),
    CommandSpec(
        "save",
        "/save [--global|--project] [--force] <事实>",
        "把一条事实写入长期记忆（默认本项目）",
        accepts=any_args,
        handler=h.save,
        completions=_SAVE,
    ),
    CommandSpec(
        "model",
        "/model [<模型>]",
        "查看当前模型，或切换到其他模型",
        accepts=any_args,
        handler=h.model,
        idle_only=True,
        forms=_MODEL_FORMS,
    ),
    CommandSpec(
        "effort",
        "/effort [low|medium|high|default]",
        "查看或调整推理强度（映射到模型自己的参数，如 reasoning_effort、thinking）",
        accepts=ec.effort_args,
        handler=ec.effort_command,
        idle_only=True,
        completions=ec.EFFORT_COMPLETIONS,
    ),
    CommandSpec(
        "mode",
        f"/mode [{'|'.join(MODE_NAMES)}]",
        "查看或切换会话模式",
        accepts=any_args,
        handler=h.mode,
        idle_only=True,
        completions=_MODE,
    ),
    CommandSpec(
        "hitl",
        "/hitl [on|default]",
        "调整工具调用的人工确认策略",
        accepts=one_of("", "on", "default"),
        handler=h.hitl,
        completions=_HITL,
    ),
    CommandSpec(
        "index",
        "/index",
        "为当前项目建立或更新代码索引（后台进行，只重读有变化的文件）",
        accepts=any_args,
        handler=code.index_command,
    ),
    CommandSpec(
        "search",
        "/search <查询>",
        "在代码索引里检索（中英文），显示路径、行号和符号",
        accepts=any_args,
        handler=code.search_command,
    ),
    CommandSpec(
        "graph",
        "/graph <符号>",
        "从代码索引看一个符号的定义、调用者和导入",
        accepts=any_args,
        handler=code.graph_command,
    ),
    CommandSpec(
        "policy",
        "/policy [reset]",
        "查看安全策略和本会话的“始终允许”；reset 撤销这些允许",
        accepts=one_of("", "reset"),
        handler=h.policy,
    ),
    CommandSpec(
        "permissions",
        "/permissions [<子命令>]",
        "查看、添加、删除权限规则（permissions.json：allow / ask / deny）",
        accepts=forms_args(*pc.PERMISSIONS_FORMS),
        handler=pc.permissions_command,
        forms=pc.PERMISSIONS_FORMS,
    ),
    CommandSpec(
        "plan",
        "/plan [<任务>]",
        "用 Plan-and-Execute 模式执行（不带任务则作用于下一条输入）",
        accepts=any_args,
        handler=h.plan,
    ),
    CommandSpec(
        "team",
        "/team [<任务>]",
        "用多智能体协作模式执行（不带任务则作用于下一条输入）",
        accepts=any_args,
        handler=h.team,
    ),
    CommandSpec(
        "skill",
        "/skill [<子命令>]",
        "查看与管理 Skill",
        accepts=skill_args,
        handler=h.skill,
        forms=_SKILL_FORMS,
    ),
    CommandSpec(
        "mcp",
        "/mcp [<子命令>]",
        "MCP 服务器的状态",
        accepts=mcp_args,
        handler=h.mcp,
        forms=_MCP_FORMS,
    ),
    CommandSpec(
        "browser",
        "/browser [<子命令>]",
        "浏览器工具：查看状态，改用你自己已登录的浏览器，或断开",
        accepts=bc.browser_args,
        handler=bc.browser,
        forms=bc.BROWSER_FORMS,
    ),
    CommandSpec(
        "config",
        "/config",
        "查看当前生效的配置及每一项的来源（密钥已遮盖）",
        accepts=any_args,
        handler=h.config,
        idle_only=True,
        forms=(
            Form(
                "provider <名称> --api-key <KEY> [--base-url <URL>] [--model <模型>] [--default]",
                "保存一个 provider 的配置到 config.json（0600，密钥不回显）",
            ),
        ),
    ),
    CommandSpec(
        "audit",
        "/audit [<条数>]",
        "查看今天最近的工具审计记录（默认 10 条）",
        accepts=count_args,
        handler=h.audit,
    ),
    CommandSpec(
        "export",
        "/export [--view] [<文件>]",
        "把整个对话（含已压缩的部分）导出为 Markdown；--view 导出模型此刻看到的上下文",
        accepts=any_args,
        handler=h.export,
        completions=_EXPORT,
    ),
    CommandSpec(
        "resume",
        "/resume [<编号>|<会话 id>|<关键词>|all]",
        "列出本项目的历史会话并恢复其中一个",
        accepts=any_args,
        handler=h.resume,
        idle_only=True,
    ),
    CommandSpec(
        "task",
        "/task [list|add <任务>|cancel <编号>|log <编号>]",
        "后台任务：在独立会话中排队执行（只运行无需确认的操作），结束时提示",
        accepts=tc.task_args,
        handler=tc.task_command,
        forms=tc.TASK_FORMS,
    ),
    CommandSpec(
        "snapshot",
        "/snapshot [list|status|clean|clean --all]",
        "工作区快照：列出（默认）、查看状态、全部删除（clean --all 删除整个快照库）",
        accepts=one_of("", "list", "status", "clean", "clean --all"),
        handler=h.snapshot,
        completions=_SNAPSHOT,
    ),
    CommandSpec(
        "restore",
        "/restore <编号>",
        "把项目文件恢复到编号为 N 的快照（/snapshot 查看编号；先列出改动，确认后恢复）",
        accepts=count_args,
        handler=h.restore,
        idle_only=True,
    ),
    CommandSpec(
        "undo",
        "/undo",
        "撤回最近一轮（或一次 Plan/Team 运行）对文件的改动，再用一次就撤销这次撤回",
        handler=h.undo,
        idle_only=True,
    ),
    CommandSpec(
        "rewind",
        "/rewind [<N>|<搜索词>] [--conversation|--files]",
        "回到之前某条消息之前：对话和文件一起回退（--conversation 只回退对话，--files 只恢复文件）",
        accepts=_rewind_args,
        handler=h.rewind,
        idle_only=True,
        completions=_REWIND,
    ),
    CommandSpec("fork", "/fork", "从这里分出一个新会话继续，原会话保持不变", handler=h.fork, idle_only=True),
    CommandSpec(
        "rename",
        "/rename <名称>",
        "给当前会话起个名字（/resume 列表里显示，也能按名称搜索）",
        accepts=any_args,
        handler=h.rename,
    ),
    CommandSpec(
        "sessions",
        "/sessions [clean|clean <天数>]",
        "列出本项目的会话；clean 删除超过保留天数没有活动的会话",
        accepts=_sessions_args,
        handler=h.sessions,
        idle_only=True,
        completions=(("clean", "删除过期的会话"),),
    ),
    CommandSpec(
        "init",
        "/init [--force]",
        "为当前项目生成 PAI.md 项目说明",
        accepts=one_of("", "--force"),
        handler=h.init,
        completions=_INIT,
    ),
    CommandSpec(
        "cancel",
        "/cancel",
        "取消正在运行的任务（运行中按 Esc 即可）",
        bare_words=("cancel",),
        handler=h.cancel,
    ),
    CommandSpec(
        "history",
        "/history clear",
        "清空输入历史记录",
        accepts=one_of("clear"),
        handler=h.history,
        completions=_HISTORY,
    ),
    CommandSpec(
        "exit", "/exit", "退出 paicli", aliases=("quit",), bare_words=("exit", "quit"), handler=h.exit_repl
    ),
)

BUILTIN = CommandTable(COMMANDS)
