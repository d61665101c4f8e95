"""Backward reads of a JSONL file: find the last lines without reading the whole file."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

BLOCK = 256 * 1024
_HEAD = 512
_SEQUENCE = re.compile(rb'"sequence":(\d+)')
_TAIL_LINES = 8


def newlines_backwards(handle: BinaryIO, end: int) -> Iterator[int]:
    """Offsets of every b"\\n" before `end`, last first, reading fixed-size blocks (no line buffering)."""
    position = end
    while position > 0:
        start = max(0, position - BLOCK)
        handle.seek(start)
        block = handle.read(position - start)
        index = len(block)
        while True:
            index = block.rfind(b"\n", 0, index)
            if index < 0:
                break
            yield start + index
        position = start


def line_start(handle: BinaryIO, offset: int) -> int:
    """Start of the line that contains `offset`."""
    for newline in newlines_backwards(handle, offset):
        return newline + 1
    return 0


def find_backwards(handle: BinaryIO, marker: bytes, end: int) -> Iterator[int]:
    """Offsets of `marker` before `end`, last first (a hit may straddle two blocks)."""
    position = end
    overlap = len(marker) - 1
    while position > 0:
        start = max(0, position - BLOCK)
        handle.seek(start)
        block = handle.read(min(end, position + overlap) - start)
        limit = len(block)
        while True:
            index = block.rfind(marker, 0, limit)
            if index < 0:
                break
            limit = index + len(marker) - 1
            if start + index < position:
                yield start + index
        position = start


def line_sequences_backwards(handle: BinaryIO, size: int) -> Iterator[int]:
    """The `sequence` of each line from the last one back, read from the line's first bytes only."""
    end = size
    for newline in newlines_backwards(handle, size):
        start = newline + 1
        if start < end:
            sequence = _head_sequence(handle, start)
            if sequence is not None:
                yield sequence
        end = newline
    if end > 0:
        sequence = _head_sequence(handle, 0)
        if sequence is not None:
            yield sequence


def _head_sequence(handle: BinaryIO, start: int) -> int | None:
    handle.seek(start)
    match = _SEQUENCE.search(handle.read(_HEAD).split(b"\n", 1)[0])
    return int(match.group(1)) if match else None


def read_last_sequence(path: Path) -> tuple[int, bool]:
    """(highest sequence among the last lines, whether the file ends in a torn line).

    Reads backwards from the end, looking only at each line's first bytes, so the cost does not grow
    with the file. The last few lines are compared because a torn or foreign line may sit at the end.
    """
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            if size == 0:
                return 0, False
            handle.seek(size - 1)
            torn = handle.read(1) != b"\n"
            best: int | None = None
            for count, sequence in enumerate(line_sequences_backwards(handle, size)):
                best = sequence if best is None else max(best, sequence)
                if count >= _TAIL_LINES:
                    break
            return best or 0, torn
    except OSError:
        return 0, False
