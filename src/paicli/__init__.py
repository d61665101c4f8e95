"""paicli: a terminal coding agent built around short-term memory, long-term memory and compaction."""

__version__ = "0.1.0"
