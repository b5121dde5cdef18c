"""Reading an input: files and folders named on the command line, standard input, gzip archives;
the bytes hashed as stored (the evidence), read in chunks and handed to the replay."""

from __future__ import annotations

import contextlib
import gc
import gzip
import hashlib
import io
import sys
import zlib
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

from ..engine.format_checks import SYNTAX
from ..report import InputSummary
from ..rulesets import Library
from .replay import FileReplay
from .urls import UrlError, expand_url, is_url, open_url, url_size

LOG_SUFFIXES = (".del", ".log", ".del.gz", ".log.gz")
GZIP_MAGIC = b"\x1f\x8b"


class InputError(Exception):
    """An input that cannot be read at all: the audit stops with exit 2."""


def expand(paths: list[str]) -> list[str]:
    """Files as given; folders walked for ``*.del``, ``*.log`` (and ``.gz``); ``-`` is standard input;
    a URL (``s3://``, ``file://``...) read through fsspec, a folder URL walked as a folder.

    The list is sorted and without repeats, so the report does not depend on the order of the
    command line (standard input, if given, comes last).
    """
    out: list[str] = []
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
            found = sorted(q for q in p.rglob("*") if q.is_file() and q.name.endswith(LOG_SUFFIXES))
            if not found:
                raise InputError(f"{raw}: folder holds no log (*.del, *.log, *.del.gz, *.log.gz)")
            out.extend(q.as_posix() for q in found)
        elif p.exists():
            out.append(p.as_posix())
        else:
            raise InputError(f"{raw}: no such file or folder")
    stdin = ["-"] if "-" in out else []
    return sorted(set(out) - {"-"}) + stdin


def input_size(files: list[str]) -> int:
    """Bytes to read, for a progress bar (standard input counts as unknown: 0)."""
    return sum(size_of(f) for f in files if f != "-")


def size_of(path: str) -> int:
    """The bytes stored of one file or URL."""
    try:
        return url_size(path) if is_url(path) else Path(path).stat().st_size
    except (OSError, UrlError):
        return 0  # unreadable: the audit says so when it reads it


#: bytes of lines read at once from an uncompressed log (a compressed one is read line by line,
#: so that every line before a damaged block is audited)
CHUNK_BYTES = 1 << 20
BOM = b"\xef\xbb\xbf"


def feed_lines(stream: BinaryIO, replay: FileReplay, compressed: bool,
               tick: Callable[[int], None] | None = None) -> None:
    """Every line to the replay, a chunk at a time (the replay decodes them).

    ``tick`` receives the bytes read, about every ``CHUNK_BYTES`` and at the end.
    """
    lineno = untold = 0
    hint = 1 if compressed else CHUNK_BYTES
    while chunk := stream.readlines(hint):
        if tick is not None:
            untold += sum(map(len, chunk))
            if untold >= CHUNK_BYTES:
                tick(untold)
                untold = 0
        if lineno == 0 and chunk[0].startswith(BOM):
            chunk[0] = chunk[0][3:]
        lineno = replay.feed_chunk(chunk, lineno)
    if tick is not None and untold:
        tick(untold)


#: the cyclic collector's thresholds while a log streams (Python's defaults: 700, 10, 10)
STREAMING_GC_THRESHOLDS = (20_000, 10, 10)


@contextlib.contextmanager
def _collector_for_streaming() -> Iterator[None]:
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

    def __init__(self, raw: BinaryIO, digest: "hashlib._Hash | None"):
        self.raw, self.digest, self.size = raw, digest, 0

    def readable(self) -> bool:
        return True

    def drain(self) -> None:
        """Read (and hash) whatever the decompressor left unread."""
        while data := self.raw.read(1 << 16):
            if self.digest is not None:
                self.digest.update(data)
            self.size += len(data)

    def readinto(self, buffer) -> int:  # type: ignore[override]
        data = self.raw.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        if self.digest is not None:
            self.digest.update(data)
        self.size += n
        return n


def audit_input(library: Library, path: str, part: tuple[int, int] | None = None,
                tick: Callable[[int], None] | None = None,
                source: str | None = None) -> tuple[FileReplay, InputSummary]:
    """Stream one input through the replay. A gzip-compressed log (nightly archives) is read as
    such; its SHA-256 and size are those of the compressed file, the evidence as stored.

    ``source``: where to read it if not at ``path``, which the report names (a cluster's worker
    reads a relative path given to the client at its absolute place)."""
    display = "<stdin>" if path == "-" else path
    replay = FileReplay(library, display, part)
    digest = hashlib.sha256()
    source = source or path
    try:
        raw: BinaryIO = sys.stdin.buffer if path == "-" else open_url(source) if is_url(source) else open(source, "rb")
    except OSError as err:
        raise InputError(f"{path}: cannot read: {err.strerror or err}") from None
    except UrlError as err:  # no fsspec, or none of its filesystems reads this scheme
        raise InputError(str(err)) from None
    hashing = _Hashing(raw, digest if replay.primary else None)  # one part hashes the evidence
    stream = io.BufferedReader(hashing, buffer_size=1 << 16)
    try:
        compressed = stream.peek(2)[:2] == GZIP_MAGIC
        if compressed:
            stream = gzip.GzipFile(fileobj=stream, mode="rb")  # type: ignore[assignment]
        try:
            with _collector_for_streaming():
                feed_lines(stream, replay, compressed, tick)
        except (EOFError, gzip.BadGzipFile, zlib.error) as err:
            _damaged(replay, err)
            hashing.drain()  # the hash and size are of the whole file as stored
    except OSError as err:
        raise InputError(f"{path}: read error: {err.strerror or err}") from None
    finally:
        if path != "-":
            raw.close()
    replay.finish()
    stats = replay.stats
    return replay, InputSummary(display, digest.hexdigest(), stats.lines, hashing.size, stats.accounting())


def _damaged(replay: FileReplay, err: Exception) -> None:
    """A compressed log that ends early or is corrupt: what was read is audited, the rest is one
    unreadable line, reported."""
    replay.stats.lines += 1
    if replay.primary:
        replay.stats.syntax += 1
        replay.sink.line, replay.sink.text = replay.stats.lines, ""
        replay.format_flagger.flag(SYNTAX, f"the compressed log is damaged or truncated here ({err}); "
                                   "what follows cannot be read", actual=None)
