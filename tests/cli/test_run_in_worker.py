"""A Ctrl+C that lands while the task's thread is still starting is a cancel request, never an escape."""

from __future__ import annotations

import _thread
import threading

from paicli.cancel import CancelToken
from paicli.cli.repl_terminal import run_in_worker


def test_a_ctrl_c_as_the_task_starts_cancels_it_and_the_result_comes_back() -> None:
    def work(cancel: CancelToken) -> str:
        _thread.interrupt_main()  # the user's Ctrl+C, before the main thread is back from starting this one
        for _ in range(2000):
            if cancel.cancelled:
                return "cancelled"
            threading.Event().wait(0.01)
        return "never cancelled"

    def wait(done: threading.Event, cancel: CancelToken) -> None:
        done.wait()

    requests: list[bool] = []

    def interrupted(cancel: CancelToken) -> None:
        requests.append(True)
        cancel.cancel()

    assert run_in_worker(work, wait, interrupted) == "cancelled"
    assert requests == [True]
