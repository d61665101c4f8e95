"""The one way the product opens a session ledger for writing: new, continued at start-up, or resumed.

Every opener carries the full set of configured keys (every provider's, from every source: see
`config.keys.configured_keys`), not only the current provider's: a session switches providers with `/model`
and `/resume`, and whatever key reaches the conversation must be masked in the file. A source scan
(tests/security/test_ledger_opener.py) keeps `ConversationLedger`'s own constructors out of the rest of `src/`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paicli.session.ledger import Clock, ConversationLedger, ErrorSink, epoch_millis

if TYPE_CHECKING:
    from paicli.session.resume import ResumeResult


@dataclass(frozen=True)
class LedgerOpener:
    keys: tuple[str, ...]
    on_error: ErrorSink | None = None
    clock: Clock = epoch_millis

    def create(
        self, home: Path, project_root: Path, model: str, provider: str, version: str, *, mode: str = "react"
    ) -> ConversationLedger:
        """A new session's ledger (disabled, with the reason reported once, when it cannot be made)."""
        return ConversationLedger.create(
            home,
            project_root,
            model,
            provider,
            version,
            self.clock,
            secrets=self.keys,
            on_error=self.on_error,
            mode=mode,
        )

    def existing(self, path: Path) -> ConversationLedger:
        """An earlier session's ledger, continued (`-c`, `--resume`): the caller rebuilds the view."""
        return ConversationLedger.open_existing(
            path, clock=self.clock, secrets=self.keys, on_error=self.on_error
        )

    def resume(
        self,
        path: Path,
        *,
        model: str = "",
        provider: str = "",
        version: str = "",
        metadata: Mapping[str, Any] | None = None,
        checkpoint_repairs: bool = True,
    ) -> tuple[ConversationLedger, ResumeResult]:
        """Open a session to continue it: rebuild the view, then keep appending to the same file.

        Writes a session_resumed event, and (unless `checkpoint_repairs` is off because the caller
        checkpoints the restored view itself) a view_checkpoint when the view had to be repaired, so the
        ledger again holds exactly what the model will see. Put a fresh system prompt before
        `result.messages` to get the history.
        """
        from paicli.session.resume import load_view  # a resume only: a new session folds nothing

        result = load_view(path)
        ledger = self.existing(path)
        marker = {
            "model": model,
            "provider": provider,
            "paicliVersion": version,
            "resumedFromSequence": result.last_sequence,
        }
        ledger.mark_resumed({**marker, **(metadata or {})})
        if result.repaired and checkpoint_repairs:
            ledger.record_view_checkpoint(
                "session_resume", result.messages, {"repairedToolPairs": result.repaired}
            )
        return ledger, result
