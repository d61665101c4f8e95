"""Runs this project's queued background tasks (`/task add`) one at a time, each in a headless session of its own
(its own ledger) whose approvals are refused: only what the approval mode allows without asking runs, and every
refused call is counted and reported. A notice says when a task ends."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from paicli.agent.events import ToolFinished
from paicli.cancel import CancelToken
from paicli.cli.approval_desk import ApprovalRequested
from paicli.cli.headless import HeadlessEvent, HeadlessOptions, HeadlessSession
from paicli.cli.oneshot import describe_event
from paicli.cli.task_store import CANCELLED, DONE, FAILED, INTERRUPTED, Task, TaskStore
from paicli.config.env import EnvLookup
from paicli.llm.protocol import LLMClient

PREVIEW = 60


def preview(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= PREVIEW else line[: PREVIEW - 1] + "…"


def ended_notice(task: Task, status: str, refused: int) -> str:
    mark = {DONE: "✅", CANCELLED: "⏹️", INTERRUPTED: "⏸️"}.get(status, "❌")
    words = {DONE: "已完成", CANCELLED: "已取消", INTERRUPTED: "已中断", FAILED: "失败"}.get(status, status)
    note = f"，{refused} 个需要确认的操作已拒绝" if refused else ""
    return f"{mark} 后台任务 #{task.id} {words}{note}：{preview(task.text)}（/task log {task.id} 查看详情）"


class TaskWorker:
    def __init__(
        self,
        store: TaskStore,
        env: EnvLookup,
        project: Path,
        notify: Callable[[str], None],
        llm: LLMClient | None = None,
    ) -> None:
        self.store = store
        self._env = env
        self._project = project
        self._notify = notify
        self._llm = llm
        self._wake = threading.Event()
        self._stopping = False
        self._lock = threading.Lock()
        self._current: tuple[int, CancelToken] | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Tasks a killed paicli left running are marked interrupted (and said); queued ones run from now."""
        for task in self.store.interrupted():
            if task.project == str(self._project):
                self._notify(ended_notice(task, INTERRUPTED, task.refused))
        self._thread = threading.Thread(target=self._loop, name="paicli-tasks", daemon=True)
        self._thread.start()
        self._wake.set()

    def add(self, text: str) -> int:
        task_id = self.store.add(text, self._project)
        self._wake.set()
        return task_id

    def cancel(self, task_id: int) -> bool:
        if self.store.cancel_queued(task_id):
            return True
        with self._lock:
            if self._current is not None and self._current[0] == task_id:
                self._current[1].cancel()
                return True
        return False

    def stop(self, timeout: float = 10.0) -> None:
        """The running task (if any) is cancelled and recorded as interrupted; queued ones wait for next time."""
        self._stopping = True
        with self._lock:
            if self._current is not None:
                self._current[1].cancel()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _loop(self) -> None:
        while not self._stopping:
            self._wake.wait()
            self._wake.clear()
            while not self._stopping and (task := self.store.claim_next(self._project)) is not None:
                self._run(task)

    def _run(self, task: Task) -> None:
        cancel = CancelToken()
        with self._lock:
            self._current = (task.id, cancel)
        refused = 0

        def sink(event: HeadlessEvent) -> None:
            nonlocal refused
            if isinstance(event, ToolFinished) and event.result.blocked:
                refused += 1
            line = None if isinstance(event, ApprovalRequested) else describe_event(event)
            if line:
                self.store.log(task.id, line)

        try:
            session = HeadlessSession.open(
                self._env, cwd=self._project, options=HeadlessOptions(approvals="deny"), llm=self._llm
            )
        except Exception as exc:
            self._end(task, FAILED, f"无法开始: {exc}", 0)
            return
        try:
            self.store.started(task.id, session.session_id)
            self.store.log(task.id, f"会话 {session.session_id}")
            record = session.run(task.text, sink, cancel)
        except Exception as exc:
            record = {"status": "error", "result": f"{type(exc).__name__}: {exc}"}
        finally:
            session.close()
            with self._lock:
                self._current = None
        status = {"done": DONE, "partial": DONE, "cancelled": CANCELLED}.get(record["status"], FAILED)
        if status == CANCELLED and self._stopping:
            status = INTERRUPTED
        self._end(task, status, str(record["result"]), refused)

    def _end(self, task: Task, status: str, result: str, refused: int) -> None:
        self.store.log(task.id, f"结果（{status}）：{result}")
        self.store.finish(task.id, status, result, refused)
        self._notify(ended_notice(task, status, refused))
