"""The session ledger (append-only JSONL), view checkpoints, resume and the per-project session catalog."""
