from __future__ import annotations

import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

from paicli.config.compaction_values import OffloadValues
from paicli.context.offload import ToolResultOffloader, count_lines, head, tail
from tests.context.conftest import MakeEnv

NOTICE = "[工具输出过大，完整内容已卸载到会话文件]"


def big_lines(n: int) -> str:
    return "\n".join(f"line-{i} " + "y" * 20 for i in range(1, n + 1))


def file_of(notice: str) -> str:
    found = re.search(r"(?m)^文件: (\S+)$", notice)
    assert found
    return found.group(1)


def test_small_results_stay_inline(project: Path, make_env: MakeEnv) -> None:
    offloader = ToolResultOffloader(project, OffloadValues.parse(make_env()))
    assert offloader.offload_if_oversized("grep_code", "{}", "small") == "small"
    assert not (project / ".paicli").exists()


def test_oversized_result_is_written_to_session_file_and_summarized(project: Path, make_env: MakeEnv) -> None:
    content = big_lines(2000)
    offloader = ToolResultOffloader(
        project, OffloadValues.parse(make_env()), clock=lambda: datetime(2026, 11, 6, 10, 15, 0)
    )
    notice = offloader.offload_if_oversized("grep_code", '{"q":"x"}', content)
    first_line = notice.split("\n", 1)[0]
    assert first_line.startswith(NOTICE + " recall:")  # the marker byte for byte, then the file's recall id
    assert "tool: grep_code\n" in notice
    assert f"原始大小: {len(content)} 字符 / 2000 行\n" in notice
    assert "line-1 " in notice and "line-2000 " in notice
    assert "--- 开头预览 ---\n" in notice and "\n--- 结尾预览 ---\n" in notice
    relative = file_of(notice)
    assert re.fullmatch(
        r"\.paicli/tool-outputs/session-20261106-101500-[0-9a-f]{6}/001-grep_code\.txt", relative
    )
    assert first_line == f"{NOTICE} recall:{relative[len('.paicli/tool-outputs/') : -len('.txt')]}"
    assert len(notice) < len(content) / 3
    assert (project / relative).read_text(encoding="utf-8") == content
    assert (project / ".paicli/tool-outputs/.gitignore").read_text(encoding="utf-8") == "*\n"
    assert (
        f'读回: read_file {{"path":"{relative}","offset":1,"limit":200}}，按需调整 offset 分段读取\n'
        in notice
    )
    second = offloader.offload_if_oversized("web fetch/x", "{}", content)
    assert file_of(second).endswith("/002-web_fetch_x.txt")


def test_offloaded_file_can_be_read_back_without_reoffloading(project: Path, make_env: MakeEnv) -> None:
    offloader = ToolResultOffloader(project, OffloadValues.parse(make_env()))
    relative = file_of(offloader.offload_if_oversized("grep_code", "{}", big_lines(3000)))
    whole = (project / relative).read_text(encoding="utf-8")
    args = f'{{"path":"{relative}","offset":1500,"limit":3}}'
    assert offloader.offload_if_oversized("read_file", args, whole) == whole
    assert offloader.offload_if_oversized("read_file", f'{{"path":"./{relative}"}}', whole) == whole
    assert offloader.offload_if_oversized("read_file", f'{{"path":"{project / relative}"}}', whole) == whole


def test_read_file_exemption_only_covers_explicit_ranges_and_offload_directory(
    project: Path, make_env: MakeEnv
) -> None:
    offloader = ToolResultOffloader(project, OffloadValues.parse(make_env()))
    content = big_lines(3000)
    assert offloader.offload_if_oversized("read_file", '{"path":"src/a.py","limit":50}', content) == content
    assert offloader.offload_if_oversized(
        "read_file", '{"path":"src/a.py","offset":null}', content
    ).startswith(NOTICE)
    assert offloader.offload_if_oversized("read_file", '{"path":"src/a.py"}', content).startswith(NOTICE)
    assert offloader.offload_if_oversized(
        "grep_code", '{"path":".paicli/tool-outputs/x"}', content
    ).startswith(NOTICE)
    assert offloader.offload_if_oversized("read_file", "not json", content).startswith(NOTICE)


def test_disabled_offloader_passes_through(project: Path, make_env: MakeEnv) -> None:
    offloader = ToolResultOffloader(
        project, OffloadValues.parse(make_env(PAICLI_TOOL_OFFLOAD_ENABLED="false"))
    )
    content = big_lines(5000)
    assert not offloader.enabled
    assert offloader.offload_if_oversized("grep_code", "{}", content) == content
    assert not (project / ".paicli").exists()
    assert offloader.command_capture_limit == 8000
    shown = offloader.command_output_for_context(content)
    assert shown == content[:8000] + "\n...(输出已截断)"


def test_threshold_override_has_a_floor(project: Path, make_env: MakeEnv) -> None:
    assert (
        ToolResultOffloader(
            project, OffloadValues.parse(make_env(PAICLI_TOOL_OFFLOAD_THRESHOLD_CHARS="100"))
        ).threshold
        == 2000
    )
    offloader = ToolResultOffloader(
        project, OffloadValues.parse(make_env(PAICLI_TOOL_OFFLOAD_THRESHOLD_CHARS="5000"))
    )
    assert offloader.offload_if_oversized("t", "{}", "z" * 5000) == "z" * 5000
    assert offloader.offload_if_oversized("t", "{}", "z" * 5001).startswith(NOTICE)


def test_large_command_output_is_recoverable_instead_of_truncated(project: Path, make_env: MakeEnv) -> None:
    offloader = ToolResultOffloader(project, OffloadValues.parse(make_env()))
    output = subprocess.run(["seq", "1", "20000"], capture_output=True, text=True, check=True).stdout
    assert offloader.command_capture_limit == 2_000_000
    notice = offloader.command_output_for_context(output)
    assert notice.startswith(NOTICE) and "输出已截断" not in notice
    assert "tool: execute_command" in notice
    saved = (project / file_of(notice)).read_text(encoding="utf-8")
    assert saved.splitlines() == [str(i) for i in range(1, 20001)]
    preview = notice.split("--- 开头预览 ---\n", 1)[1].split("\n--- 结尾预览 ---\n")[0]
    assert 7000 < len(preview) <= 8000
    assert notice.rstrip().endswith("20000")
    assert offloader.command_output_for_context("short output") == "short output"


def test_command_overflow_is_noted_in_the_saved_file(project: Path, make_env: MakeEnv) -> None:
    offloader = ToolResultOffloader(project, OffloadValues.parse(make_env()))
    notice = offloader.command_output_for_context("o" * 9000, overflowed=True)
    saved = (project / file_of(notice)).read_text(encoding="utf-8")
    assert saved.endswith("...(超过 2000000 字符的部分未保存)\n")


def test_write_failure_falls_back_to_truncation(tmp_path: Path, make_env: MakeEnv) -> None:
    blocker = tmp_path / "root"
    blocker.mkdir()
    (blocker / ".paicli").write_text("a file where a folder should be", encoding="utf-8")
    offloader = ToolResultOffloader(blocker, OffloadValues.parse(make_env()))
    content = "q" * 40_000
    result = offloader.offload_if_oversized("grep_code", "{}", content)
    assert result == "q" * 32_000 + "\n...(输出过大且写入会话文件失败，已截断，原始 40000 字符)"


def test_parallel_offloads_get_distinct_files(project: Path, make_env: MakeEnv) -> None:
    offloader = ToolResultOffloader(project, OffloadValues.parse(make_env()), session_dir_name="session-1")
    with ThreadPoolExecutor(4) as pool:
        notices = list(pool.map(lambda i: offloader.offload("grep_code", f"{i}\n" * 20_000, 2000), range(12)))
    files = {file_of(n) for n in notices}
    assert len(files) == 12
    assert sorted(Path(f).name[:3] for f in files) == [f"{i:03d}" for i in range(1, 13)]


def test_head_and_tail_cut_at_line_breaks() -> None:
    text = "a" * 30 + "\n" + "b" * 30 + "\n" + "c" * 30
    assert head(text, 50) == "a" * 30
    assert head("a" * 10 + "\n" + "b" * 80, 50) == ("a" * 10 + "\n" + "b" * 80)[:50]
    assert tail(text, 40) == "c" * 30
    assert tail("x" * 80 + "\n" + "y" * 10, 40) == ("x" * 80 + "\n" + "y" * 10)[-40:]
    assert count_lines("a\nb\n") == 2 and count_lines("a\r\nb\rc") == 3 and count_lines("") == 0


def test_small_window_lowers_the_default_threshold(project: Path, make_env: MakeEnv) -> None:
    assert (
        ToolResultOffloader(project, OffloadValues.parse(make_env()), context_trigger_tokens=95_000).threshold
        == 32_000
    )
    small = ToolResultOffloader(project, OffloadValues.parse(make_env()), context_trigger_tokens=10_000)
    assert small.threshold == 5_000
    assert small.offload_if_oversized("grep_code", "{}", "w" * 6_000).startswith(NOTICE)
    explicit = make_env(PAICLI_TOOL_OFFLOAD_THRESHOLD_CHARS="32000")
    assert (
        ToolResultOffloader(project, OffloadValues.parse(explicit), context_trigger_tokens=10_000).threshold
        == 32_000
    )
