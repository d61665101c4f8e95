"""Handlers of `/skill`, `/config`, `/audit` and `/export --view` (spec 10.3): plain functions over the session's
parts, returning the reply text, so the backend stays a thin dispatcher and the handlers test without a REPL."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from paicli.cli.backend import CommandReply
from paicli.config.knob_types import Knob
from paicli.config.knobs import HOME
from paicli.config.settings import Settings, mask_key
from paicli.config.sources import ConfigSources
from paicli.context.internal import is_skill_injection, skill_names
from paicli.fsperm import write_private_text
from paicli.llm.messages import Message
from paicli.redact import Redactor
from paicli.termsafe import strip_terminal
from paicli.tools.audit import AuditLog, format_audit
from paicli.tools.skills import SOURCE_LABELS, SkillCatalog

SKILL_USAGE = (
    "用法: /skill [list] | /skill show <名称> | /skill on <名称> | /skill off <名称> | /skill reload"
)
CACHE_NOTE = "✅ 下一次模型调用生效（系统提示中的 Skill 列表变了，这一次请求的前缀缓存不会命中）"
_SECRET_NAME = re.compile(r"(?i)(key|token|secret|password)")

# ---- /skill ----------------------------------------------------------------------------------------


def skill_command(catalog: SkillCatalog, args: str) -> CommandReply:
    sub, _, rest = args.strip().partition(" ")
    sub, name = sub.lower(), rest.strip()
    if sub in ("", "list") and not name:
        return CommandReply(skill_list(catalog))
    if sub == "reload" and not name:
        return CommandReply(skill_reload(catalog))
    if sub in ("show", "on", "off") and name:
        skill = catalog.get(name)
        if skill is None:
            known = "、".join(s.name for s in catalog.all()) or "（没有）"
            return CommandReply(f"❌ 没有名为 {name} 的 Skill。已有的 Skill：{known}", ok=False)
        if sub == "show":
            return CommandReply(skill_show(catalog, name))
        enable = sub == "on"
        if not catalog.set_enabled(skill.name, enable):
            state = "启用" if enable else "停用"
            return CommandReply(f"ℹ️ Skill {skill.name} 本来就是{state}状态，系统提示没有变化。")
        verb = "启用" if enable else "停用"
        return CommandReply(f"✅ 已{verb} Skill {skill.name}（{catalog.summary()}）\n{CACHE_NOTE}")
    return CommandReply(f"❌ 无法识别的 /skill 用法: {args.strip()}\n{SKILL_USAGE}", ok=False)


def skill_list(catalog: SkillCatalog) -> str:
    skills = catalog.all()
    if not skills:
        return (
            f"📭 还没有可用的 Skill。把 SKILL.md 放到 ${HOME.key}/skills/<名称>/ 或项目的 .paicli/skills/<名称>/ "
            "后执行 /skill reload。"
        )
    enabled, total = catalog.counts()
    lines = [f"🧩 Skills（已启用 {enabled}/{total}）："]
    width = max(len(s.name) for s in skills)
    for skill in skills:
        mark = "✅" if catalog.is_enabled(skill.name) else "⛔"
        source = SOURCE_LABELS[skill.source] + ("·不可信" if not skill.trusted else "")
        shown = strip_terminal(skill.description)
        description = shown if len(shown) <= 60 else shown[:59] + "…"
        lines.append(f"  {mark} {skill.name.ljust(width)}  [{source}] {description}")
    lines.append(SKILL_USAGE)
    return "\n".join(lines)


def skill_show(catalog: SkillCatalog, name: str) -> str:
    skill = catalog.get(name)
    assert skill is not None
    state = "已启用" if catalog.is_enabled(skill.name) else "已停用"
    trust = "，不可信" if not skill.trusted else ""
    head = f"📄 Skill {skill.name}（来源：{skill.source}{trust}，{state}）\n   目录: {skill.directory}\n   描述: {skill.description}"
    return f"{head}\n\n{skill.body}"


def skill_reload(catalog: SkillCatalog) -> str:
    before = catalog.index_text()
    problems = catalog.reload()
    enabled, total = catalog.counts()
    lines = ["🔄 已重新扫描 skill 目录", f"   共 {total} 个 Skill，已启用 {enabled} 个"]
    lines.extend(f"   {problem.warning()}" for problem in problems)
    if catalog.index_text() != before:
        lines.append(CACHE_NOTE)
    else:
        lines.append("✅ Skill 列表没有变化，系统提示保持不变")
    return "\n".join(lines)


# ---- /config ---------------------------------------------------------------------------------------


def config_report(settings: Settings, sources: ConfigSources, extra_keys: Sequence[str] = ()) -> str:
    from paicli.config import knobs

    rows = [*_endpoint_rows(settings, sources), *_side_rows(settings, sources)]
    width = max(len(label) for label, _, _ in rows)
    lines = ["⚙️ 当前生效的配置（值 · 来源）："]
    lines.extend(f"  {label.ljust(width)}  {value} · {source}" for label, value, source in rows)
    shown = {
        knobs.CONTEXT_WINDOW.key,
        knobs.LIGHT_MODEL.key,
        knobs.COMPACTION_MODEL.key,
        knobs.APPROVAL_MODE.key,
        knobs.MEMORY_PLACEMENT.key,
        knobs.HOME.key,
        *_generic_keys(),
    }
    declared = [knob.key for knob in knobs.ALL_KNOBS]
    others = [key for key in (*declared, *extra_keys) if key not in shown and sources.get(key) is not None]
    if others:
        lines.append("  其他已设置的选项：")
        for key in dict.fromkeys(others):
            lines.append(f"    {key} = {_display(key, sources.get(key) or '')} · {sources.source_of(key)}")
    return "\n".join(lines)


Row = tuple[str, str, str]  # label, value, where it came from


def _generic_keys() -> tuple[str, ...]:
    from paicli.config.providers import GENERIC, provider

    generic = provider(GENERIC)
    return (*generic.key_envs, *generic.model_envs, *generic.base_url_envs)


def _endpoint_rows(settings: Settings, sources: ConfigSources) -> list[Row]:
    from paicli.config.providers import GENERIC, provider

    spec, generic, config_file = settings.provider_spec, provider(GENERIC), settings.config_path
    saved = _saved_provider(settings)
    chosen_by = _source(sources, (*generic.base_url_envs, *spec.key_envs), "自动选择（第一个可用的 Key）")
    model_from = _saved_or_default(saved.get("model"), settings.model, config_file)
    url_from = _saved_or_default(saved.get("baseUrl"), settings.base_url, config_file)
    key_from = _saved_or_default(saved.get("apiKey"), settings.api_key, config_file)
    return [
        ("provider", settings.provider, chosen_by),
        ("model", settings.model, _source(sources, spec.model_envs, model_from)),
        (
            "base_url",
            settings.base_url,
            _source(sources, spec.base_url_envs, url_from, value=settings.base_url),
        ),
        ("api_key", settings.masked_api_key, _source(sources, spec.key_envs, key_from)),
    ]


def _side_rows(settings: Settings, sources: ConfigSources) -> list[Row]:
    from paicli.config import knobs

    def configured(knob: Knob[object], fallback: str) -> str:
        return _source(sources, (knob.key,), fallback)

    return [
        ("context_window", f"{settings.context_window:,}", configured(knobs.CONTEXT_WINDOW, "按模型推导")),
        ("light_model", settings.light_model, configured(knobs.LIGHT_MODEL, "同会话模型")),
        ("compaction_model", settings.compaction_model, configured(knobs.COMPACTION_MODEL, "同会话模型")),
        ("approval_mode", settings.approval_mode, configured(knobs.APPROVAL_MODE, "默认")),
        ("memory_placement", settings.memory_placement, configured(knobs.MEMORY_PLACEMENT, "默认")),
        (knobs.HOME.key, str(settings.paicli_home), configured(knobs.HOME, "默认（~/.paicli）")),
        ("project_root", str(settings.project_root), "启动时的工作目录"),
    ]


def _source(sources: ConfigSources, keys: Sequence[str], fallback: str, value: str | None = None) -> str:
    """`value`: the one in use, when a less trusted source's value may have been refused (a base URL)."""
    for key in keys:
        for found in sources.candidates(key):
            if value is not None and found.value.rstrip("/") != value.rstrip("/"):
                continue
            where = found.source
            return f"{where} {key}" if where == "环境变量" else f"{key}（{where}）"
    return fallback


def _saved_provider(settings: Settings) -> dict[str, str]:
    from paicli.config.config_file import load_config_file

    try:
        saved = load_config_file(settings.config_path).provider_config(settings.provider)
    except Exception:  # a broken config.json already failed start-up; the report must not fail
        return {}
    values = {"model": saved.model, "baseUrl": saved.base_url, "apiKey": saved.api_key}
    return {k: v for k, v in values.items() if isinstance(v, str) and v}


def _saved_or_default(saved: str | None, value: str | None, config_file: Path) -> str:
    if saved and value and saved.rstrip("/") == value.rstrip("/"):
        return str(config_file)
    return "默认值 / 命令行"


def _display(key: str, value: str) -> str:
    return mask_key(value) if _SECRET_NAME.search(key) else value


# ---- /audit ----------------------------------------------------------------------------------------


def audit_command(audit: AuditLog, args: str) -> CommandReply:
    raw = args.strip() or "10"
    if not raw.isdigit() or not 1 <= int(raw) <= 100:
        return CommandReply(f"❌ /audit 的条数应是 1 到 100 之间的整数，收到: {raw}", ok=False)
    text = format_audit(audit.recent(int(raw)))
    return CommandReply(f"{text}\n   审计目录: {audit.directory}")


# ---- /export ---------------------------------------------------------------------------------------

ROLE_TITLES = {"user": "👤 用户", "assistant": "🤖 助手", "tool": "🔧 工具结果"}


def export_command(
    history: Sequence[Message],
    args: str,
    *,
    home: Path,
    project_root: Path,
    session_id: str,
    model: str,
    now: Callable[[], datetime] = datetime.now,
    redactor: Redactor | None = None,
    system: bool = False,
) -> CommandReply:
    """`/export --view`: the view the model continues from (`system`: its system prompt first)."""
    messages = [m for m in history if m.role != "system"]
    if not messages:
        return CommandReply("📭 当前对话还没有任何消息，没有可导出的内容（没有写入文件）。")
    when = now()
    prompt = next((m.text for m in history if m.role == "system"), "") if system else ""
    text = conversation_markdown(messages, session_id, model, when, redactor or Redactor(), prompt)
    target = export_target(args, home, project_root, when)
    failed = write_export(target, text, home)
    if failed is not None:
        return failed
    return CommandReply(f"✅ 对话记录已导出: {target}\n   共 {len(messages)} 条消息")


def export_target(args: str, home: Path, project_root: Path, when: datetime) -> Path:
    """FILE as given (relative to the project), else `<home>/exports/session-<time>.md`."""
    target = (
        Path(args.strip()).expanduser()
        if args.strip()
        else (home / "exports" / f"session-{when.strftime('%Y-%m-%d_%H-%M-%S')}.md")
    )
    return target if target.is_absolute() else project_root / target


def write_export(target: Path, text: str, home: Path) -> CommandReply | None:
    """Write an export (private under the paicli home); a failure is a clear reply, else None."""
    try:
        if target.resolve().is_relative_to(home.resolve()):
            write_private_text(target, text)  # everything under the paicli home stays private
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    except OSError as error:
        return CommandReply(f"❌ 导出失败: {target}: {error.strerror or error}", ok=False)
    return None


def conversation_markdown(
    messages: Sequence[Message],
    session_id: str,
    model: str,
    when: datetime,
    redactor: Redactor | None = None,
    system_prompt: str = "",
) -> str:
    """The transcript as Markdown, redacted like the ledger (an export is a file on disk too)."""
    scrub = redactor or Redactor()
    parts = [
        f"# paicli 对话记录\n\n- 会话: {session_id}\n- 模型: {model}\n- 导出时间: {when.strftime('%Y-%m-%d %H:%M:%S')}\n"
    ]
    if system_prompt:
        parts.append("- 内容: 模型此刻看到的上下文（压缩后的视图，含程序注入的内容）\n")
        parts.append(f"## ⚙️ 系统提示\n\n{_fenced(system_prompt)}\n")
    for message in messages:
        parts.append(_message_markdown(message, scrub))
    return scrub.text("\n".join(parts).rstrip() + "\n")


def _message_markdown(message: Message, scrub: Redactor) -> str:
    content = message.text
    if is_skill_injection(message):
        return f"## 🧩 Skill 注入：{'、'.join(skill_names(message))}\n\n{_fenced(content)}\n"
    title = ROLE_TITLES.get(message.role, message.role)
    lines = [f"## {title}\n"]
    if message.role == "tool":
        lines.append(_fenced(content))
    elif content.strip():
        lines.append(content.strip())
    for call in message.tool_calls:
        lines.append(f"\n**调用工具** `{call.name}`\n\n{_fenced(scrub.arguments(call.arguments), 'json')}")
    return "\n".join(lines) + "\n"


def _fenced(text: str, language: str = "") -> str:
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"
