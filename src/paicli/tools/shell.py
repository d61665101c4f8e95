"""execute_command: a command run by the session's executor (tools/executor.py; unconfined `bash -c` here, the
sandbox's in tools/sandbox/executor.py) in the project root, its own process group; timeout and cancel kill the
whole group.

Nothing a command starts outlives it. On Linux every command runs under paicli's wrapper (sandbox/wrapper.py):
sandboxed, in a PID namespace or under a subreaper; approved, unconfined under a subreaper. Either way the
wrapper kills whatever the command left behind (`sleep 100 &`, `nohup …`, `setsid env -i … &`, double forks)
before it exits, and dies with paicli (PDEATHSIG). Without the wrapper (elsewhere, or when it was killed on a
timeout) what is left of the process group is killed, and so is every process that still carries the
command's marker variable in its environment.

Output capture follows spec 2.2: up to 2,000,000 chars when offloading is on (8,000 when off); more than 8,000
chars go to the offloader with an 8,000-char head, otherwise the text is cut with `...(输出已截断)`.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Protocol

from paicli.config.env import COMMAND_MARKER_ENV, process_environ
from paicli.tools.context import Offloader, OutputSink, ToolContext
from paicli.tools.executor import Capture, CommandExecutors, CommandRequest, CommandRun
from paicli.tools.gitrepo import git_neutral_env
from paicli.tools.guards import READ_ONLY_RULE
from paicli.tools.schema import Args, ToolOutput

if TYPE_CHECKING:
    from paicli.tools.sandbox.launch import Launch

INLINE_CHARS = 8000
OFFLOAD_CAPTURE_CHARS = 2_000_000
OVERFLOW_NOTE = "...(超过 2000000 字符的部分未保存)\n"
TRUNCATED_NOTE = "\n...(输出已截断)"
KILL_GRACE_SECONDS = 0.5
_READ_CHUNK = 65536
MARKER_ENV = COMMAND_MARKER_ENV
_PROC = Path("/proc")
LIVE_LINES_PER_CHUNK = 20
SANDBOX_FAILED_EXIT = 125  # the wrapper's "could not confine itself" (paicli.tools.sandbox.wrapper)
SANDBOX_FAILED_PREFIX = "paicli-sandbox:"
_PARTIAL_KEEP = 4096  # an unfinished line longer than this is only shown by its end


class Child(Protocol):
    """A running command: a Popen, or one the sandbox's fork server started (paicli.tools.sandbox.zygote)."""

    @property
    def pid(self) -> int: ...
    @property
    def returncode(self) -> int | None: ...
    @property
    def stdout(self) -> IO[bytes] | None: ...
    def poll(self) -> int | None: ...
    def wait(self, timeout: float | None = None) -> int: ...


_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


def _clean(text: str) -> str:
    """Drop NULs and terminal colour/cursor sequences: they cost tokens and mean nothing to the model."""
    return _ANSI.sub("", text.replace("\x00", ""))


class LineFeed:
    """Cuts the decoded output into finished lines for the live-output hook, in order; of one read chunk's
    lines only the last LIVE_LINES_PER_CHUNK are sent (`seq 1 200000` must not cost 200,000 events). A failing
    hook is dropped: the display is decoration and must never stall or break the capture."""

    def __init__(self, sink: OutputSink | None) -> None:
        self._sink = sink
        self._partial = ""

    def feed(self, text: str) -> None:
        if self._sink is None or not text:
            return
        self._partial += text
        if "\n" not in text:
            self._partial = self._partial[-_PARTIAL_KEEP:]
            return
        *finished, self._partial = self._partial.split("\n")
        for line in finished[-LIVE_LINES_PER_CHUNK:]:  # a flood only needs its latest lines on screen
            self._send(line)

    def close(self) -> None:
        if self._partial:
            self._send(self._partial)
        self._partial = ""

    def _send(self, line: str) -> None:
        if self._sink is None:
            return
        try:
            self._sink(line)
        except Exception:
            self._sink = None


def _pump(stream: IO[bytes], capture: Capture, lines: LineFeed | None = None) -> None:
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    feed = lines or LineFeed(None)
    while True:
        chunk = stream.read1(_READ_CHUNK) if hasattr(stream, "read1") else stream.read(_READ_CHUNK)
        if not chunk:
            break
        text = _clean(decoder.decode(chunk))
        feed.feed(text)
        if not capture.overflowed:  # keep draining past the cap so the child never blocks on a full pipe
            capture.add(text)
    rest = decoder.decode(b"", final=True)
    feed.feed(rest)
    feed.close()
    if not capture.overflowed:
        capture.add(rest)


def kill_group(process: Child) -> None:
    """SIGTERM the process group, then SIGKILL whatever is still there after a short grace period."""
    pgid = process.pid  # start_new_session=True: the child leads its own group
    for sig, grace in ((signal.SIGTERM, KILL_GRACE_SECONDS), (signal.SIGKILL, 0.0)):
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            process.poll()  # reap the leader, or its zombie keeps the group "alive"
            if not _group_alive(pgid):
                return
            time.sleep(0.01)


_PF_KTHREAD = 0x00200000


def marked_processes(marker: str) -> tuple[list[int], bool]:
    """Pids (other than ours) whose environment holds `MARKER_ENV=marker` (Linux /proc; [] elsewhere), and
    whether some user process showed no environment at all: one caught inside execve, which may be marked."""
    needle = f"{MARKER_ENV}={marker}".encode()
    found: list[int] = []
    unsure = False
    try:
        entries = list(_PROC.iterdir())
    except OSError:
        return found, unsure
    for entry in entries:
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            found.append(int(entry.name))
        elif not environ and not _kernel_thread(entry):
            unsure = True
    return found, unsure


def _kernel_thread(entry: Path) -> bool:
    try:
        flags = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[6])
    except (OSError, IndexError, ValueError):
        return True  # gone, or not a process we could have started
    return bool(flags & _PF_KTHREAD)


def kill_leftovers(process: Child, marker: str, swept: bool = False) -> None:
    """After the command: its process group, then anything that escaped it but still carries the marker. A
    process between two execs shows an empty environment for a moment, so an unsure scan is taken again.
    `swept`: the wrapper ended normally, having killed every descendant itself; no scan is needed."""
    process.poll()
    if _group_alive(process.pid):
        kill_group(process)
    if swept:
        return
    for _ in range(6):  # a dying parent may fork once more; a few passes settle it
        pids, unsure = marked_processes(marker)
        if not pids and not unsure:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05 if pids else 0.01)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def new_marker() -> str:
    """The value of MARKER_ENV that finds everything one command started (see `kill_leftovers`)."""
    return uuid.uuid4().hex


Keys = Callable[[], tuple[str, ...]]  # every key paicli is configured with (config.keys.configured_keys)


def no_keys() -> tuple[str, ...]:
    return ()


class UnconfinedExecutor:
    """`bash -c` in the project root with the environment `scrub` leaves (tools/sandbox/environ.py), in a
    process group of its own; on Linux under paicli's wrapper, unconfined: a subreaper that ends whatever the
    command leaves behind and dies with paicli (sandbox/launch.py `prepare_approved`)."""

    def __init__(self, scrub: Callable[[Mapping[str, str]], dict[str, str]]) -> None:
        self._scrub = scrub

    def run(self, request: CommandRequest) -> CommandRun:
        from paicli.tools.sandbox.launch import Launch, prepare_approved

        # scrubbed first, so paicli's own git settings below are never taken for the user's and dropped; a
        # command that passes as read-only runs git with fsmonitor, hooks, pagers and editors switched off
        scrubbed = self._scrub(process_environ())
        reads_only = READ_ONLY_RULE.get().syntactically_read_only(request.command)
        env = dict(git_neutral_env(scrubbed)) if reads_only else dict(scrubbed)
        launch = prepare_approved(request.command, env)
        run = run_launch(launch, request)
        if launch.supervised and wrapper_failed(run):  # the command never ran: run it as before the wrapper
            return run_launch(Launch(["bash", "-c", request.command], env), request)
        return run


def unconfined(allow: tuple[str, ...] = (), keys: Keys = no_keys) -> CommandExecutors:
    """No sandbox: an approved command gets no configured key; an unasked one nothing off the allow-list
    (`allow`: variables kept although their names look secret)."""
    from paicli.tools.sandbox.environ import approved_env, sandbox_env

    return CommandExecutors(
        UnconfinedExecutor(lambda env: approved_env(env, keys())),
        UnconfinedExecutor(lambda env: sandbox_env(env, allow, keys())),
    )


def popen(argv: list[str], env: Mapping[str, str], cwd: Path, fds: tuple[int, ...] = ()) -> Child:
    """A command in a process group of its own, stdout and stderr merged, no stdin."""
    return subprocess.Popen(
        argv,
        cwd=cwd,
        env=dict(env),
        pass_fds=fds,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def run_launch(launch: Launch, request: CommandRequest) -> CommandRun:
    """One prepared launch, forked by the session's fork server when it can be, else a process of its own;
    supervised until it ends."""
    marker = new_marker()
    launch.env[MARKER_ENV] = marker
    process: Child | None = None
    try:
        if launch.inner:
            from paicli.tools.sandbox import zygote

            process = zygote.start(launch, request.cwd)
        if process is None:
            process = popen(launch.argv, launch.env, request.cwd, launch.fds)
    finally:
        launch.cleanup()  # the child has its copy of the policy fd
    return supervise(process, marker, request, launch.supervised)


def wrapper_failed(run: CommandRun) -> bool:
    """The wrapper could not set itself up: the command did not run (its output says why)."""
    return run.exit_code == SANDBOX_FAILED_EXIT and run.capture.text.startswith(SANDBOX_FAILED_PREFIX)


def run_command(command: str, ctx: ToolContext, capture_limit: int) -> CommandRun:
    """`command` by the context's executor (a human-approved, unconfined one when it names none)."""
    request = CommandRequest(
        command, ctx.project_root, ctx.command_timeout_seconds, ctx.cancel, capture_limit, ctx.on_output
    )
    return (ctx.executor or unconfined().approved).run(request)


def supervise(process: Child, marker: str, request: CommandRequest, supervised: bool = False) -> CommandRun:
    """Capture its output until it ends (or the timeout / a cancel kills its group), then kill whatever it
    left behind (`marker`: its MARKER_ENV value; `supervised`: a wrapper's subreaper sweeps up after it)."""
    capture = Capture(request.capture_limit)
    assert process.stdout is not None
    reader = threading.Thread(
        target=_pump,
        args=(process.stdout, capture, LineFeed(request.on_output)),
        daemon=True,
        name="paicli-cmd-output",
    )
    reader.start()
    killed = threading.Event()

    def on_cancel() -> None:
        killed.set()
        kill_group(process)

    unregister = request.cancel.on_cancel(on_cancel)
    timed_out = False
    try:
        process.wait(timeout=request.timeout_seconds)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_group(process)
        process.wait()
    finally:
        unregister()
        # a wrapper that ended on its own has swept up its descendants; one killed on a timeout may not have
        swept = supervised and not timed_out and not killed.is_set() and process.returncode != -signal.SIGKILL
        kill_leftovers(process, marker, swept)
    # Whatever escaped even the marker sweep may keep the pipe open; do not hang on it.
    reader.join(timeout=2.0)
    with contextlib.suppress(Exception):
        if not reader.is_alive():
            process.stdout.close()
    cancelled = killed.is_set() and not timed_out
    return CommandRun(capture, process.returncode, timed_out, cancelled, process.pid)


def capture_limit(offloader: Offloader | None) -> int:
    return OFFLOAD_CAPTURE_CHARS if offloader is not None and offloader.enabled else INLINE_CHARS


def render_output(capture: Capture, offloader: Offloader | None) -> tuple[str, bool]:
    """The output part of the result text, and whether it was offloaded."""
    text = capture.text
    if len(text) <= INLINE_CHARS and not capture.overflowed:
        return text, False
    if offloader is not None and offloader.enabled:
        saved = text + (OVERFLOW_NOTE if capture.overflowed else "")
        return offloader.offload("execute_command", saved, INLINE_CHARS), True
    return text[:INLINE_CHARS] + TRUNCATED_NOTE, False


# a cancelled command that had started (cli/replay.py tells it from a call cancelled before it ran)
CANCELLED_COMMAND = "用户取消了命令执行"


def execute_command(args: Args, ctx: ToolContext) -> ToolOutput:
    command: str = args["command"]
    if not command.strip():
        return ToolOutput("❌ command 不能为空", success=False)
    started = time.monotonic()
    run = run_command(command, ctx, capture_limit(ctx.offloader))
    ran = time.monotonic() - started
    output, offloaded = render_output(run.capture, ctx.offloader)
    body = output if output.strip() else "(无输出)"
    notes = "".join(f"{note}\n" for note in run.notes)  # first: the -p summary line and the REPL show it
    refused = {"sandbox_refused": True} if run.sandbox_refused else {}
    if run.cancelled:
        return ToolOutput(
            f"{notes}{CANCELLED_COMMAND}（已运行 {ran:.1f} 秒），已终止整个进程组；命令可能已经改动了文件。"
            f"\n命令: {command}\n已有输出:\n{body}",
            success=False,
            blocked=True,
            offloaded=offloaded,
            outcome="cancelled",
        )
    if run.timed_out:
        seconds = f"{ctx.command_timeout_seconds:g}"
        return ToolOutput(
            f"{notes}⏱️ 命令执行超时（{seconds} 秒），已终止整个进程组。\n命令: {command}\n已有输出:\n{body}",
            success=False,
            timed_out=True,
            offloaded=offloaded,
            metadata={"limit_seconds": ctx.command_timeout_seconds, **refused},
        )
    code = run.exit_code if run.exit_code is not None else -1
    if run.not_started:
        return ToolOutput(
            f"{notes}❌ 命令沙箱没能启动，命令未执行: {command}\n{body.rstrip(chr(10))}",
            success=False,
            blocked=True,
            outcome="refused",
        )
    status = f"退出码: {code}" if code >= 0 else f"退出码: {code}（被信号 {-code} 终止）"
    return ToolOutput(
        f"{notes}{body.rstrip(chr(10))}\n{status}",
        success=code == 0,
        offloaded=offloaded,
        metadata={"exit_code": code, **refused},
    )
