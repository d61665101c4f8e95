from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from paicli.config.env import ConfigError, EnvLookup
from paicli.config.values import PromptValues
from paicli.prompt.assembler import AgentPromptBuilder, PromptAssembler, PromptContext, PromptMode
from paicli.prompt.repository import PromptRepository

FIXED = {"PAICLI_PROMPT_RUNTIME_DATE": "2026-09-23", "PAICLI_PROMPT_RUNTIME_ZONE": "Asia/Shanghai"}
HANDOFF_PHRASES = [
    "最终回复遵守用户明确指定的输出格式",
    "不添加 Markdown 代码围栏",
    "未指定严格格式时",
    "不要为满足格式而编造未知值",
    "整条回复必须是一个合法 JSON 值",
    "严格格式优先于默认",
]
MODE_HEADINGS = {
    PromptMode.AGENT: "## Mode: ReAct Agent",
    PromptMode.PLAN: "## Mode: Plan Task Executor",
    PromptMode.PLANNER: "## Mode: Plan Builder",
    PromptMode.TEAM_PLANNER: "## Mode: Team Planner",
    PromptMode.TEAM_WORKER: "## Mode: Team Worker",
    PromptMode.TEAM_REVIEWER: "## Mode: Team Reviewer",
}


def assembler(root: Path, home: Path, environ: dict[str, str] | None = None) -> PromptAssembler:
    return PromptAssembler(
        PromptRepository(root, home),
        PromptValues.parse(EnvLookup(environ=FIXED if environ is None else environ)),
    )


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    root, home = tmp_path / "proj", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    return root, home


def positions(prompt: str, markers: list[str]) -> list[int]:
    found = [("\n" + prompt + "\n").find("\n" + marker + "\n") for marker in markers]
    assert -1 not in found, [m for m, at in zip(markers, found, strict=True) if at == -1]
    return found


def test_sections_follow_the_article_order_stable_first(dirs: tuple[Path, Path]) -> None:
    ctx = PromptContext(
        skill_index="- web-access: 访问网页",
        project_memory="## PAI.md 项目记忆\n\n用 uv",
        memory_context="## 相关长期记忆\n\n- [FACT] 项目使用 Java 17\n\n",
    )
    prompt = assembler(*dirs).assemble(PromptMode.AGENT, ctx)
    order = [
        "## Identity",
        "## Language",
        "## Tools",
        "## Tool Policy",
        "## Browser Policy",
        "## Memory Policy",
        "## Safety Policy",
        "## Personality",
        "## Mode: ReAct Agent",
        "## Approval Mode",
        "## Context Management",
        "## Handoff",
        "## Skills",
        "## Runtime Context",
        "## Project Context",
        "## PAI.md 项目记忆",
        "## 相关长期记忆",
    ]
    found = positions(prompt, order)
    assert found == sorted(found)
    assert prompt.endswith("- [FACT] 项目使用 Java 17")
    assert "Freshness Policy" not in prompt
    browser = prompt[prompt.index("## Browser Policy") : prompt.index("## Memory Policy")]
    assert all(
        name in browser for name in ("web_fetch", "browser_status", "browser_connect", "browser_disconnect")
    )


def test_empty_dynamic_sections_are_left_out(dirs: tuple[Path, Path]) -> None:
    prompt = assembler(*dirs).assemble(PromptMode.AGENT, PromptContext())
    assert "\n## Skills\n" not in prompt and "\n## Project Context\n" not in prompt
    assert prompt.endswith("- 当前时区: Asia/Shanghai")
    assert "\n\n\n" not in prompt


@pytest.mark.parametrize("mode", list(PromptMode))
def test_every_mode_shares_the_policies(dirs: tuple[Path, Path], mode: PromptMode) -> None:
    prompt = assembler(*dirs).assemble(
        mode, PromptContext(variables={"taskType": "ANALYSIS", "taskDescription": "x"})
    )
    assert MODE_HEADINGS[mode] in prompt
    for phrase in [
        *HANDOFF_PHRASES,
        "## Language",
        "记忆是线索，不是事实",
        'trust="untrusted-data"',
        "一律不执行",
        "不构成访问授权",
        "[已清理的旧工具结果]",
        ".paicli/tool-outputs/",
        "[已压缩的历史对话摘要]",
        "[runaway guard]",
        "## 相关长期记忆",
    ]:
        assert phrase in prompt, phrase
    assert "{{" not in prompt


def test_tool_policy_demands_clarification_grounded_urls_and_observed_arguments(
    dirs: tuple[Path, Path],
) -> None:
    prompt = assembler(*dirs).assemble(PromptMode.AGENT)
    policy = prompt[prompt.index("## Tool Policy") : prompt.index("## Memory Policy")]
    assert "先向用户提问澄清" in policy
    assert "绝不编造 URL" in policy
    assert "不会把前一个调用的结果自动传给后一个调用" in policy and "不得猜测标识符" in policy
    tools = prompt[prompt.index("## Tools") : prompt.index("## Tool Policy")]
    for name in [
        "read_file",
        "write_file",
        "edit_file",
        "list_dir",
        "glob_files",
        "grep_code",
        "execute_command",
        "web_fetch",
        "web_search",
        "save_memory",
    ]:
        assert name in tools.split()  # plain names, one word each (backticks cost tokens)


def test_plan_mode_substitutes_task_variables(dirs: tuple[Path, Path]) -> None:
    ctx = PromptContext(variables={"taskType": "FILE_READ", "taskDescription": "读取 pom.xml"})
    prompt = assembler(*dirs).assemble(PromptMode.PLAN, ctx)
    assert "当前任务类型：FILE_READ" in prompt and "任务描述：读取 pom.xml" in prompt


def test_explicit_runtime_date_and_zone_make_the_prompt_deterministic(dirs: tuple[Path, Path]) -> None:
    root, home = dirs
    first = PromptAssembler(
        PromptRepository(root, home),
        PromptValues.parse(EnvLookup(environ=FIXED)),
        clock=lambda: datetime(2020, 1, 1, tzinfo=timezone.utc),
    )
    second = PromptAssembler(
        PromptRepository(root, home),
        PromptValues.parse(EnvLookup(environ=FIXED)),
        clock=lambda: datetime(2031, 5, 5, tzinfo=timezone.utc),
    )
    assert first.assemble(PromptMode.AGENT) == second.assemble(PromptMode.AGENT)
    assert "## Runtime Context\n\n- 当前日期: 2026-09-23\n- 当前时区: Asia/Shanghai" in first.assemble(
        PromptMode.AGENT
    )


def test_runtime_date_follows_the_clock_in_the_zone(dirs: tuple[Path, Path]) -> None:
    root, home = dirs
    evening_utc = datetime(2026, 9, 22, 20, 0, tzinfo=timezone.utc)
    shanghai = PromptAssembler(
        PromptRepository(root, home),
        PromptValues.parse(EnvLookup(environ={"PAICLI_PROMPT_RUNTIME_ZONE": "Asia/Shanghai"})),
        clock=lambda: evening_utc,
    )
    utc = PromptAssembler(
        PromptRepository(root, home),
        PromptValues.parse(EnvLookup(environ={"PAICLI_PROMPT_RUNTIME_ZONE": "UTC"})),
        clock=lambda: evening_utc,
    )
    assert "- 当前日期: 2026-09-23\n- 当前时区: Asia/Shanghai" in shanghai.runtime_context()
    assert "- 当前日期: 2026-09-22\n- 当前时区: UTC" in utc.runtime_context()


@pytest.mark.parametrize(
    "environ",
    [
        {"PAICLI_PROMPT_RUNTIME_DATE": "2026-13-01"},
        {"PAICLI_PROMPT_RUNTIME_DATE": "tomorrow"},
        {"PAICLI_PROMPT_RUNTIME_ZONE": "Mars/Olympus"},
        {"PAICLI_PROMPT_RUNTIME_ZONE": "../../etc/passwd"},
    ],
)
def test_invalid_explicit_runtime_context_is_rejected(
    dirs: tuple[Path, Path], environ: dict[str, str]
) -> None:
    with pytest.raises(ConfigError):
        assembler(*dirs, environ=environ)


def test_tools_disabled_variant_replaces_tool_sections(dirs: tuple[Path, Path]) -> None:
    prompt = assembler(*dirs).assemble(PromptMode.AGENT, PromptContext(tools_enabled=False))
    assert "## Tools\n" not in prompt and "## Tool Policy" not in prompt
    assert "## Tool Availability" in prompt
    for phrase in ["当前模型不支持 PaiCLI 原生工具调用", "绝对不要输出伪造的工具标签", "<toolcall>"]:
        assert phrase in prompt
    found = positions(prompt, ["## Language", "## Tool Availability", "## Memory Policy"])
    assert found == sorted(found)


def test_without_tools_the_skills_index_is_left_out_and_the_fallback_rewrite_agrees(
    dirs: tuple[Path, Path],
) -> None:
    index = "## 可用 Skills（按需调用 load_skill 加载完整指引）\n\n先调用 `load_skill`。\n\n- `deploy-check`: 上线清单"
    pai_md = "## Skills\n\n本项目的 skills/ 目录放部署脚本"  # PAI.md's own heading of that name stays
    asm = assembler(*dirs)
    with_tools = asm.assemble(PromptMode.AGENT, PromptContext(skill_index=index, project_memory=pai_md))
    without = asm.assemble(
        PromptMode.AGENT, PromptContext(tools_enabled=False, skill_index=index, project_memory=pai_md)
    )
    assert "\n## Skills\n\n## 可用 Skills" in with_tools and "deploy-check" in with_tools
    assert "load_skill" not in without and "deploy-check" not in without and "## 可用 Skills" not in without
    assert without.endswith(pai_md) and "## Tool Availability" in without
    # a model found to reject tools gets, from the prompt built with them, exactly the no-tools prompt
    assert asm.tools_disabled(with_tools) == without
    assert asm.tools_disabled(without) == without


def test_project_override_beats_user_override_beats_bundled(dirs: tuple[Path, Path]) -> None:
    root, home = dirs
    (home / "prompts" / "modes").mkdir(parents=True)
    (home / "prompts" / "modes" / "agent.md").write_text(
        "## Mode: User Agent\n\n用户级覆盖", encoding="utf-8"
    )
    prompt = assembler(root, home).assemble(PromptMode.AGENT)
    assert "## Mode: User Agent" in prompt and "## Mode: ReAct Agent" not in prompt
    (root / ".paicli" / "prompts" / "modes").mkdir(parents=True)
    (root / ".paicli" / "prompts" / "modes" / "agent.md").write_text(
        "## Mode: Project Agent", encoding="utf-8"
    )
    prompt = assembler(root, home).assemble(PromptMode.AGENT)
    assert "## Mode: Project Agent" in prompt and "User Agent" not in prompt
    assert "## Identity" in prompt  # other files still come from the bundle


def test_base_override_must_keep_the_language_section(dirs: tuple[Path, Path]) -> None:
    root, home = dirs
    (root / ".paicli" / "prompts").mkdir(parents=True)
    (root / ".paicli" / "prompts" / "base.md").write_text("## Identity\n\n我是别的助手", encoding="utf-8")
    with pytest.raises(ConfigError, match="## Language"):
        assembler(root, home).assemble(PromptMode.AGENT)
    (root / ".paicli" / "prompts" / "base.md").write_text(
        "## Identity\n\n助手\n\n## Language\n\n中文", encoding="utf-8"
    )
    assert assembler(root, home).assemble(PromptMode.AGENT).startswith("## Identity\n\n助手\n\n## Language")


def test_builder_rereads_project_memory_and_only_the_tail_changes_with_memories(
    dirs: tuple[Path, Path],
) -> None:
    pai = {"text": "## PAI.md 项目记忆\n\n第一版"}
    builder = AgentPromptBuilder(assembler(*dirs), PromptMode.AGENT, lambda: pai["text"])
    plain = builder.build()
    assert builder.build() == plain
    with_memory = builder.build("## 相关长期记忆\n\n说明\n\n- [FACT] 用 uv\n\n")
    assert with_memory.startswith(plain) and with_memory.endswith("- [FACT] 用 uv")
    other_memory = builder.build("## 相关长期记忆\n\n说明\n\n- [FACT] 用 pip\n\n")
    common = len(plain)
    assert with_memory[:common] == other_memory[:common]
    pai["text"] = "## PAI.md 项目记忆\n\n第二版"
    assert "第二版" in builder.build() and "第一版" not in builder.build()
