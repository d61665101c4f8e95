"""Workspace snapshots end to end (issue 30): the real paicli against the loopback server.

A turn writes, edits and deletes files (edit_file, write_file and a shell command), then `/restore 1` puts the
tree back byte for byte — in a git project and in a plain folder — without touching the project's `.git`,
ignored files or paicli's skip folders; `/undo` then undoes the restore; `revert_turn` needs a human.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_env, run_paicli

ODD = b"caf\xe9 menu.txt"  # not UTF-8
NEWLINE = b"line\nbreak.txt"
SHELL = (
    "rm gone.txt && rm caf* && printf shell > \"$(printf 'line\\nbreak.txt')\" && chmod +x tool.sh"
    " && mkdir -p made/deeper && printf deep > made/deeper/x.txt && echo more >> build.log"
    " && echo changed > node_modules/dep.js"
)
LEFT_ALONE = (b"build.log", b"node_modules/dep.js")  # ignored / skip folder: a restore never touches them


def make_project(root: Path, with_git: bool) -> None:
    (root / "edit.txt").write_bytes(b"alpha\nbeta\n")
    (root / "gone.txt").write_bytes(b"to be deleted\n")
    (root / "tool.sh").write_bytes(b"#!/bin/sh\necho hi\n")
    (root / "sub").mkdir()
    (root / "sub" / "keep.bin").write_bytes(bytes(range(256)) * 4)
    (root / ".gitignore").write_bytes(b"*.log\n")
    (root / "build.log").write_bytes(b"log\n")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "dep.js").write_bytes(b"dep\n")
    with open(os.path.join(os.fsencode(root), ODD), "wb") as handle:
        handle.write(b"menu\n")
    if with_git:
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
        env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "start"]):
            subprocess.run([*git, *args], cwd=root, check=True, env=env, capture_output=True)


def tree_state(root: Path, *, only_git: bool = False) -> dict[bytes, tuple[str, int, bytes]]:
    """Every folder, file and symlink under `root` (the work tree without `.git`, or `.git` alone)."""
    base = os.fsencode(root / ".git") if only_git else os.fsencode(root)
    state: dict[bytes, tuple[str, int, bytes]] = {}
    for folder, dirs, files in os.walk(base):
        if not only_git and folder == base:
            dirs[:] = [name for name in dirs if name != b".git"]
        for name in dirs + files:
            full = os.path.join(folder, name)
            info = os.lstat(full)
            relative = os.path.relpath(full, base)
            if stat.S_ISLNK(info.st_mode):
                state[relative] = ("link", 0, os.readlink(full))
            elif stat.S_ISDIR(info.st_mode):
                state[relative] = ("dir", 0, b"")
            else:
                digest = hashlib.sha256(Path(os.fsdecode(full)).read_bytes()).digest()
                state[relative] = ("file", stat.S_IMODE(info.st_mode), digest)
    return state


def without(state: dict[bytes, tuple[str, int, bytes]], paths: tuple[bytes, ...]) -> dict[bytes, object]:
    return {path: value for path, value in state.items() if path not in paths}


def turn_replies() -> tuple[Reply, str]:
    calls = Reply.tool_calls(
        ("write_file", json.dumps({"path": "new dir/created.txt", "content": "新文件\n"})),
        ("edit_file", json.dumps({"path": "edit.txt", "old_text": "beta", "new_text": "gamma"})),
        ("execute_command", json.dumps({"command": SHELL})),
    )
    return calls, "改好了"


def piped(env: dict[str, str], root: Path, lines: str, *extra: str) -> subprocess.CompletedProcess[str]:
    done = run_paicli(["--yes", *extra], env, root, stdin=lines, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def session_events(home: Path, event: str) -> list[dict[str, object]]:
    found = []
    for ledger in sorted((home / ".paicli" / "history" / "raw").glob("session-*.jsonl")):
        for line in ledger.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if entry.get("event") == event:
                found.append(entry)
    return found


@pytest.mark.parametrize("with_git", [True, False], ids=["git-project", "plain-folder"])
def test_restore_puts_the_tree_back_and_can_itself_be_undone(
    project: Path, isolated_home: Path, with_git: bool
) -> None:
    make_project(project, with_git)
    before = tree_state(project)
    git_before = tree_state(project, only_git=True) if with_git else {}
    with FakeOpenAIServer() as server:
        server.push(*turn_replies())
        env = paicli_env(isolated_home, server.base_url)
        piped(env, project, "改一下这些文件\n")
        after_turn = tree_state(project)
        assert after_turn[b"new dir/created.txt"][0] == "file" and b"gone.txt" not in after_turn
        assert NEWLINE in after_turn and ODD not in after_turn
        [recorded] = session_events(isolated_home, "workspace_snapshot")
        metadata = recorded["metadata"]
        assert isinstance(metadata, dict) and metadata["kind"] == "turn" and len(metadata["snapshot"]) == 40
        assert {"schemaVersion", "sessionId", "sequence", "timestamp", "mode", "actor", "source"} <= set(
            recorded
        )

        restored = piped(env, project, "/restore 1\n")
        assert "已恢复" in restored.stdout, restored.stdout + restored.stderr
        now = tree_state(project)
        assert without(now, LEFT_ALONE) == without(before, LEFT_ALONE)
        for path in LEFT_ALONE:  # the turn changed them; the restore left them as the turn left them
            assert now[path] == after_turn[path] != before[path]
        if with_git:
            assert tree_state(project, only_git=True) == git_before

        undone = piped(env, project, "/undo\n")
        assert "已恢复" in undone.stdout, undone.stdout + undone.stderr
        assert tree_state(project) == after_turn
        if with_git:
            assert tree_state(project, only_git=True) == git_before
        server.assert_no_violations()
    [restore_one, undo] = session_events(isolated_home, "workspace_restore")
    assert restore_one["actor"] == "user" and restore_one["metadata"]["snapshot"] == metadata["snapshot"]  # type: ignore[index]
    assert undo["metadata"]["snapshot"] == restore_one["metadata"]["before"]  # type: ignore[index]


def test_piped_restore_without_yes_changes_nothing(project: Path, isolated_home: Path) -> None:
    make_project(project, with_git=False)
    with FakeOpenAIServer() as server:
        server.push(*turn_replies())
        env = paicli_env(isolated_home, server.base_url)
        piped(env, project, "改一下这些文件\n")
        after_turn = tree_state(project)
        done = run_paicli([], env, project, stdin="/snapshot list\n/restore 1\n", timeout=120)
        assert done.returncode == 0, done.stderr
        assert "#1" in done.stdout and "第 1 轮「改一下这些文件」" in done.stdout
        assert "--yes" in done.stdout and "已恢复" not in done.stdout
        assert tree_state(project) == after_turn


def test_revert_turn_is_refused_in_one_shot_without_yes(project: Path, isolated_home: Path) -> None:
    make_project(project, with_git=True)
    before = tree_state(project)
    revert = Reply.tool_calls(("revert_turn", '{"n": 1}'))
    with FakeOpenAIServer() as server:
        server.push(*turn_replies(), revert, "没能撤回", revert, "撤回了")
        env = paicli_env(isolated_home, server.base_url)
        run_paicli(["-p", "改一下这些文件", "--yes"], env, project, timeout=120)
        after_turn = tree_state(project)
        assert after_turn != before
        refused = run_paicli(["-p", "撤回上一轮"], env, project, timeout=120)
        tool_message = [m for m in server.requests[-1]["messages"] if m.get("role") == "tool"][-1]
        assert "[HITL]" in str(tool_message["content"]), tool_message
        assert refused.returncode == 0, refused.stderr
        assert tree_state(project) == after_turn
        done = run_paicli(["-p", "撤回上一轮", "--yes"], env, project, timeout=120)
        assert done.returncode == 0, done.stderr
        assert without(tree_state(project), LEFT_ALONE) == without(before, LEFT_ALONE)
        tool_message = [m for m in server.requests[-1]["messages"] if m.get("role") == "tool"][-1]
        assert "已恢复" in str(tool_message["content"])
        server.assert_no_violations()


def test_each_plan_task_gets_its_own_snapshot(project: Path, isolated_home: Path) -> None:
    plan = json.dumps(
        {
            "summary": "两步",
            "tasks": [
                {"id": "t1", "description": "写甲", "type": "FILE_WRITE", "dependencies": []},
                {"id": "t2", "description": "写乙", "type": "FILE_WRITE", "dependencies": ["t1"]},
            ],
        },
        ensure_ascii=False,
    )
    written: set[str] = set()

    def respond(body: dict[str, object]) -> Reply | str | None:
        messages = body["messages"]
        assert isinstance(messages, list)
        if "Plan Builder" in str(messages[0].get("content")):
            return f"```json\n{plan}\n```"
        task = next((line for line in str(messages[1].get("content")).splitlines() if "当前任务" in line), "")
        name = "甲.txt" if "写甲" in task else "乙.txt"
        if messages[-1].get("role") == "tool" or name in written:
            return "完成"
        written.add(name)
        return Reply.tool_calls(
            ("write_file", json.dumps({"path": name, "content": name}, ensure_ascii=False))
        )

    (project / "keep.txt").write_bytes(b"keep")
    before = tree_state(project)
    with FakeOpenAIServer(responder=respond) as server:
        env = paicli_env(isolated_home, server.base_url)
        done = run_paicli(["-p", "分两步写文件", "--plan", "--yes"], env, project, timeout=120)
        assert done.returncode == 0, done.stderr
        assert (project / "甲.txt").exists() and (project / "乙.txt").exists()
        snapshots = session_events(isolated_home, "workspace_snapshot")
        ids = {entry["metadata"]["snapshot"] for entry in snapshots}  # type: ignore[index]
        assert len(snapshots) == 2 and len(ids) == 2  # one per task
        piped(env, project, "/restore 2\n")  # back to before task 2: task 1's file stays
        assert (project / "甲.txt").exists() and not (project / "乙.txt").exists()
        piped(env, project, "/restore 1\n")  # ids stay: #1 is still the one before task 1
        assert tree_state(project) == before
        server.assert_no_violations()


def test_without_git_the_turn_goes_on_with_one_notice(
    project: Path, isolated_home: Path, tmp_path: Path
) -> None:
    no_git = tmp_path / "empty-path"
    no_git.mkdir()
    writes = [
        Reply.tool_calls(("write_file", json.dumps({"path": f"f{index}.txt", "content": "x"})))
        for index in range(2)
    ]
    with FakeOpenAIServer() as server:
        server.push(*writes, "写好了")
        env = paicli_env(isolated_home, server.base_url, PATH=str(no_git))
        done = run_paicli(["-p", "写两个文件", "--yes"], env, project, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().endswith("写好了")
        assert (project / "f0.txt").exists() and (project / "f1.txt").exists()
        assert done.stderr.count("没有找到 git") == 1, done.stderr
        assert not (isolated_home / ".paicli" / "snapshots").exists()
        server.assert_no_violations()
