"""Reading an input: files and folders named on the command line, standard input, gzip archives;
the bytes hashed as stored (the evidence), read in chunks and handed to the replay."""

from __future__ import annotations

import contextlib
import gc
import gzip
import hashlib
import io
import os
import stat
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from ..engine.format_checks import SYNTAX
from ..history.gaming_day import HEAD_LINES, DayCount, event_stamp
from ..report import InputSummary
from ..rulesets import Library
from .replay import MAX_LINE_BYTES, FileReplay
from .urls import UrlError, expand_url, is_url, open_url, url_size

LOG_SUFFIXES = (".del", ".log", ".del.gz", ".log.gz")
GZIP_MAGIC = b"\x1f\x8b"


class InputError(Exception):
    """An input that cannot be read at all: the audit stops with exit 2."""


def expand(paths: list[str]) -> list[str]:
    """Files as given; folders walked for ``*.del``, ``*.log`` (and ``.gz``); ``-`` is standard input;
    a URL (``s3://``, ``file://``...) read through fsspec, a folder URL walked as a folder.

    The list is sorted and without repeats, so the report does not depend on the order of the
    command line (standard input, if given, comes last). Every path that cannot be read (a
    missing file, a folder or a log in a folder that cannot be read, a broken link, a FIFO, socket
    or device met in a folder) is named, all in one ``InputError``: an audit that left a log out
    must not pass for a whole one. A FIFO or a device given by name is read as a file.
    """
    out: list[str] = []
    problems: list[str] = []
    for raw in paths:
        if raw == "-":
            out.append(raw)
            continue
        if is_url(raw):
            try:
                out.extend(expand_url(raw, LOG_SUFFIXES))
            except UrlError as err:
                raise InputError(str(err)) from None
            continue
        p = Path(raw)
        if p.is_dir():
            found = _walk(p, problems)
            if not found and not problems:
                raise InputError(f"{raw}: folder holds no log (*.del, *.log, *.del.gz, *.log.gz)")
            out.extend(found)
        elif p.exists():
            out.append(p.as_posix())
        else:
            problems.append(
                f"{raw}: " + ("broken link" if p.is_symlink() else "no such file or folder")
            )
    if problems:
        raise InputError(
            problems[0]
            if len(problems) == 1
            else f"{len(problems)} inputs cannot be read: " + "; ".join(problems)
        )
    stdin = ["-"] if "-" in out else []
    return sorted(set(out) - {"-"}) + stdin


#: what a path that is neither a folder nor a regular file is, by its ``stat.S_IFMT``
_NOT_REGULAR = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
}


def _walk(top: Path, problems: list[str]) -> list[str]:
    """The logs under ``top`` (links to files followed; links to folders are not walked, as
    ``Path.rglob`` did not); what cannot be read is added to ``problems``."""

    def unreadable(err: OSError) -> None:
        problems.append(
            f"{Path(err.filename).as_posix()}: cannot read the folder: {err.strerror or err}"
        )

    found: list[str] = []
    for folder, _, names in os.walk(top, onerror=unreadable):
        for name in names:
            if not name.endswith(LOG_SUFFIXES):
                continue
            path = Path(folder, name).as_posix()
            try:
                mode = os.stat(path).st_mode
            except FileNotFoundError:
                problems.append(
                    f"{path}: broken link" if os.path.islink(path) else f"{path}: no such file"
                )
                continue
            except OSError as err:
                problems.append(f"{path}: cannot read: {err.strerror or err}")
                continue
            if not stat.S_ISREG(mode):
                kind = _NOT_REGULAR.get(stat.S_IFMT(mode), "not a regular file")
                problems.append(f"{path}: {kind}, not a regular file; give it by name to read it")
            elif not os.access(path, os.R_OK):
                problems.append(f"{path}: cannot read: permission denied")
            else:
                found.append(path)
    return found


def input_size(files: list[str]) -> int:
    """Bytes to read, for a progress bar (standard input counts as unknown: 0)."""
    return sum(size_of(f) for f in files if f != "-")


def size_of(path: str) -> int:
    """The bytes stored of one file or URL."""
    try:
        return url_size(path) if is_url(path) else Path(path).stat().st_size
    except (OSError, UrlError):
        return 0  # unreadable: the audit says so when it reads it


#: bytes read at once, from a plain or a compressed log (at most: a pipe gives what it holds, a
#: compressed log what one step of the decompressor gives, so that every line before a damaged
#: block is audited)
CHUNK_BYTES = 1 << 20
BOM = b"\xef\xbb\xbf"


class FirstStamp:
    """The time of an input's first event, as written, looked for in its first ``HEAD_LINES``
    lines as they are audited, and, when ``days`` is given, the gaming day of every event line
    counted (the history store records both: never read again from the path, which may name
    other bytes by then)."""

    def __init__(self, days: DayCount | None = None) -> None:
        self.stamp: str | None = None
        self.left = HEAD_LINES
        self.days = days
        #: whether every line is to be seen (``see``), not only the first ones
        self.counting = days is not None

    def see(self, lines: list[bytes]) -> None:
        if self.days is not None:
            self._count(lines)
            return
        for line in lines[: self.left]:
            self.stamp = event_stamp(line)
            if self.stamp is not None:
                self.left = 0
                return
        self.left -= min(len(lines), self.left)

    def _count(self, lines: list[bytes]) -> None:
        add = self.days.add  # type: ignore[union-attr]
        for line in lines:
            stamp = event_stamp(line)
            if stamp is not None:
                if self.stamp is None:
                    self.stamp = stamp
                    self.left = 0
                add(stamp)

    def skip(self) -> None:
        """A line too long to be looked at."""
        self.left = max(self.left - 1, 0)


def feed_lines(
    stream: io.BufferedIOBase,
    replay: FileReplay,
    tick: Callable[[int], None] | None = None,
    first: FirstStamp | None = None,
) -> None:
    """Every line to the replay, a chunk at a time (the replay decodes them): chunks are read and
    split here, so that no line over ``MAX_LINE_BYTES`` is ever held whole.

    ``tick`` receives the bytes read, about every ``CHUNK_BYTES`` and at the end; ``first``, if
    given, looks at the first lines for the first event's time.
    """
    first = first or FirstStamp()
    read = stream.read1 if tick is None else _counting(stream.read1, tick)
    feed, limit = (
        replay.feed_chunk,
        MAX_LINE_BYTES,
    )  # (no line but a chunk's first can be longer: a chunk is not)
    lineno = 0
    block = read(CHUNK_BYTES)
    while 0 < len(block) < 4 and (more := read(CHUNK_BYTES)):
        block += more  # (a pipe may give the first bytes one by one: a byte-order mark has up to 4)
    bom = block.startswith(BOM)
    if bom:
        block = block[len(BOM) :] or read(CHUNK_BYTES)
    encoding = foreign_encoding(block)
    if encoding is not None:
        replay.not_text(_count_lines(block, read), encoding)
        return
    carry = b""  # the start of a line whose end is not read yet
    while block:
        lines = block.split(b"\n")
        if carry:
            lines[0] = carry + lines[0]
        carry = lines.pop()
        if lines:
            if not lineno and len(lines) > 1 and any(len(line) > limit for line in lines):
                # (the first block may hold more than a chunk, the first bytes of a pipe gathered)
                for line in lines:
                    lineno = _feed_one(line, lineno, replay, first)
            else:
                if len(lines[0]) > limit:
                    lineno = replay.too_long(lineno + 1, len(lines[0]), lines[0][:64])
                    first.skip()
                    del lines[0]
                if lines:
                    if first.left or first.counting:
                        first.see(lines)
                    lineno = feed(lines, lineno)
        block = read(CHUNK_BYTES)
        if len(carry) > limit:  # read past the rest of the line, a chunk at a time
            length, head, carry = len(carry), carry[:64], b""
            while block and (end := block.find(b"\n")) < 0:
                length += len(block)
                block = read(CHUNK_BYTES)
            if block:
                length += end
                block = block[end + 1 :] or read(CHUNK_BYTES)
            lineno = replay.too_long(lineno + 1, length, head)
            first.skip()
    if carry or (bom and lineno == 0):  # the last line, without its end (a BOM alone is one)
        if first.left or first.counting:
            first.see([carry])
        feed([carry], lineno)
    if tick is not None:
        read(0)  # the bytes not told yet


def _feed_one(line: bytes, lineno: int, replay: FileReplay, first: FirstStamp) -> int:
    """One line to the replay, or its length if it is too long."""
    if len(line) > MAX_LINE_BYTES:
        first.skip()
        return replay.too_long(lineno + 1, len(line), line[:64])
    if first.left or first.counting:
        first.see([line])
    return replay.feed_chunk([line], lineno)


#: the byte-order marks of the encodings a log is saved in by mistake (none can start UTF-8 text)
FOREIGN_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32 LE"),
    (b"\x00\x00\xfe\xff", "UTF-32 BE"),
    (b"\xff\xfe", "UTF-16 LE"),
    (b"\xfe\xff", "UTF-16 BE"),
)


def foreign_encoding(block: bytes) -> str | None:
    """The encoding a log's first chunk is in, when it is UTF-16 or UTF-32 rather than UTF-8 text:
    by its byte-order mark, or, for UTF-16 without one, by a NUL in every other byte of its start
    (the high byte of each ASCII character; UTF-8 text holds NUL only by damage)."""
    for bom, name in FOREIGN_BOMS:
        if block.startswith(bom):
            return name
    sample = block[:4096]
    half = len(sample) // 2
    if half >= 8:
        even, odd = sample[0::2].count(0), sample[1::2].count(0)
        if odd >= half * 0.4 and even <= half * 0.05:
            return "UTF-16 LE"
        if even >= half * 0.4 and odd <= half * 0.05:
            return "UTF-16 BE"
    return None


def _count_lines(block: bytes, read: Callable[[int], bytes]) -> int:
    """The lines from ``block`` on to the end, counted a chunk at a time, not split."""
    lines, last = 0, block
    while block:
        lines += block.count(b"\n")
        last = block
        block = read(CHUNK_BYTES)
    return lines + (not last.endswith(b"\n"))


def _counting(read: Callable[[int], bytes], tick: Callable[[int], None]) -> Callable[[int], bytes]:
    """``read``, telling ``tick`` the bytes read about every ``CHUNK_BYTES`` (``read(0)``: now)."""
    untold = 0

    def counted(size: int) -> bytes:
        nonlocal untold
        data = read(size) if size else b""
        untold += len(data)
        if untold and (untold >= CHUNK_BYTES or not size):
            tick(untold)
            untold = 0
        return data

    return counted


#: the cyclic collector's thresholds while a log streams (Python's defaults: 700, 10, 10)
STREAMING_GC_THRESHOLDS = (20_000, 10, 10)


@contextlib.contextmanager
def collector_for_streaming() -> Iterator[None]:
    """A replay frees almost everything by reference counting: an event lives for one line and
    a round's objects for one round. The cyclic collector, left at its defaults, still ran
    every 700 surviving containers and scanned the whole heap (grammar, rulesets, models)
    at each full pass: about 3% of a night's audit. While a log streams, what is loaded
    beforehand is frozen out of its scans and it runs less often; it still runs, so the
    cycles a closed table leaves are freed and memory stays flat."""
    before, frozen = gc.get_threshold(), gc.get_freeze_count() > 0
    if not frozen:  # a caller that froze objects itself keeps them frozen, and its own choice
        gc.freeze()
    gc.set_threshold(*STREAMING_GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
        if not frozen:
            gc.unfreeze()


class _Hashing(io.RawIOBase):
    """A raw stream that hashes and counts the bytes read through it (the evidence as stored)."""

    def __init__(self, raw: BinaryIO, digest: hashlib._Hash | None):
        self.raw, self.digest, self.size = raw, digest, 0

    def readable(self) -> bool:
        return True

    def drain(self) -> None:
        """Read (and hash) whatever the decompressor left unread."""
        while data := self.raw.read(1 << 16):
            if self.digest is not None:
                self.digest.update(data)
            self.size += len(data)

    def readinto(self, buffer) -> int:
        data = self.raw.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        if self.digest is not None:
            self.digest.update(data)
        self.size += n
        return n


def reads_once(path: str) -> bool:
    """Whether an input gives its bytes once: standard input, a FIFO, a device, ``/dev/stdin`` or
    a process substitution (``/dev/fd/63``), anything but a regular file or a URL's object. It is
    read once, whole: never in parts, never again."""
    if path == "-":
        return True
    if is_url(path):
        return False
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False  # unreadable: the audit says so when it reads it


def splittable(path: str) -> bool:
    """Whether an input can be read in parts, each part reading it whole for some of its tables."""
    return not reads_once(path)


def _identity(status: os.stat_result) -> tuple[int, ...]:
    """What changes when a file's bytes do: the same file, its size, its times of change."""
    return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def changed_message(path: str, how: str) -> str:
    return f"{path}: changed while it was read ({how}); audit it again once it is complete"


def _check_unchanged(path: str, fd: int, before: os.stat_result, read: int, whole: bool) -> None:
    """The file's bytes are those read: it did not change between its opening and the end of its
    read, and (read from its start, ``whole``) every byte it holds was read, no more."""
    after = os.fstat(fd)
    if before.st_size != after.st_size:
        raise InputError(changed_message(path, f"size {before.st_size} then {after.st_size}"))
    if whole and read != before.st_size:
        raise InputError(changed_message(path, f"size {before.st_size}, {read} bytes read"))
    if _identity(before) != _identity(after):
        raise InputError(changed_message(path, "modified, at the same size"))


def audit_input(
    library: Library,
    path: str,
    part: tuple[int, int] | None = None,
    tick: Callable[[int], None] | None = None,
    source: str | None = None,
) -> tuple[FileReplay, InputSummary]:
    """Stream one input through the replay. A gzip-compressed log (nightly archives) is read as
    such; its SHA-256 and size are those of the compressed file, the evidence as stored.

    ``source``: where to read it if not at ``path``, which the report names (a cluster's worker
    reads a relative path given to the client at its absolute place).

    A regular file that grows, shrinks or is written while it is read is refused (``InputError``):
    the lines audited, the SHA-256 and the size always describe the same bytes. An input that
    is not a regular file (a pipe, a device) is read once: never a ``part`` of it."""
    display = "<stdin>" if path == "-" else path
    replay = FileReplay(library, display, part)
    digest = hashlib.sha256()
    source = source or path
    try:
        raw: BinaryIO = (
            sys.stdin.buffer
            if path == "-"
            else open_url(source)
            if is_url(source)
            else open(source, "rb")  # noqa: SIM115 (closed when the replay is done, below)
        )
    except OSError as err:
        raise InputError(f"{path}: cannot read: {err.strerror or err}") from None
    except UrlError as err:  # no fsspec, or none of its filesystems reads this scheme
        raise InputError(str(err)) from None
    try:
        before = None if is_url(source) else os.fstat(raw.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        before = None  # (a standard input replaced by one without a descriptor: read as it is)
    regular = before is not None and stat.S_ISREG(before.st_mode)
    if part is not None and before is not None and not regular:
        if path != "-":
            raw.close()
        raise InputError(
            f"{path}: not a regular file: it can be read only once, whole, not in parts"
        )
    hashing = _Hashing(
        raw, digest
    )  # every part hashes what it read: the parts must agree (run._merge)
    stream = io.BufferedReader(hashing, buffer_size=1 << 16)
    counted = library.gaming_day_start is not None and (part is None or part[0] == 0)
    first = FirstStamp(DayCount(library.gaming_day_start) if counted else None)  # type: ignore[arg-type]
    try:
        compressed = stream.peek(2)[:2] == GZIP_MAGIC
        if compressed:
            stream = gzip.GzipFile(fileobj=stream, mode="rb")  # type: ignore[assignment]
        try:
            with collector_for_streaming():
                feed_lines(stream, replay, tick, first)
        except (EOFError, gzip.BadGzipFile, zlib.error) as err:
            _damaged(replay, err)
            hashing.drain()  # the hash and size are of the whole file as stored
        if regular:
            assert before is not None
            _check_unchanged(path, raw.fileno(), before, hashing.size, whole=path != "-")
    except OSError as err:
        raise InputError(f"{path}: read error: {err.strerror or err}") from None
    finally:
        if path != "-":
            raw.close()
    replay.finish()
    stats = replay.stats
    return replay, InputSummary(
        display,
        digest.hexdigest(),
        stats.lines,
        hashing.size,
        stats.accounting(),
        first.stamp,
        first.days.busiest() if first.days is not None else None,
    )


def _damaged(replay: FileReplay, err: Exception) -> None:
    """A compressed log that ends early or is corrupt: what was read is audited, the rest is one
    unreadable line, reported."""
    replay.stats.lines += 1
    if replay.primary:
        replay.stats.syntax += 1
        replay.sink.line, replay.sink.text = replay.stats.lines, ""
        replay.format_flagger.flag(
            SYNTAX,
            f"the compressed log is damaged or truncated here ({err}); what follows cannot be read",
            actual=None,
        )
