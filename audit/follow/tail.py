"""Following log files as they are written, line by line, through ``audit check``'s replay.

A ``FollowedFile`` reads one path as ``tail -F`` does: the bytes appended since the last look
are read, each complete line (its ``\\n`` written) handed to the file's ``FileReplay``; a last
line still being written waits for its end, so a line cut mid-write is never a syntax finding.
A path whose file is replaced (another inode: rotation) is read from the start of the new file,
the old one first read to its end and finished; a file that became shorter than what was read
(truncation) is finished and read again from its start. Each such new file is a *generation*:
its lines are numbered from 1, as ``audit check`` would number them.

A ``Follower`` holds the followed files: the paths given, and the logs (``*.del``, ``*.log``)
that appear in the folders given. Nothing grows with a file's length: what is kept per file
is its replay's open tables, the start of a line not yet ended (up to ``MAX_LINE_BYTES``; a
longer one is read past, as ``audit check`` does) and at most 4 KiB of its start (to recognise
it after a restart).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..findings import Finding
from ..rulesets import Library
from ..stream.inputs import BOM, CHUNK_BYTES, foreign_encoding
from ..stream.replay import MAX_LINE_BYTES, FileReplay
from .live_stats import LiveStatistics

#: the logs a followed folder holds (compressed archives are not written live: ``audit check`` reads them)
FOLLOWED_SUFFIXES = (".del", ".log")
#: the bytes of a file's start kept to recognise it after a restart
HEAD_BYTES = 4096

#: (line, rule, table, round): a finding as a restart recognises it, within one file
Key = tuple[int, str, "str | None", "int | None"]


def key_of(f: Finding) -> Key:
    return (f.line, f.rule, f.table, f.round)


class FollowError(Exception):
    """A path that cannot be followed at all: ``audit follow`` stops with exit 2."""


class _Relay(list):
    """The replay's findings list: each finding handed on as it is made, none kept."""

    def __init__(self, found: Callable[[Finding], None]):
        super().__init__()
        self.found = found

    def append(self, finding: Finding) -> None:
        self.found(finding)


@dataclass
class Resume:
    """Where a restart takes a file up: the generation it read (device, inode, start), how far
    (``offset``, the end of the last line consumed) and the findings reported past that point."""

    dev: int | None
    ino: int | None
    offset: int
    head_sha256: str
    keys: list[Key]


class FollowedFile:
    """One path, followed; ``report`` receives each finding (``path`` is the one findings name)."""

    def __init__(
        self,
        library: Library,
        path: str,
        report: Callable[[str, Finding], None],
        resume: Resume | None = None,
        live: LiveStatistics | None = None,
    ):
        """``live``: the statistics looked at as each shoe ends (None: none)."""
        self.library, self.path, self.report, self.live = library, path, report, live
        self.fd: int | None = None
        self.opened = False
        self.dev = self.ino = 0
        self.resume = resume
        #: what a restart reports no more: read again silently up to ``silent_until``, then the
        #: findings already reported past it (a multiset: two alike findings are two)
        self.silent_until = 0
        self.suppress: Counter[Key] = Counter()
        #: the findings reported since ``mark`` (a line's end): what the state keeps of them
        self.keys: list[Key] = []
        self.mark = 0
        self._new_generation()

    # -- a generation: one file at this path, read from its start
    def _new_generation(self) -> None:
        self.replay = FileReplay(self.library, self.path)
        if self.live is not None:
            self.replay.surveillance = self.live.surveillance_for(self.replay)
        self.replay.sink.findings = _Relay(self._found)
        self.offset = 0  # the end of the last complete line consumed
        self.read_to = 0  # the bytes read (consumed, held as a line's start, or read past)
        self.lineno = 0
        self.carry = b""  # the start of a line whose end is not written yet
        self.long: list | None = None  # [length, head] of a line longer than the limit, read past
        self.head = b""  # up to HEAD_BYTES of the file's start
        self.started = False  # the byte-order mark and the encoding decided
        self.bom_checked = False
        self.bom = False
        self.last_byte = b""
        self.foreign: str | None = None
        self.foreign_lines = 0
        self.finished = False
        self.opened = self.fd is not None
        self.silent_until = 0
        self.suppress = Counter()
        self.keys = []
        self.mark = 0

    @property
    def position(self) -> int:
        """The bytes of the file read so far."""
        return self.read_to

    def _found(self, finding: Finding) -> None:
        if self.offset < self.silent_until:
            return  # reported before the restart: the replay only rebuilds the tables
        key = key_of(finding)
        if self.suppress[key] > 0:
            self.suppress[key] -= 1
            return
        self.keys.append(key)
        self.report(self.path, finding)

    # -- opening
    def _open(self) -> bool:
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)  # (a FIFO would block)
        except FileNotFoundError:
            return False
        except OSError as err:
            raise FollowError(f"{self.path}: cannot read: {err.strerror or err}") from None
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            raise FollowError(f"{self.path}: not a regular file")
        self.fd, self.dev, self.ino = fd, st.st_dev, st.st_ino
        self.opened = True
        resume, self.resume = self.resume, None
        if resume is not None and self._same(resume, st.st_size):
            self.silent_until = self.mark = resume.offset
            self.keys = [tuple(k) for k in resume.keys]  # type: ignore[misc]
            self.suppress = Counter(tuple(k) for k in resume.keys)  # type: ignore[misc]
        return True

    def _same(self, resume: Resume, size: int) -> bool:
        """Whether the file at the path is the one the state speaks of, as long as then at least."""
        if resume.dev is None:  # known from the output only: reported before any state was written
            return resume.offset == 0
        if (resume.dev, resume.ino) != (self.dev, self.ino) or size < resume.offset:
            return False
        assert self.fd is not None
        start = os.pread(self.fd, min(HEAD_BYTES, resume.offset), 0)
        return hashlib.sha256(start).hexdigest() == resume.head_sha256

    def head_sha256(self) -> str:
        return hashlib.sha256(self.head[: min(HEAD_BYTES, self.mark)]).hexdigest()

    def advance_mark(self) -> None:
        """Every line read so far is accounted for: the state may say so (a file finished keeps
        its mark, the findings of its end being past it)."""
        if not self.finished and self.offset >= self.silent_until:
            self.mark, self.keys = self.offset, []

    def resume_point(self) -> Resume | None:
        """What the state keeps of this file: as the state said until it is opened again (None:
        never opened)."""
        if not self.opened:
            return self.resume
        return Resume(self.dev, self.ino, self.mark, self.head_sha256(), list(self.keys))

    # -- reading
    def poll(self) -> int:
        """Read what was written since the last look; the number of bytes read."""
        if self.fd is None and not self._open():
            return 0
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return self._read()  # moved away: what the writer still adds to it is read
        if (st.st_dev, st.st_ino) != (
            self.dev,
            self.ino,
        ):  # replaced: the old one to its end, then the new
            read = self._read()
            self._close_generation()
            return read + (self._read() if self._open() else 0)
        if st.st_size < self.position:  # truncated: read again from the start
            self.finish()
            self._new_generation()
        return self._read()

    def _close_generation(self) -> None:
        self.finish()
        assert self.fd is not None
        os.close(self.fd)
        self.fd = None
        self._new_generation()

    def _read(self) -> int:
        fd = self.fd
        if fd is None or self.finished:
            return 0
        total = 0
        while True:
            size = CHUNK_BYTES
            if self.position < self.silent_until:  # the silent part ends at a line's end
                size = min(size, self.silent_until - self.position)
            block = os.pread(fd, size, self.position)
            if not block:
                return total
            total += len(block)
            self._take(block)

    def _take(self, block: bytes, final: bool = False) -> None:
        """Bytes read after those before: lines to the replay, the last unended one held.
        ``final``: no byte follows (the file is complete)."""
        self.read_to += len(block)
        if len(self.head) < HEAD_BYTES:
            self.head += block[: HEAD_BYTES - len(self.head)]
        if not self.started:  # the byte-order mark and the encoding, told from the start
            data, self.carry = self.carry + block, b""
            if not self.bom_checked:
                if not final and len(data) < len(BOM) and BOM.startswith(data):
                    self.carry = data
                    return
                self.bom_checked = True
                if data.startswith(BOM):
                    self.bom, data = True, data[len(BOM) :]
                    self.offset += len(BOM)
            if not final and b"\n" not in data and len(data) < HEAD_BYTES:
                self.carry = data  # the encoding is told from a first line at least
                return
            self.started = True
            self.foreign = foreign_encoding(data)
            block = data
        if self.foreign is not None:  # counted, not read
            self.foreign_lines += block.count(b"\n")
            if block:
                self.last_byte = block[-1:]
            self.offset = self.read_to
            return
        if self.long is not None:  # a line longer than the limit, read past
            end = block.find(b"\n")
            if end < 0:
                self.long[0] += len(block)
                return
            length, head = self.long[0] + end, self.long[1]
            self.long = None
            self.lineno = self.replay.too_long(self.lineno + 1, length, head)
            block = block[end + 1 :]
            self.offset = self.read_to - len(block)
        lines = block.split(b"\n")
        lines[0] = self.carry + lines[0]
        self.carry = lines.pop()
        if lines:
            self._feed(lines)
            self.offset = self.read_to - len(self.carry)
        if len(self.carry) > MAX_LINE_BYTES:
            self.long = [len(self.carry), self.carry[:64]]
            self.carry = b""

    def _feed(self, lines: list[bytes]) -> None:
        """Complete lines; one over the limit is one syntax finding, not read (as ``audit check``)."""
        start = 0
        for i, line in enumerate(lines):
            if len(line) > MAX_LINE_BYTES:
                if i > start:
                    self.lineno = self.replay.feed_chunk(lines[start:i], self.lineno)
                self.lineno = self.replay.too_long(self.lineno + 1, len(line), line[:64])
                start = i + 1
        if start < len(lines):
            self.lineno = self.replay.feed_chunk(lines[start:], self.lineno)

    def finish(self) -> None:
        """The file is complete: its last line without an end is read, the end-of-log findings reported."""
        if self.finished or not self.opened:
            return  # (a file never written is not a log)
        replay = self.replay
        if not self.started and (self.carry or not self.bom_checked):
            self._take(b"", final=True)
        if self.foreign is not None:
            replay.not_text(self.foreign_lines + (self.last_byte not in (b"", b"\n")), self.foreign)
        elif self.long is not None:
            self.lineno = replay.too_long(self.lineno + 1, self.long[0], self.long[1])
        elif self.carry or (self.bom and self.lineno == 0):
            self._feed([self.carry])
        self.offset = self.read_to
        self.carry, self.long = b"", None
        replay.finish()
        self.finished = True

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def open_tables(self) -> int:
        return len(self.replay.tables)


def _logs_under(folder: str) -> Iterable[str]:
    for top, _, names in os.walk(folder):
        for name in names:
            if name.endswith(FOLLOWED_SUFFIXES):
                yield Path(top, name).as_posix()


class Follower:
    """The files followed: the paths given, and the logs that appear in the folders given."""

    def __init__(
        self,
        library: Library,
        paths: list[str],
        report: Callable[[str, Finding], None],
        resume: dict[str, Resume] | None = None,
        warn: Callable[[str], None] | None = None,
        live: LiveStatistics | None = None,
    ):
        """``warn``: told of a log found in a folder that cannot be read (it is left out; a file
        named on the command line that cannot be read stops the follow: ``FollowError``)."""
        self.library, self.report, self.warn, self.live = library, report, warn, live
        self.named: set[str] = set()
        self.left_out: set[str] = set()
        self.resume = dict(resume or {})
        self.files: dict[str, FollowedFile] = {}
        self.folders: list[str] = []
        for raw in paths:
            p = Path(raw)
            if raw == "-":
                raise FollowError(
                    "standard input is not followed: give the log files or their folders "
                    "(audit check - reads standard input)"
                )
            if p.is_dir():
                self.folders.append(p.as_posix())
            elif raw.endswith((".gz",)):
                raise FollowError(
                    f"{raw}: a compressed log is not written live; audit check reads it"
                )
            elif p.exists() or p.parent.is_dir():  # a file not written yet is waited for
                self._add(p.as_posix())
                self.named.add(p.as_posix())
            else:
                raise FollowError(f"{raw}: no such file or folder")
        self.scan()

    def _add(self, path: str) -> None:
        if path not in self.files and path not in self.left_out:
            self.files[path] = FollowedFile(
                self.library, path, self.report, self.resume.pop(path, None), self.live
            )

    def scan(self) -> None:
        """Start following the logs that appeared in the folders."""
        for folder in self.folders:
            for path in _logs_under(folder):
                self._add(path)

    def poll(self) -> int:
        """One look at every file (and folder); the bytes read."""
        self.scan()
        read = 0
        for path, followed in list(self.files.items()):
            try:
                read += followed.poll()
            except FollowError as err:
                if path in self.named or self.warn is None:
                    raise
                self.warn(f"{err}; left out")
                followed.close()
                del self.files[path]
                self.left_out.add(path)
        return read

    def finish(self) -> None:
        """Every file is complete: its end-of-log findings are reported."""
        for path in sorted(self.files):
            self.files[path].finish()

    def close(self) -> None:
        for f in self.files.values():
            f.close()
