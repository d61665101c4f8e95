"""Going back in a session end to end (issue 43): the real paicli, piped, against the loopback server.

`/rewind N` in its three forms (conversation and files, `--conversation`, `--files`), the approval rule (piped
input changes files only with `--yes`), `-c` after a rewind continuing the rewound view, the model's note after
`/restore`, `/undo` taking a whole Plan or Team run back, `/fork`, `/rename`, `/export` after a compaction,
and session retention.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from paicli.testing.openai_server import FakeOpenAIServer, Reply, is_summary_request
from paicli.testing.proc import ledger_entries, message_text, paicli_env, run_paicli
from tests.cli.test_e2e_team import APPROVE, by_role, team_plan

NOTE = "[PAICLI_WORKSPACE_NOTE]"
SUMMARY = (
    "## 当前目标与成功条件\n读文件\n## 用户要求与已确认决定\n一次读一个\n"
    "## 已完成工作及证据\n读过 f1 到 f4\n## 未解决问题与下一步\n没有"
)


def write(path: str, content: str) -> Reply:
    return Reply.tool_calls(("write_file", json.dumps({"path": path, "content": content})))


def two_turns() -> list[Reply | str]:
    return [write("a.txt", "two\n"), "第一轮好了", write("b.txt", "bee\n"), "第二轮好了"]


def piped(
    env: dict[str, str], root: Path, lines: str, *args: str, yes: bool = True
) -> subprocess.CompletedProcess[str]:
    done = run_paicli([*(["--yes"] if yes else []), *args], env, root, stdin=lines, timeout=180)
    assert done.returncode == 0, done.stderr
    return done


def sent(body: dict[str, Any]) -> list[tuple[str, str]]:
    return [(str(m["role"]), message_text(m)) for m in body["messages"] if m["role"] != "system"]


def users(body: dict[str, Any]) -> list[str]:
    return [text for role, text in sent(body) if role == "user"]


def test_rewind_takes_the_conversation_and_the_files_back_and_resume_continues_from_there(
    project: Path, isolated_home: Path
) -> None:
    (project / "a.txt").write_text("one\n", encoding="utf-8")
    with FakeOpenAIServer() as server:
        server.push(*two_turns(), "重新来过了", "接着做")
        env = paicli_env(isolated_home, server.base_url)
        done = piped(env, project, "改 a 文件\n再加 b 文件\n/rewind 2\n重新来\n")
        assert "还原 a.txt" in done.stdout and "删除 b.txt" in done.stdout  # the preview named both
        assert "对话已回到第 1 轮之前" in done.stdout
        assert "回退到的消息（需要时重新发送）：改 a 文件" in done.stdout
        assert (project / "a.txt").read_text(encoding="utf-8") == "one\n"
        assert not (project / "b.txt").exists()
        assert users(server.requests[-1]) == ["重新来"]  # nothing of the two taken-back turns
        assert not any(NOTE in text for text in users(server.requests[-1]))  # files and talk agree

        piped(env, project, "接着\n", "-c")
        assert users(server.requests[-1]) == ["重新来", "接着"]
        server.assert_no_violations()
    entries = ledger_entries(isolated_home)
    [rewind] = [entry for entry in entries if entry["event"] == "conversation_rewind"]
    assert rewind["metadata"]["turn"] == 1 and rewind["metadata"]["scope"] == "all"
    kept = [message_text(entry["message"]) for entry in entries if entry.get("message")]
    assert any("再加 b 文件" in text for text in kept)  # append-only: the taken-back turn is still there


def test_rewind_of_the_conversation_only_leaves_the_files_and_tells_the_model(
    project: Path, isolated_home: Path
) -> None:
    (project / "a.txt").write_text("one\n", encoding="utf-8")
    with FakeOpenAIServer() as server:
        server.push(*two_turns(), "知道了")
        env = paicli_env(isolated_home, server.base_url)
        done = piped(env, project, "改 a 文件\n再加 b 文件\n/rewind 1 --conversation\n换个做法\n")
        assert "对话已回到第 2 轮之前" in done.stdout
        assert (project / "b.txt").read_text(encoding="utf-8") == "bee\n"  # the files stay
        last = users(server.requests[-1])
        assert last[0] == "改 a 文件" and last[-1] == "换个做法" and "再加 b 文件" not in last
        [note] = [text for text in last if text.startswith(NOTE)]
        assert "b.txt" in note and "a.txt" not in note  # only what the taken-back turn changed
        server.assert_no_violations()


def test_rewind_of_the_files_only_keeps_the_conversation_and_tells_the_model(
    project: Path, isolated_home: Path
) -> None:
    (project / "a.txt").write_text("one\n", encoding="utf-8")
    with FakeOpenAIServer() as server:
        server.push(*two_turns(), "好的")
        env = paicli_env(isolated_home, server.base_url)
        done = piped(env, project, "改 a 文件\n再加 b 文件\n/rewind 1 --files\n看看现在\n")
        assert "已恢复到快照" in done.stdout and "对话已回到" not in done.stdout
        assert not (project / "b.txt").exists() and (project / "a.txt").read_text(encoding="utf-8") == "two\n"
        last = users(server.requests[-1])
        assert "再加 b 文件" in last and last[-1] == "看看现在"
        [note] = [text for text in last if text.startswith(NOTE)]
        assert "b.txt（已删除）" in note
        server.assert_no_violations()


def test_piped_rewind_changes_files_only_with_yes(project: Path, isolated_home: Path) -> None:
    (project / "a.txt").write_text("one\n", encoding="utf-8")
    with FakeOpenAIServer() as server:
        server.push(*two_turns(), "这是第二轮之后")
        env = paicli_env(isolated_home, server.base_url)
        done = piped(env, project, "改 a 文件\n再加 b 文件\n/rewind 1\n还在吗\n", yes=False)
        assert "--yes" in done.stdout and "对话已回到" not in done.stdout
        assert (project / "b.txt").exists()
        assert "再加 b 文件" in users(server.requests[-1])  # the conversation did not go back either
        server.assert_no_violations()
    assert not [entry for entry in ledger_entries(isolated_home) if entry["event"] == "conversation_rewind"]


def test_the_model_hears_once_what_a_restore_changed(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push(write("made.txt", "x\n"), "写好了", "知道文件没了", "再说一次")
        env = paicli_env(isolated_home, server.base_url)
        piped(env, project, "写个文件\n/restore 1\n现在呢\n又一轮\n")
        assert not (project / "made.txt").exists()
        notes = [text for text in users(server.requests[-2]) if text.startswith(NOTE)]
        assert len(notes) == 1 and "made.txt（已删除）" in notes[0] and "/restore" in notes[0]
        assert users(server.requests[-2])[-1] == "现在呢"
        later = [text for text in users(server.requests[-1]) if text.startswith(NOTE)]
        assert later == notes  # kept in the history once, not said again
        server.assert_no_violations()


def test_undo_takes_a_whole_plan_run_back(project: Path, isolated_home: Path) -> None:
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

    def respond(body: dict[str, Any]) -> Reply | str | None:
        messages = body["messages"]
        if "Plan Builder" in message_text(messages[0]):
            return f"```json\n{plan}\n```"
        task = next((line for line in message_text(messages[1]).splitlines() if "当前任务" in line), "")
        name = "甲.txt" if "写甲" in task else "乙.txt"
        if messages[-1].get("role") == "tool" or name in written:
            return "完成"
        written.add(name)
        return write(name, name)

    (project / "keep.txt").write_text("keep", encoding="utf-8")
    with FakeOpenAIServer(responder=respond) as server:
        env = paicli_env(isolated_home, server.base_url)
        done = run_paicli(["-p", "分两步写文件", "--plan", "--yes"], env, project, timeout=180)
        assert done.returncode == 0, done.stderr
        assert (project / "甲.txt").exists() and (project / "乙.txt").exists()
        listed = piped(env, project, "/snapshot list\n").stdout
        assert "Plan 第 1 步" in listed and "Plan 第 2 步" in listed  # the run's steps told apart
        undone = piped(env, project, "/undo\n")
        assert "已恢复到快照 #1" in undone.stdout, undone.stdout
        assert not (project / "甲.txt").exists() and not (project / "乙.txt").exists()
        assert (project / "keep.txt").exists()
        server.assert_no_violations()


def test_undo_takes_a_whole_team_run_back(project: Path, isolated_home: Path) -> None:
    steps = team_plan(("s1", "写甲文件", []), ("s2", "写乙文件", ["s1"]))

    def respond(body: dict[str, Any]) -> Reply | str | None:
        system = message_text(body["messages"][0])
        if "## Mode: Team Worker" not in system:
            return by_role(steps, reviewer=APPROVE, other="普通回答")(body)
        if body["messages"][-1]["role"] == "tool":
            return "写好了"
        name = "甲.txt" if "写甲文件" in message_text(body["messages"][1]) else "乙.txt"
        return write(name, name)

    with FakeOpenAIServer(responder=respond) as server:
        env = paicli_env(isolated_home, server.base_url)
        done = piped(env, project, "/team 写两个文件\n/snapshot list\n/undo\n")
        assert "团队任务完成" in done.stdout, done.stdout + done.stderr
        assert "Team 第 1 步" in done.stdout and "Team 第 2 步" in done.stdout
        assert not (project / "甲.txt").exists() and not (project / "乙.txt").exists()
        again = piped(env, project, "/team 写两个文件\n/rewind 1\n/snapshot clean --all\n/snapshot status\n")
        assert "（Team 运行）" in again.stdout and "对话已回到第 1 轮之前" in again.stdout
        assert not (project / "甲.txt").exists() and not (project / "乙.txt").exists()
        assert "已删除本项目的整个快照库" in again.stdout and "快照数: 0" in again.stdout
        server.assert_no_violations()


def test_fork_continues_in_a_new_session_and_keeps_the_old_one(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push("一", "二")
        env = paicli_env(isolated_home, server.base_url)
        done = piped(env, project, "第一句\n/fork\n第二句\n")
        assert "已从这里分出新会话" in done.stdout
        assert users(server.requests[-1]) == ["第一句", "第二句"]  # the fork goes on with the conversation
        server.assert_no_violations()
    ledgers = sorted((isolated_home / ".paicli" / "history" / "raw").glob("session-*.jsonl"))
    assert len(ledgers) == 2
    texts = {path.name: path.read_text(encoding="utf-8") for path in ledgers}
    old = [name for name, text in texts.items() if "第二句" not in text]
    new = [name for name, text in texts.items() if "第二句" in text and "第一句" in text]
    assert len(old) == 1 and len(new) == 1
    assert '"slash_fork"' in texts[new[0]] and old[0].removesuffix(".jsonl") in texts[new[0]]


def test_rename_names_the_session_in_the_list_and_search(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push("好", "继续")
        env = paicli_env(isolated_home, server.base_url)
        piped(env, project, "随便聊聊\n/rename 登录模块重构\n")
        listed = piped(env, project, "/sessions\n").stdout
        assert "【登录模块重构】" in listed
        resumed = piped(env, project, "/resume 登录模块\n还记得吗\n")
        assert "随便聊聊" in resumed.stdout + resumed.stderr
        assert users(server.requests[-1]) == ["随便聊聊", "还记得吗"]
        server.assert_no_violations()


def test_export_after_compaction_holds_every_turn_and_the_view_holds_the_summary(
    project: Path, isolated_home: Path
) -> None:
    for index in range(1, 5):
        (project / f"f{index}.txt").write_text(f"内容 {index}\n", encoding="utf-8")

    def respond(body: dict[str, Any]) -> Reply | str:
        if is_summary_request(body):
            return SUMMARY
        messages = body["messages"]
        turn = next(message_text(m) for m in reversed(messages) if m["role"] == "user")
        if messages[-1]["role"] == "user" and "读 f" in turn:
            return Reply.tool_calls(("read_file", json.dumps({"path": f"f{turn[-1]}.txt"})))
        return f"第 {turn[-1]} 个读完了"

    reads = "".join(f"读 f{index}\n" for index in range(1, 5))
    script = f"记住 password=hunter2secret\n{reads}/compact\n/export all.md\n/export --view v.md\n"
    with FakeOpenAIServer(responder=respond) as server:
        env = paicli_env(isolated_home, server.base_url)
        done = piped(env, project, script)
        assert "对话记录已导出" in done.stdout, done.stdout + done.stderr
        server.assert_no_violations()
        wrapped = any('trust="untrusted-data"' in text for r in server.requests for _, text in sent(r))
    whole = (project / "all.md").read_text(encoding="utf-8")
    for index in range(1, 5):
        assert f"读 f{index}" in whole and f"内容 {index}" in whole and f"第 {index} 个读完了" in whole
    assert "此处发生了上下文压缩" in whole
    assert wrapped and "untrusted-data" not in whole and "<tool_result" not in whole
    view = (project / "v.md").read_text(encoding="utf-8")
    assert "系统提示" in view and "读过 f1 到 f4" in view
    assert "记住 password=" in whole and "hunter2secret" not in whole + view  # redacted


def test_retention_deletes_old_sessions_at_start_and_on_clean(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push("旧的", "也旧")
        env = paicli_env(isolated_home, server.base_url)
        piped(env, project, "很久以前\n")
        piped(env, project, "也是以前\n")
        raw = isolated_home / ".paicli" / "history" / "raw"
        first, second = sorted(raw.glob("session-*.jsonl"))
        ten_days = 10 * 86_400
        os.utime(first, (first.stat().st_atime - ten_days, first.stat().st_mtime - ten_days))
        os.utime(second, (second.stat().st_atime - 3 * 86_400, second.stat().st_mtime - 3 * 86_400))
        started = piped({**env, "PAICLI_SESSION_RETENTION_DAYS": "7"}, project, "/sessions\n")
        assert "已删除 1 个超过 7 天没有活动的会话" in started.stdout + started.stderr
        assert not first.exists() and second.exists()
        refused = piped(env, project, "/sessions clean 2\n", yes=False)
        assert "--yes" in refused.stdout and second.exists()
        cleaned = piped(env, project, "/sessions clean 2\n")
        assert "已删除 1 个超过 2 天没有活动的会话" in cleaned.stdout and not second.exists()
        server.assert_no_violations()


def test_a_restore_just_before_exit_is_told_after_the_resume(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push(write("made.txt", "x\n"), "写好了", "知道了")
        env = paicli_env(isolated_home, server.base_url)
        piped(env, project, "写个文件\n/restore 1\n")
        piped(env, project, "现在呢\n", "-c")
        last = users(server.requests[-1])
        assert last[0] == "写个文件" and last[-1] == "现在呢"
        assert [text for text in last if text.startswith(NOTE) and "made.txt（已删除）" in text]
        server.assert_no_violations()
