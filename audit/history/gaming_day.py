"""The gaming day of an input, from its events' times (docs/history.md, "Gaming day").

A casino's business day does not end at midnight: a night that opens at 21:00 and closes at
04:00 is one gaming day. The rule: an input's gaming day is that of its first event with a
time; an event's gaming day is the date of its time as the log wrote it (local time, the
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
    return day - timedelta(days=1) if when.time() < start else day


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
            stamp = event_stamp(line)
            if stamp is not None:
                return stamp
    except (OSError, EOFError, zlib.error):
        return None
    finally:
        raw.close()
    return None


def event_stamp(line: bytes) -> str | None:
    """The first word of an event line when it is a time with an offset."""
    text = line.lstrip(b"\xef\xbb\xbf").strip()
    if not text or text.startswith(b"#"):
        return None
    word = text.split(None, 1)[0].decode("utf-8", "replace")
    try:
        when = datetime.fromisoformat(word.replace("Z", "+00:00"))
    except ValueError:
        return None
    return word if "T" in word and when.tzinfo is not None else None
