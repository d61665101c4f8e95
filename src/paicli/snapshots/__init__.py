"""Workspace snapshots (issue 30): a side git repository per project records the working tree before each turn
that may change files, so `/undo`, `/restore <N>` and `revert_turn` can put every byte back.

The side repository lives under `<paicli home>/snapshots/<project-key>/` and uses the project folder as its work
tree; the project's own `.git` is never read for objects nor written.
"""
