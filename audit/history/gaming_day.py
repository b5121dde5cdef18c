"""The gaming day of an input, from its events' times (docs/history.md, "Gaming day").

A casino's business day does not end at midnight: a night that opens at 21:00 and closes at
04:00 is one gaming day. The rule: an input's gaming day is the one most of its event lines
belong to (the earliest of those with as many, when several tie); an event's gaming day is the date of its time as the log wrote it (local time, the
offset the log wrote, never converted), less one day when that time is before the day's
start (``gaming-day-start`` in the configuration, 06:00 by default).
"""

from __future__ import annotations

import gzip
import io
import zlib
from datetime import date, datetime, time, timedelta

DEFAULT_START = "06:00"
#: how far into an input its first event time is looked for (headers and comments come first)
HEAD_LINES = 1000


class GamingDayError(Exception):
    """A ``gaming-day-start`` that is not a time of day."""


def day_start(value: str) -> time:
    """``HH:MM`` as a time of day."""
    try:
        parsed = datetime.strptime(value, "%H:%M")
    except ValueError:
        raise GamingDayError(f"gaming-day-start {value!r}: a time of day HH:MM is expected (e.g. 06:00)") from None
    return parsed.time()


def of_stamp(stamp: str, start: time) -> date:
    """The gaming day of an event time as written (RFC 3339 with an offset)."""
    when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    day = when.date()
    if when.time() >= start:
        return day
    return day - timedelta(days=1) if day > date.min else day  # 0001-01-01 has no day before


#: how many gaming days are counted at once: past that many in one input, the counts are those of
#: the frequent-items summary (a day of more than 1/DAYS_KEPT of the lines is still found)
DAYS_KEPT = 1024
#: the longest line read whole when scanning: a longer one is skipped (it is no event of the format)
SCAN_LINE_BYTES = 1 << 20


def scan(path: str, start: time) -> tuple[str | None, date | None]:
    """The time of the first event of the input at ``path`` (plain, gzip or URL), as written, and
    the input's gaming day: the one most of its event lines belong to, the earliest of those tied.
    The input is read again, a line at a time: memory holds a count per gaming day (at most
    ``DAYS_KEPT`` of them), never its lines. (None, None) when no event time is found or the input
    cannot be read again (standard input)."""
    from ..stream.inputs import GZIP_MAGIC
    from ..stream.urls import UrlError, is_url, open_url

    try:
        raw = open_url(path) if is_url(path) else open(path, "rb")
    except (OSError, UrlError):
        return None, None
    first: str | None = None
    counts: dict[date, int] = {}
    try:
        stream = io.BufferedReader(raw, buffer_size=1 << 16) if not hasattr(raw, "peek") else raw
        if stream.peek(2)[:2] == GZIP_MAGIC:
            stream = gzip.GzipFile(fileobj=stream, mode="rb")
        fragment = False  # inside a line longer than SCAN_LINE_BYTES
        while True:
            line = stream.readline(SCAN_LINE_BYTES)
            if not line:
                break
            was_fragment, fragment = fragment, not line.endswith(b"\n") and len(line) == SCAN_LINE_BYTES
            if was_fragment or fragment:
                continue
            stamp = _event_stamp(line)
            if stamp is None:
                continue
            if first is None:
                first = stamp
            _count(counts, of_stamp(stamp, start))
    except (OSError, EOFError, zlib.error):
        pass
    finally:
        raw.close()
    if first is None:
        return None, None
    if not counts:
        return first, of_stamp(first, start)
    return first, min(counts, key=lambda day: (-counts[day], day))


def _count(counts: dict[date, int], day: date) -> None:
    """One more line of ``day``: counted exactly while at most DAYS_KEPT days are (Misra and Gries's
    summary past that: every count less one, those at none forgotten)."""
    if day in counts:
        counts[day] += 1
    elif len(counts) < DAYS_KEPT:
        counts[day] = 1
    else:
        for other in list(counts):
            counts[other] -= 1
            if not counts[other]:
                del counts[other]


def first_stamp(path: str) -> str | None:
    """The time of the first event of the input at ``path`` (plain, gzip or URL), as written;
    None when none is found in its first lines or it cannot be read again."""
    from ..stream.inputs import GZIP_MAGIC
    from ..stream.urls import UrlError, is_url, open_url

    try:
        raw = open_url(path) if is_url(path) else open(path, "rb")
    except (OSError, UrlError):
        return None
    try:
        stream = io.BufferedReader(raw, buffer_size=1 << 16) if not hasattr(raw, "peek") else raw
        if stream.peek(2)[:2] == GZIP_MAGIC:
            stream = gzip.GzipFile(fileobj=stream, mode="rb")
        for _ in range(HEAD_LINES):
            line = stream.readline()
            if not line:
                return None
            stamp = _event_stamp(line)
            if stamp is not None:
                return stamp
    except (OSError, EOFError, zlib.error):
        return None
    finally:
        raw.close()
    return None


def _event_stamp(line: bytes) -> str | None:
    """The first word of an event line when it is a time with an offset."""
    text = line.lstrip(b"\xef\xbb\xbf").strip()
    if not text or text.startswith(b"#"):
        return None
    word = text.split(None, 1)[0].decode("utf-8", "replace")
    try:
        when = datetime.fromisoformat(word.replace("Z", "+00:00"))
    except (ValueError, OverflowError):
        return None
    return word if "T" in word and when.tzinfo is not None else None
