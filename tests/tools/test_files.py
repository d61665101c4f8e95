"""read_file / write_file / edit_file / list_dir / glob_files through the runner (spec 9.1)."""

from __future__ import annotations

import json
from pathlib import Path

from paicli.tools.files import MAX_FILE_BYTES

from .helpers import make_runner, run, run_one, unwrap


def write_lines(path: Path, count: int) -> None:
    path.write_text("".join(f"line-{i}\n" for i in range(1, count + 1)), encoding="utf-8")


def test_read_whole_file_has_header_and_numbered_lines(project: Path) -> None:
    (project / "a.txt").write_text("alpha\nbeta\r\ngamma", encoding="utf-8")
    _, text = run_one(make_runner(project), "read_file", '{"path":"a.txt"}')
    assert text == "文件内容: a.txt (lines 1-3 of 3)\n    1 | alpha\n    2 | beta\n    3 | gamma"


def test_whole_file_without_range_is_not_cut(project: Path) -> None:
    write_lines(project / "big.txt", 450)
    _, text = run_one(make_runner(project), "read_file", '{"path":"big.txt"}')
    assert text.startswith("文件内容: big.txt (lines 1-450 of 450)\n")
    assert "  450 | line-450" in text
    assert "已截断" not in text


def test_ranged_reads_default_to_200_lines_and_give_a_continuation_hint(project: Path) -> None:
    write_lines(project / "big.txt", 450)
    runner = make_runner(project)
    _, text = run_one(runner, "read_file", '{"path":"big.txt","offset":10}')
    lines = text.split("\n")
    assert lines[0] == "文件内容: big.txt (lines 10-209 of 450)"
    assert lines[1] == "   10 | line-10"
    assert lines[-1] == "...(已截断，可用 offset=210 继续读取)"
    _, tail = run_one(runner, "read_file", '{"path":"big.txt","offset":449,"limit":5}')
    assert tail == "文件内容: big.txt (lines 449-450 of 450)\n  449 | line-449\n  450 | line-450"


def test_limit_is_capped_at_2000(project: Path) -> None:
    write_lines(project / "huge.txt", 2500)
    _, text = run_one(make_runner(project), "read_file", '{"path":"huge.txt","limit":5000}')
    assert text.startswith("文件内容: huge.txt (lines 1-2000 of 2500)")
    assert text.endswith("...(已截断，可用 offset=2001 继续读取)")


def test_read_errors_are_clear(project: Path) -> None:
    (project / "bin.dat").write_bytes(b"\x00\x01\x02binary")
    (project / "dir").mkdir()
    write_lines(project / "short.txt", 3)
    runner = make_runner(project)
    for args, fragment in [
        ({"path": "missing.txt"}, "文件不存在"),
        ({"path": "bin.dat"}, "二进制"),
        ({"path": "dir"}, "list_dir"),
        ({"path": "short.txt", "offset": 10}, "超出文件行数"),
    ]:
        result, text = run_one(runner, "read_file", json.dumps(args))
        assert not result.success and fragment in text, text


def test_files_over_5mb_need_a_range(project: Path) -> None:
    big = project / "big.log"
    line = "x" * 99 + "\n"
    big.write_text(line * (MAX_FILE_BYTES // 100 + 10), encoding="utf-8")
    runner = make_runner(project)
    result, text = run_one(runner, "read_file", '{"path":"big.log"}')
    assert not result.success and "5MB" in text and "offset" in text
    result, text = run_one(runner, "read_file", '{"path":"big.log","offset":3,"limit":2}')
    assert result.success and text.startswith("文件内容: big.log (lines 3-4 of ")


def test_write_file_creates_directories_and_reports_a_diff(project: Path) -> None:
    runner = make_runner(project)
    result, text = run_one(runner, "write_file", json.dumps({"path": "src/pkg/mod.py", "content": "a = 1\n"}))
    assert result.success and "已创建" in text
    assert (project / "src/pkg/mod.py").read_text(encoding="utf-8") == "a = 1\n"
    assert result.display is not None and "+a = 1" in result.display
    assert result.display.splitlines()[:2] == ["--- /dev/null", "+++ b/src/pkg/mod.py"]  # a new file
    result, text = run_one(runner, "write_file", json.dumps({"path": "src/pkg/mod.py", "content": "a = 2\n"}))
    assert "已覆盖" in text
    assert result.display is not None and "-a = 1" in result.display and "+a = 2" in result.display
    assert result.display.splitlines()[:2] == ["--- a/src/pkg/mod.py", "+++ b/src/pkg/mod.py"]


def test_a_new_files_planned_diff_starts_from_dev_null(project: Path) -> None:
    from paicli.tools.files import planned_diff
    from paicli.tools.guards import PathGuard

    planned = planned_diff("write_file", {"path": "hello.py", "content": "print(1)\n"}, PathGuard(project))
    assert planned is not None and planned.splitlines()[:2] == ["--- /dev/null", "+++ b/hello.py"]


def test_write_file_refuses_content_over_5mb(project: Path) -> None:
    result, text = run_one(
        make_runner(project),
        "write_file",
        json.dumps({"path": "big.txt", "content": "x" * (MAX_FILE_BYTES + 1)}),
    )
    assert not result.success and "5MB" in text
    assert not (project / "big.txt").exists()


def test_edit_file_replaces_a_unique_match(project: Path) -> None:
    (project / "m.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    result, text = run_one(
        make_runner(project),
        "edit_file",
        json.dumps({"path": "m.py", "old_text": "return 1", "new_text": "return 2"}),
    )
    assert result.success and "替换 1 处" in text
    assert (project / "m.py").read_text(encoding="utf-8") == "def f():\n    return 2\n"
    assert result.display is not None and "-    return 1" in result.display


def test_edit_file_not_found_and_ambiguous_matches(project: Path) -> None:
    (project / "m.py").write_text("x = 1\nx = 1\n", encoding="utf-8")
    runner = make_runner(project)
    result, text = run_one(
        runner, "edit_file", json.dumps({"path": "m.py", "old_text": "y", "new_text": "z"})
    )
    assert not result.success and text.startswith("❌ 在 m.py 中找不到 old_text")
    result, text = run_one(
        runner, "edit_file", json.dumps({"path": "m.py", "old_text": "x = 1", "new_text": "x"})
    )
    assert not result.success and "出现了 2 次" in text and "replace_all" in text
    assert (project / "m.py").read_text(encoding="utf-8") == "x = 1\nx = 1\n"
    args = {"path": "m.py", "old_text": "x = 1", "new_text": "x = 3", "replace_all": True}
    result, text = run_one(runner, "edit_file", json.dumps(args))
    assert result.success and "替换 2 处" in text
    assert (project / "m.py").read_text(encoding="utf-8") == "x = 3\nx = 3\n"


def test_list_dir_shows_directories_first(project: Path) -> None:
    (project / "b.txt").write_text("bb", encoding="utf-8")
    (project / "a_dir").mkdir()
    _, text = run_one(make_runner(project), "list_dir", '{"path":"."}')
    lines = text.split("\n")
    assert lines[0] == "目录: .（2 项）"
    assert lines[1] == "  a_dir/"
    assert lines[2].startswith("  b.txt")


def test_glob_files_matches_inside_the_project_with_a_cap(project: Path) -> None:
    for name in ("src/a.py", "src/sub/b.py", "src/c.txt", "node_modules/x/d.py", "top.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("", encoding="utf-8")
    runner = make_runner(project)
    _, text = run_one(runner, "glob_files", '{"pattern":"**/*.py"}')
    assert "src/a.py" in text and "src/sub/b.py" in text and "top.py" in text
    assert "node_modules" not in text
    _, text = run_one(runner, "glob_files", '{"pattern":"*.py","path":"src"}')
    assert text.split("\n")[1:] == ["src/a.py"]
    _, text = run_one(runner, "glob_files", '{"pattern":"**/*.py","max_results":1}')
    assert "仅显示前 1 个" in text
    result, text = run_one(runner, "glob_files", '{"pattern":"../*"}')
    assert not result.success


def test_write_outside_the_project_is_refused_before_approval(project: Path) -> None:
    from .helpers import RecordingApprover

    approver = RecordingApprover("approve")
    runner = make_runner(project, approver)
    result, text = run_one(runner, "write_file", json.dumps({"path": "../evil.txt", "content": "x"}))
    assert result.blocked and text.startswith("🛡️ 策略拒绝")
    assert approver.requests == []
    assert not (project.parent / "evil.txt").exists()


def test_edit_file_on_a_crlf_file_matches_the_lines_read_file_showed(project: Path) -> None:
    (project / "win.py").write_bytes(b"a = 1\r\nb = 2\r\nc = 3\r\n")
    runner = make_runner(project)
    [shown] = run(runner, ("read_file", '{"path":"win.py"}'))
    assert "\r" not in unwrap(shown)
    [result] = run(
        runner,
        (
            "edit_file",
            json.dumps({"path": "win.py", "old_text": "a = 1\nb = 2", "new_text": "a = 10\nb = 20"}),
        ),
    )
    assert result.success, unwrap(result)
    assert (project / "win.py").read_bytes() == b"a = 10\r\nb = 20\r\nc = 3\r\n"


def test_edit_file_keeps_bytes_it_did_not_touch_in_a_non_utf8_file(project: Path) -> None:
    original = "# 注释\nname = 'x'\n".encode("gbk")
    (project / "legacy.py").write_bytes(original)
    runner = make_runner(project)
    [result] = run(
        runner,
        ("edit_file", json.dumps({"path": "legacy.py", "old_text": "name = 'x'", "new_text": "name = 'y'"})),
    )
    assert result.success, unwrap(result)
    assert (project / "legacy.py").read_bytes() == original.replace(b"name = 'x'", b"name = 'y'")
