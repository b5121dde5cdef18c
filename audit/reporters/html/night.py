"""Which night a report is of: the casino its logs name and the times of their first and last events.

The report keeps neither (the replay counts a log's header lines, it does not keep them), so the
page reads them again from the inputs it names: the header lines before the first event (``#casino
NAME``, read by the log's own parser) and the first event's stamp from the head of each file, the
last event's stamp from its tail. Only local files are read again (plain or gzip): a URL is not
fetched twice, standard input cannot be read twice; such an input, or one that cannot be read any
more, leaves the night's times and casino to the others (``unread`` counts them).
"""

from __future__ import annotations

import gzip
import io
import zlib
from dataclasses import dataclass, field
from datetime import datetime

from ...parse import Header, parse_line
from ...report import Report
from ...stream.inputs import GZIP_MAGIC
from ...stream.urls import is_url

#: how many lines of a file's head are read for its headers and first event
HEAD_LINES = 1000
#: how much of a plain file's end is read for its last event (then twice that, up to ``TAIL_MAX``)
TAIL_BYTES = 64 * 1024
TAIL_MAX = 4 * 1024 * 1024
#: the longest line read whole at the head (a longer one is read in pieces)
MAX_LINE = 1 << 16
#: how much of a compressed file's end is kept while it is read through
GZIP_CHUNK = 1 << 20


@dataclass
class Night:
    #: the stamps of the night's first and last events as their logs wrote them (None: not known)
    first: str | None = None
    last: str | None = None
    #: the casinos the logs' ``#casino`` headers name, in report order, each once
    casinos: list[str] = field(default_factory=list)
    #: inputs not read again (standard input, a URL, a file gone)
    unread: int = 0

    def dates(self) -> tuple[str, str] | None:
        """The dates of the first and last events as the logs wrote them (local dates)."""
        if self.first is None or self.last is None:
            return None
        return self.first[:10], self.last[:10]


@dataclass
class _Ends:
    casino: str | None = None
    first: str | None = None
    last: str | None = None


def of(report: Report) -> Night:
    night = Night()
    firsts, lasts = [], []
    for inp in report.inputs:
        ends = read_ends(inp.path)
        if ends is None:
            night.unread += 1
            continue
        if ends.casino is not None and ends.casino not in night.casinos:
            night.casinos.append(ends.casino)
        if ends.first is not None:
            firsts.append(ends.first)
        if ends.last is not None:
            lasts.append(ends.last)
    if firsts and lasts:  # compared as instants (in a tie, the one of the first input)
        night.first = min(firsts, key=_instant)
        night.last = max(lasts, key=_instant)
    return night


def read_ends(path: str) -> _Ends | None:
    """The casino header, first and last event stamps of a local log; None when it cannot be read again."""
    if path == "-" or is_url(path):
        return None
    try:
        with open(path, "rb") as raw:
            stream = io.BufferedReader(raw, buffer_size=1 << 16)
            compressed = stream.peek(2)[:2] == GZIP_MAGIC
            if compressed:
                with gzip.GzipFile(fileobj=stream, mode="rb") as unzipped:
                    ends = _head(unzipped)
                    ends.last = _last_of_stream(unzipped)
            else:
                ends = _head(stream)
                ends.last = _last_of_file(raw)
    except (OSError, EOFError, zlib.error, ValueError):
        return None
    if ends.first is None:
        ends.last = None  # a tail stamp without a head one: no event read at the head (a log in another format)
    return ends


def _head(stream) -> _Ends:
    """The casino header and the first event's stamp. As the replay reads a log, a header counts until the
    first event: a line the parser cannot read (a bad header, a line without a time) is no event."""
    ends = _Ends()
    for _ in range(HEAD_LINES):
        line = stream.readline(MAX_LINE)
        if not line:
            break
        text = line.decode("utf-8", "replace").lstrip("\ufeff").strip()
        if not text:
            continue
        if text.startswith("#"):
            parsed = parse_line(text)
            if (
                isinstance(parsed, Header)
                and parsed.key == "casino"
                and parsed.value.strip()
                and ends.casino is None
            ):
                ends.casino = parsed.value
            continue
        ends.first = stamp_of(text)
        if ends.first is not None:
            break
    return ends


def _last_of_file(raw) -> str | None:
    size = raw.seek(0, io.SEEK_END)
    span = TAIL_BYTES
    while True:
        start = max(0, size - span)
        raw.seek(start)
        block = raw.read(size - start)
        found = _last_stamp(block, whole=start == 0)
        if found is not None or start == 0 or span >= TAIL_MAX:
            return found
        span *= 2


def _last_of_stream(stream) -> str | None:
    tail = b""
    while True:
        chunk = stream.read(GZIP_CHUNK)
        if not chunk:
            return _last_stamp(tail, whole=True)
        tail = (tail + chunk)[-(TAIL_BYTES + GZIP_CHUNK) :]


def _last_stamp(block: bytes, whole: bool) -> str | None:
    lines = block.split(b"\n")
    if not whole:
        lines = lines[1:]  # the first may be the end of a line cut in two
    for line in reversed(lines):
        text = line.decode("utf-8", "replace").lstrip("\ufeff").strip()
        if text and not text.startswith("#"):
            found = stamp_of(text)
            if found is not None:
                return found
    return None


def stamp_of(line: str) -> str | None:
    """The first word of an event line when it is a time with an offset (RFC 3339), as written."""
    word = line.split(None, 1)[0]
    if "T" not in word:
        return None
    try:
        when = _instant(word)
    except ValueError:
        return None
    return word if when.tzinfo is not None else None


def _instant(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00").replace("z", "+00:00"))
