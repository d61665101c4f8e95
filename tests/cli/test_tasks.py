"""/task: the SQLite queue, the worker that runs tasks in headless sessions with approvals refused, the command,
and a task that a SIGKILL of paicli leaves behind."""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from paicli.cli.app_backend import AppBackend
from paicli.cli.task_commands import task_args
from paicli.cli.task_store import CANCELLED, DONE, INTERRUPTED, QUEUED, RUNNING, TaskStore, db_path
from paicli.cli.task_worker import TaskWorker
from paicli.testing.commands import command
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_env, run_paicli, start_paicli
from tests.cli.served_session import served_env, served_parts


def test_the_queue_keeps_tasks_per_project_in_order(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    first = store.add("一", tmp_path / "a")
    second = store.add("二", tmp_path / "a")
    store.add("别的项目", tmp_path / "b")
    assert db_path(tmp_path).is_file() and (db_path(tmp_path).stat().st_mode & 0o777) == 0o600
    claimed = store.claim_next(tmp_path / "a")
    assert claimed is not None and claimed.id == first and claimed.status == RUNNING
    assert store.cancel_queued(second) and not store.cancel_queued(first)
    assert store.claim_next(tmp_path / "a") is None
    store.log(first, "第一行")
    store.log(first, "第二行")
    store.finish(first, DONE, "好了", 2)
    assert store.log_lines(first) == ["第一行", "第二行"]
    listed = store.listed(tmp_path / "a")
    assert [(t.id, t.status, t.refused) for t in listed] == [(first, DONE, 2), (second, CANCELLED, 0)]


@pytest.mark.e2e  # a process of its own
def test_a_task_left_running_by_a_dead_process_is_interrupted(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    task_id = store.add("被杀的任务", tmp_path)
    claim = "import sys; from pathlib import Path; from paicli.cli.task_store import TaskStore; TaskStore(Path(sys.argv[1])).claim_next(Path(sys.argv[1]))"
    subprocess.run(
        [sys.executable, "-c", claim, str(tmp_path)], check=True
    )  # claimed, then that process is gone
    mine = store.add("我的任务", tmp_path)
    assert store.claim_next(tmp_path) is not None  # running under this (living) process
    assert [t.id for t in store.interrupted()] == [task_id]
    assert store.get(task_id).status == INTERRUPTED  # type: ignore[union-attr]
    assert store.get(mine).status == RUNNING  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("args", "ok"),
    [
        ("", True),
        ("list", True),
        ("add 写测试", True),
        ("add", False),
        ("cancel 3", True),
        ("log x", True),
        ("log 1 2", False),
        ("run 1", False),
    ],
)
def test_task_arguments(args: str, ok: bool) -> None:
    assert task_args(args) is ok


def worker(tmp_path: Path, server: FakeOpenAIServer) -> tuple[TaskWorker, queue.Queue[str]]:
    env = served_env(tmp_path, server.base_url)
    notices: queue.Queue[str] = queue.Queue()
    made = TaskWorker(TaskStore(tmp_path / ".paicli"), env, tmp_path / "project", notices.put)
    made.start()
    return made, notices


def test_a_task_runs_in_its_own_session_with_approvals_refused(tmp_path: Path) -> None:
    with FakeOpenAIServer(
        [Reply.tool_calls(("execute_command", '{"command": "touch made-by-task"}')), "需要确认，没能执行"]
    ) as server:
        tasks, notices = worker(tmp_path, server)
        task_id = tasks.add("建个文件")
        said = notices.get(timeout=60)
        tasks.stop()
    assert said.startswith(f"✅ 后台任务 #{task_id} 已完成，1 个需要确认的操作已拒绝")
    task = tasks.store.get(task_id)
    assert (
        task is not None and task.status == DONE and task.refused == 1 and task.result == "需要确认，没能执行"
    )
    assert not (tmp_path / "project" / "made-by-task").exists()
    log = tasks.store.log_lines(task_id)
    assert log[0] == f"会话 {task.session_id}" and any("execute_command" in line for line in log)
    assert (tmp_path / ".paicli" / "history" / "raw" / f"{task.session_id}.jsonl").is_file()


@pytest.mark.e2e  # real commands, cancelled
def test_a_running_task_is_cancelled_and_a_queued_one_then_runs(tmp_path: Path) -> None:
    with FakeOpenAIServer([Reply.hang("慢"), "第二个好了"]) as server:
        tasks, notices = worker(tmp_path, server)
        slow = tasks.add("慢任务")
        second = tasks.add("第二个")
        assert server.wait_for_hang(60)
        assert tasks.cancel(slow)
        assert notices.get(timeout=60).startswith(f"⏹️ 后台任务 #{slow} 已取消")
        assert notices.get(timeout=60).startswith(f"✅ 后台任务 #{second} 已完成")
        tasks.stop()
    assert not tasks.cancel(second)  # over already


def test_the_task_command_adds_lists_and_logs(tmp_path: Path) -> None:
    with FakeOpenAIServer(["任务结果"]) as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url), count_context=False)
        ended: queue.Queue[None] = queue.Queue()
        backend.set_notice_listener(lambda: ended.put(None))
        assert "已加入后台任务 #1" in command(backend, "/task add 总结一下")
        ended.get(timeout=60)
        notices = backend.drain_notices()
        assert any(n.startswith("✅ 后台任务 #1 已完成") for n in notices), notices
        listing = command(backend, "/task")
        log = command(backend, "/task log 1")
        missing = command(backend, "/task log 9")
        backend.close()
    assert "#1 [已完成] 总结一下" in listing
    assert "任务结果" in log and "paicli --resume session-" in log
    assert "没有后台任务 #9" in missing


@pytest.mark.e2e  # paicli processes, one killed
def test_a_task_killed_with_paicli_is_interrupted_at_the_next_start(
    project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer([Reply.hang("慢")], default_reply="好") as server:
        env = paicli_env(isolated_home, server.base_url)
        repl = start_paicli([], env, project, stdin=subprocess.PIPE, new_session=True)
        assert repl.stdin is not None
        repl.stdin.write("/task add 一个很慢的任务\n")
        repl.stdin.flush()
        assert server.wait_for_hang(60)  # the task is running
        repl.send_signal(signal.SIGKILL)
        repl.wait(timeout=60)
        repl.stdin.close()
        again = run_paicli([], env, project, stdin="/task list\n/task log 1\n")
    assert "#1 [已中断] 一个很慢的任务" in again.stdout, again.stdout + again.stderr
    assert "⏸️ 后台任务 #1 已中断" in again.stdout + again.stderr
    store = TaskStore(isolated_home / ".paicli")
    task = store.get(1)
    assert task is not None and task.status == INTERRUPTED and task.session_id
    assert task.result == "paicli 在任务运行时退出了"
    assert store.claim_next(project) is None and QUEUED not in [t.status for t in store.listed(project)]
