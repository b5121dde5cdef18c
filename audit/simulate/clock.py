"""The simulated night's clock: one time zone, whole milliseconds, DEL time stamps."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

#: Every simulated casino keeps Central European time.
TZ = timezone(timedelta(hours=1))


def to_ms(start: datetime) -> datetime:
    """``start`` in the casino's time zone (naive: taken as such), cut to whole milliseconds."""
    t = start.replace(tzinfo=TZ) if start.tzinfo is None else start.astimezone(TZ)
    return t.replace(microsecond=t.microsecond // 1000 * 1000)


def stamp(t: datetime) -> str:
    """The time stamp a DEL line starts with."""
    return t.isoformat(timespec="milliseconds")
