"""Earlier sessions of this project: listing them, `/resume` into one (a copy when another process has it
open), and rebuilding the view of a ledger opened at start-up (`-c` / `--resume`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paicli import __version__
from paicli.agent.react import ReactAgent
from paicli.cli.compose import Components
from paicli.config.env import ConfigError
from paicli.config.settings import Settings
from paicli.llm.messages import Message
from paicli.session.ledger import ConversationLedger
from paicli.session.opener import LedgerOpener

if TYPE_CHECKING:
    from paicli.cli.backend import CommandReply, SessionSummary
    from paicli.session.model_record import RecordedModel
    from paicli.session.resume import ResumeResult
    from paicli.session.transcript import Transcript  # read at a resume only


def last_answer(messages: Sequence[Message], limit: int = 100) -> str:
    """The final answer the resumed conversation ended with, on one short line (where the user left off)."""
    from paicli.cli.render import shorten

    for message in reversed(messages):
        if message.role == "assistant" and not message.tool_calls and (message.content or "").strip():
            return shorten(message.content or "", limit)
    return ""


def view_reference(session_id: str, result: ResumeResult) -> dict[str, Any] | None:
    """What a resume continues, when folding the ledger again gives exactly this view (nothing repaired or
    skipped); otherwise None, and the restored view is checkpointed in full as before."""
    if result.repaired or result.notices:
        return None
    return {
        "sessionId": session_id,
        "sequence": result.last_sequence,
        "checkpointSequence": result.checkpoint_sequence,
    }


def resumed_settings(settings: Settings, recorded: RecordedModel | None) -> tuple[Settings, str]:
    """The settings a resumed session continues with: the model its ledger recorded last when that differs
    from `settings` and can be used, else `settings`; with the line that says so ("" when nothing changed)."""
    if recorded is None or (recorded.model, recorded.provider) == (settings.model, settings.provider):
        return settings, ""
    shown = f"{recorded.model} ({recorded.provider})" if recorded.provider else recorded.model
    try:
        chosen = settings.with_model(recorded.spec)
    except ConfigError as exc:
        return settings, f"🤖 会话记录的模型 {shown} 现在用不了（{exc}），继续使用 {settings.describe()}"
    return chosen, f"🤖 继续使用会话记录的模型 {chosen.describe()}"


@dataclass(frozen=True)
class Reopened:
    """An earlier session's ledger, claimed, with its folded view; the session is rebuilt over it with
    `settings` (the model the ledger recorded last, when it can be used)."""

    ledger: ConversationLedger
    result: ResumeResult
    session_id: str
    forked: str  # the lines saying it was open elsewhere and continues in a copy ("" when not)
    settings: Settings
    model_note: str = ""  # which model it continues with, when not the one running before the resume


class SessionRestore:
    def __init__(self, parts: Components, on_error: Callable[[str], None]) -> None:
        self.parts = parts
        self._on_error = on_error

    def sessions(self, include_hidden: bool = False) -> list[SessionSummary]:
        from paicli.cli.backend import SessionSummary
        from paicli.session.catalog import list_sessions

        settings = self.parts.settings
        found = list_sessions(
            settings.paicli_home,
            settings.project_root,
            exclude_session_id=self.parts.ledger.session_id,
            include_throwaway=include_hidden,
        )
        return [
            SessionSummary(
                s.session_id,
                s.started_at_ms,
                s.first_input,
                s.turns,
                s.model,
                s.updated_at_ms or s.started_at_ms,
                s.throwaway,
                s.title,
            )
            for s in found
        ]

    def reopen(self, session_id: str) -> Reopened | CommandReply:
        """The ledger `/resume <id>` continues (a copy when another process has it open), or why not."""
        from paicli.cli.backend import CommandReply
        from paicli.session.catalog import find_session

        settings = self.parts.settings
        found = find_session(settings.paicli_home, session_id.strip())
        if found is None:
            return CommandReply(f"📭 未找到会话: {session_id}", ok=False)
        from paicli.cli.busy_session import busy_text, forked_text
        from paicli.session.ownership import fork_session, in_use

        path, forked = found.path, ""
        if in_use(path):  # open in another process: continue in a copy, never in the same file
            path = fork_session(found.path)
            forked = f"{busy_text(found.path)}\n{forked_text(found.path, path)}\n"
        from paicli.session.model_record import read_recorded_model  # a resume's: the model it recorded

        settings, note = resumed_settings(settings, read_recorded_model(path))
        opener = LedgerOpener(self.parts.keys(settings.api_key), self._on_error)
        ledger, result = opener.resume(
            path,
            model=settings.model,
            provider=settings.provider,
            version=__version__,
            checkpoint_repairs=False,
        )
        ledger.claim()
        return Reopened(ledger, result, path.name[: -len(".jsonl")], forked, settings, note)

    def resumed(self, agent: ReactAgent, reopened: Reopened) -> CommandReply:
        """The rebuilt session shows the earlier conversation and carries on in it."""
        from paicli.cli.backend import CommandReply

        reply = self._restored(agent, reopened.session_id, reopened.result)
        text = reopened.forked + reply.text + (f"\n{reopened.model_note}" if reopened.model_note else "")
        return CommandReply(text, reply.ok)

    def restore_opened(self, agent: ReactAgent) -> CommandReply:
        """Start-up with -c / --resume: the ledger was opened on an existing file; rebuild its view."""
        from paicli.cli.backend import CommandReply
        from paicli.session.resume import load_view

        ledger = self.parts.ledger
        if ledger.path is None:
            return CommandReply("⚠️ 会话账本不可用，无法恢复会话；已开始新会话。", ok=False)
        result = load_view(ledger.path)
        ledger.mark_resumed(
            {
                "model": self.parts.settings.model,
                "provider": self.parts.settings.provider,
                "paicliVersion": __version__,
                "resumedFromSequence": result.last_sequence,
            }
        )
        return self._restored(agent, ledger.session_id, result)

    def _restored(self, agent: ReactAgent, session_id: str, result: ResumeResult) -> CommandReply:
        from paicli.cli.backend import CommandReply  # the REPL's reply type, loaded with a resume

        tools = self.parts.tools
        tools.reset_session()
        pins = self._pins()  # before the system prompt is rebuilt: the pin block is part of it
        from paicli.tools.policy import observe_history

        specs = {name: tool.spec for name, tool in tools.tools.items()}
        observe_history(tools.tracker, specs, result.messages)  # what it read still counts (issue 37)
        agent.restore(result.messages, view_reference(session_id, result))
        from paicli.cli.replay import is_compacted, replay_lines, transcript_lines

        transcript = self._transcript()
        if transcript is not None and transcript.total_turns:  # none shown when the setting is 0
            size = f"共 {transcript.total_turns} 轮对话，模型上下文 {len(result.messages)} 条消息"
            replay = transcript_lines(transcript, is_compacted(result.messages))
        else:
            size = f"{len(result.messages)} 条消息"
            replay = replay_lines(result.messages)
        lines = [f"✅ 已恢复会话 {session_id}（{size}），继续写入同一个会话账本。"]
        lines.extend(f"   ⚠️ {notice}" for notice in result.notices)
        if pins:
            lines.append(f"   📌 固定内容 {pins} 条已恢复（/pins 查看）")
        recap = last_answer(result.messages)
        if replay:
            lines.extend(replay)
        elif recap:
            lines.append(f"   上次最后的回答: {recap}")
        return CommandReply("\n".join(lines))

    def _pins(self) -> int:
        """The resumed session's newest pin list (none when it never pinned anything)."""
        from paicli.context.pins import PINS_EVENT, pins_from_metadata
        from paicli.session.ledger_events import last_event

        entry = last_event(self.parts.ledger.path, PINS_EVENT, actor="cli")
        pins = pins_from_metadata(entry.metadata) if entry is not None else None
        self.parts.pins.replace_all(pins or [])
        return len(self.parts.pins)

    def _transcript(self) -> Transcript | None:
        """The last turns as the ledger recorded them; None when it cannot be read (the view is shown)."""
        from paicli.session.transcript import read_transcript

        path = self.parts.ledger.path
        if path is None:
            return None
        try:
            return read_transcript(path, self.parts.values.files.resume_replay_turns)
        except OSError as exc:
            self._on_error(f"无法读取会话记录来回放之前的对话: {exc}")
            return None
