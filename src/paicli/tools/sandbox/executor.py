"""The sandbox as a command executor (tools/executor.py): a command nobody approved runs confined, forked by
the session's fork server when it can be, else in a wrapper process of its own, and is checked afterwards
(protected entries it created quarantined, what the sandbox refused explained); while the sandbox is off or
unavailable it runs unconfined without any secret-looking variable, as paicli ran it before the sandbox."""

from __future__ import annotations

from dataclasses import replace

from paicli.tools.executor import CommandExecutor, CommandExecutors, CommandRequest, CommandRun
from paicli.tools.sandbox.status import SandboxGate, SandboxStatus
from paicli.tools.shell import Keys, no_keys, run_launch, unconfined, wrapper_failed


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
        """Run confined; afterwards the protected entries it created are quarantined and what the sandbox
        refused is explained (sandbox/fence.py), whatever the command printed or however it ended."""
        from paicli.config.env import process_environ
        from paicli.tools.gitrepo import git_neutral_env
        from paicli.tools.sandbox.environ import sandbox_env
        from paicli.tools.sandbox.fence import after_command
        from paicli.tools.sandbox.launch import prepare

        # scrubbed first, then paicli's own git settings (never taken for the user's and dropped)
        scrubbed = sandbox_env(process_environ(), self._allow, self._keys())
        launch = prepare(
            request.command, request.cwd, git_neutral_env(scrubbed), self.status, paicli_home=self._home
        )
        run = run_launch(launch, request)
        notes: list[str] = []
        refused = False
        if launch.fence is not None:
            notes, refused = after_command(launch.fence, run.capture.text, request.cwd)
        return replace(run, not_started=wrapper_failed(run), notes=tuple(notes), sandbox_refused=refused)


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
