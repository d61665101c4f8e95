"""`paicli --help` as build_parser() renders it, kept here so that printing it imports nothing.

Generated: `python -m paicli.cli.help_text` rewrites this file; tests/cli/test_help_text.py fails when it no longer
matches what the parser prints. It is used only under the Python version that rendered it.
"""

from __future__ import annotations

RENDERED_BY = (3, 11)
HELP = "usage: paicli [-h] [--version] [-p TASK]\n              [--output-format {text,json,stream-json}] [-y] [--trust-project]\n              [--max-turns N] [--model NAME] [-c] [--resume [SESSION_ID]]\n              [--setup] [--plan | --team]\n\npaicli: 终端编程 Agent（短期记忆、长期记忆与上下文压缩）。不带参数启动交互式 REPL。\n\noptions:\n  -h, --help            show this help message and exit\n  --version             打印版本号后退出\n  -p TASK, --print TASK\n                        一次性执行任务（ReAct 模式）后退出\n  --output-format {text,json,stream-json}\n                        -p 的输出格式：text（默认）、json 或 stream-json\n  -y, --yes             自动批准所有需要人工确认的工具调用\n  --trust-project       信任当前文件夹：启用它的 .paicli/skills、.paicli/prompts 和\n                        .paicli/mcp.json（-p 和管道输入默认忽略）\n  --max-turns N         工具循环最多调用模型 N 次（每次都可以调用工具）；第 N\n                        次仍要调用工具时，再用一次不带工具的调用整理部分结果，所以 num_turns 最多为\n                        N+1。--plan/--team 中每个任务各自计数\n  --model NAME          本次运行使用的模型（model 或 provider/model）\n  -c, --continue        在本项目最新的会话上继续（REPL 或 -p）\n  --resume [SESSION_ID]\n                        恢复指定会话；不给 ID 时列出会话供选择\n  --setup               重新运行首次设置：选择模型服务、填写 API Key 并保存\n  --plan                与 -p 一起使用：Plan-and-Execute 模式\n  --team                与 -p 一起使用：Team 多 Agent 模式\n\n模型服务配置（依次查找：环境变量、./.env、$PAICLI_HOME/.env、~/.env）：\n  PAICLI_BASE_URL, PAICLI_API_KEY, PAICLI_MODEL   任意 OpenAI 兼容接口（设置后优先；本机服务可不设 Key）\n  DEEPSEEK_API_KEY       DeepSeek（默认模型 deepseek-flash，可用 DEEPSEEK_MODEL；地址 DEEPSEEK_BASE_URL）\n  GLM_API_KEY            智谱 GLM（默认模型 glm-5.1，可用 GLM_MODEL；地址 GLM_BASE_URL）\n  HUNYUAN_API_KEY        腾讯混元（默认模型 hy4-preview，可用 HUNYUAN_MODEL；地址 HUNYUAN_BASE_URL）\n  STEP_API_KEY           阶跃星辰 Step（默认模型 step-3.5-flash，可用 STEP_MODEL；地址 STEP_BASE_URL）\n  KIMI_API_KEY           Kimi（月之暗面）（默认模型 kimi-k2.6，可用 KIMI_MODEL；地址 KIMI_BASE_URL）\n  FREELLMAPI_API_KEY     FreeLLMAPI（默认模型 auto，可用 FREELLMAPI_MODEL；地址 FREELLMAPI_BASE_URL）\n  XFYUN_MAAS_API_KEY     讯飞星辰 MaaS（模型需设置 XFYUN_MAAS_MODEL；地址 XFYUN_MAAS_BASE_URL）\n  AGNES_API_KEY          Agnes（默认模型 agnes-2.0-flash，可用 AGNES_MODEL；地址 AGNES_BASE_URL）\n  OPENAI_API_KEY         OpenAI（默认模型 gpt-4o-mini，可用 OPENAI_MODEL；地址 OPENAI_BASE_URL）\n  PAICLI_CONTEXT_WINDOW  当前模型的上下文窗口（tokens），本机模型请按实际设置\n首次在终端运行 paicli 会引导设置并保存到 $PAICLI_HOME/.env；paicli --setup 可重新设置。\n"


def _write() -> None:
    import json
    import sys
    from pathlib import Path

    from paicli.cli.app import build_parser

    text = build_parser().format_help()
    source = Path(__file__).read_text(encoding="utf-8")
    head = source[: source.index("RENDERED_BY = ")]
    tail = source[source.index("\n\n\ndef _write") :]
    literal = json.dumps(text, ensure_ascii=False)  # a double-quoted Python literal too, as ruff formats it
    body = f"RENDERED_BY = {tuple(sys.version_info[:2])!r}\nHELP = {literal}"
    Path(__file__).write_text(head + body + tail, encoding="utf-8")


if __name__ == "__main__":
    _write()
