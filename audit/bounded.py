"""Reading a small file whole, with a ceiling on what is read.

The casino hands over the configuration, the overlays, the rulesets and the
baselines: any of them can be a huge file, or a device that never ends
(``/dev/zero``). Such a file is read up to its limit and one byte more, never
further: past the limit it is refused, before anything is parsed.
"""

from __future__ import annotations

import os
from pathlib import Path

#: an audit.toml or pyproject.toml
MAX_CONFIG_BYTES = 1_000_000
#: a baseline file (JSON): about 40,000 accepted findings, read in about 140 MiB
MAX_BASELINE_BYTES = 16_000_000


class TooLarge(Exception):
    """The file holds more than the limit allows."""

    def __init__(self, limit: int):
        super().__init__(f"larger than {limit} bytes; refused")
        self.limit = limit


def read_bytes(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, at most ``limit`` of them: raises TooLarge past it, OSError when unreadable.

    Opened without waiting: a named pipe nobody writes to reads as empty, one whose writer
    says nothing yet is an OSError (EAGAIN), never a hang."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(limit + 1 - size, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > limit:
        raise TooLarge(limit)
    return b"".join(chunks)


def read_text(path: Path, limit: int) -> str:
    """The UTF-8 text of ``path`` (read as ``read_bytes``); UnicodeDecodeError when it is not UTF-8."""
    return read_bytes(path, limit).decode("utf-8")
