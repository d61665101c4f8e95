"""Who put a memory there: the `source` metadata value of each write path, and how a memory the model saved
is told apart from the user's own (issue 37).

The reference writes `source=fact` for every explicit save, `/save` and the model's `save_memory` alike, so a
fact the model took from a file it read looked like the user's verified word. paicli keeps `fact` for the
user's own saves and gives the model's its own value, pending verification until the user confirms it
(`/memory verify`). The JSON layout stays the reference's: `source` is one more string in `metadata`.
"""

from __future__ import annotations

from collections.abc import Mapping

USER_SOURCE = "fact"  # /save and /memory replace: the user's own words
AUTO_SOURCE = "auto_user_fact"  # automatic extraction: a verbatim quote of the user's turn
MODEL_SOURCE = "model_fact"  # the model's save_memory call: its own wording, possibly from what it read

MODEL_TAG = "[模型保存，待核实]"  # the recall block's tag for an unconfirmed model save
MODEL_MARK = "🤖 模型保存，待核实"  # the same in /memory list
MODEL_MARK_CONFIRMED = "🤖 模型保存，已由你核实"


def is_model_saved(metadata: Mapping[str, str]) -> bool:
    return str(metadata.get("source", "")).strip().lower() == MODEL_SOURCE
