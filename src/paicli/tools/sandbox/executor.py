"""The sandbox as a command executor (tools/executor.py): a command nobody approved runs confined, forked by
the session's fork server when it can be, else in a wrapper process of its own; while the sandbox is off or
unavailable it runs unconfined without any secret-looking variable, as paicli ran it before the sandbox."""

from __future__ import annotations

from paicli.tools.executor import CommandExecutor, CommandExecutors, CommandRequest, CommandRun
from paicli.tools.sandbox.status import SandboxGate, SandboxStatus
from paicli.tools.shell import (
    MARKER_ENV,
    SANDBOX_FAILED_EXIT,
    SANDBOX_FAILED_PREFIX,
    Child,
    Keys,
    new_marker,
    no_keys,
    popen,
    supervise,
    unconfined,
)


class SandboxExecutor:
    """Commands confined by `status` (an active sandbox); `paicli_home` stays out of their reach."""

    def __init__(
        self,
        status: SandboxStatus,
        paicli_home: str | None,
        allow: tuple[str, ...] = (),
        keys: Keys = no_keys,
    ) -> None:
        self.status = status
        self._home = paicli_home
        self._allow = allow
        self._keys = keys

    def run(self, request: CommandRequest) -> CommandRun:
        from paicli.config.env import process_environ
        from paicli.tools.gitrepo import git_neutral_env
        from paicli.tools.sandbox import zygote
        from paicli.tools.sandbox.environ import sandbox_env
        from paicli.tools.sandbox.launch import prepare

        marker = new_marker()
        scrubbed = sandbox_env(process_environ(), self._allow, self._keys())
        launch = prepare(
            request.command, request.cwd, git_neutral_env(scrubbed), self.status, paicli_home=self._home
        )
        launch.env[MARKER_ENV] = marker
        process: Child | None = zygote.start(launch, request.cwd) if launch.inner else None
        try:
            if process is None:
                process = popen(launch.argv, launch.env, request.cwd, launch.fds)
        finally:
            launch.cleanup()  # the child has its copy of the policy fd
        run = supervise(process, marker, request)
        failed = run.exit_code == SANDBOX_FAILED_EXIT and run.capture.text.startswith(SANDBOX_FAILED_PREFIX)
        return CommandRun(
            run.capture, run.exit_code, run.timed_out, run.cancelled, run.pid, not_started=failed
        )


class GatedExecutor:
    """The unasked executor of a session with a sandbox setting: confined while the sandbox is active (the
    gate probes it on the first command), else the unconfined unasked one."""

    def __init__(self, gate: SandboxGate, paicli_home: str | None, keys: Keys = no_keys) -> None:
        self._gate = gate
        self._home = paicli_home
        self._keys = keys
        self._fallback = unconfined(gate.env_allow, keys).unasked

    def current(self) -> CommandExecutor:
        status = self._gate.status() if self._gate.mode != "off" else None
        if status is None or not status.active:
            return self._fallback
        return SandboxExecutor(status, self._home, self._gate.env_allow, self._keys)

    def run(self, request: CommandRequest) -> CommandRun:
        return self.current().run(request)


def session_executors(
    gate: SandboxGate | None, paicli_home: str | None, keys: Keys = no_keys
) -> CommandExecutors:
    """What the composition root hands the tool runner: approved commands unconfined, unasked ones gated;
    `keys`: every configured key, kept from every command's environment."""
    if gate is None:
        return unconfined(keys=keys)
    return CommandExecutors(unconfined(gate.env_allow, keys).approved, GatedExecutor(gate, paicli_home, keys))
