"""The gaming day of an input, from its events' times (docs/history.md, "Gaming day").

A casino's business day does not end at midnight: a night that opens at 21:00 and closes at
04:00 is one gaming day. The rule: an input's gaming day is the one most of its event lines
belong to (the earliest of those with as many, when several tie); an event's gaming day is the date of its time as the log wrote it (local time, the
offset the log wrote, never converted), less one day when that time is before the day's
start (``gaming-day-start`` in the configuration, 06:00 by default).
"""

from __future__ import annotations

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
        raise GamingDayError(
            f"gaming-day-start {value!r}: a time of day HH:MM is expected (e.g. 06:00)"
        ) from None
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


class DayCount:
    """The gaming days of an input's event times, counted as the audit reads them (never read
    again from the path, which may name other bytes by then): at most ``DAYS_KEPT`` counts and a
    bounded cache of the minutes seen, never the lines."""

    #: distinct minutes whose gaming day is remembered (a night holds a few hundred)
    CACHE = 4096

    def __init__(self, start: time):
        self.start = start
        self.counts: dict[date, int] = {}
        self._day_of_minute: dict[str, date] = {}

    def add(self, stamp: str) -> None:
        """One more event at ``stamp`` (as written). Its gaming day depends only on the date and the
        time of day written, to the minute (the start is a whole minute): ``YYYY-MM-DDTHH:MM``."""
        minute = stamp[:16]
        day = self._day_of_minute.get(minute)
        if day is None:
            if len(self._day_of_minute) >= self.CACHE:
                self._day_of_minute.clear()
            day = self._day_of_minute[minute] = of_stamp(stamp, self.start)
        count(self.counts, day)

    def busiest(self) -> date | None:
        """The day most events belong to, the earliest of those tied; None when none was counted."""
        if not self.counts:
            return None
        return min(self.counts, key=lambda day: (-self.counts[day], day))


def count(counts: dict[date, int], day: date) -> None:
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


def event_stamp(line: bytes) -> str | None:
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
