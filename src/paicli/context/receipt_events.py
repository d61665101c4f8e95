"""The ledger events of a compaction's receipt. The conversation names them on every turn; the receipt's model
(context/receipts.py, pydantic) loads only when a compaction writes one or a ledger is read back."""

from __future__ import annotations

RECEIPT_EVENT = "compaction_receipt"
OBSERVED_EVENT = "compaction_receipt_observed"
UNDO_EVENT = "compaction_undone"
