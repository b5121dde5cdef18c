"""The log's clock (rule ``time-order``): time must not go back at a table, nor fall behind the
log's clock (the latest event time of the file) by more than the tolerance.

Stamps are compared as written whenever they can be: two RFC 3339 stamps of the same length and
offset (as the grammar has them) compare as text as they do in time. ``LogClock.shaped`` is that
test; the replay and the ``--jobs`` parts rely on it to skip work, never to decide a finding.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta


def zone_of(stamp: str) -> str:
    """A stamp's offset as written (Z or +hh:mm)."""
    return "Z" if stamp[-1:] == "Z" else stamp[-6:]


def written_like(when: datetime, model: str | None) -> str:
    """``when`` written as the stamp ``model`` is (its fraction's digits, its offset), so that a
    message quotes the log's times as the log writes them; in ISO form when that is not exact."""
    iso = when.isoformat(timespec="microseconds")
    if model is None or len(iso) != 32:
        return when.isoformat()
    zone = zone_of(model)
    head, micro, offset = iso[:19], iso[20:26], iso[26:]
    dot = model.find(".", 19)
    digits = len(model) - len(zone) - dot - 1 if dot != -1 else 0
    if micro[digits:].strip("0") or offset != ("+00:00" if zone == "Z" else zone):
        return when.isoformat()
    fraction = "." + micro[:digits] + "0" * (digits - 6) if digits else ""
    return head + fraction + zone


class LogClock:
    """The latest event time of one input, as a time and as written, and each table's own."""

    def __init__(self, tolerance: timedelta, complain: Callable[[str, str], None]):
        """``complain(table, message)`` reports a time-order finding at that table."""
        self.latest: datetime | None = None  # None until the input's first event
        self.stamp: str | None = None  # ``latest`` as written, when known
        self.zone = ""  # its offset as written (Z or +hh:mm)
        self.at_table: dict[str, datetime] = {}
        self.tolerance = tolerance
        self._complain = complain

    def shaped(self, stamp: str) -> bool:
        """Whether ``stamp`` has the shape (length and offset) of the clock as written, so that it
        compares with the clock, and with other stamps of that shape, as text."""
        ahead = self.stamp
        return ahead is not None and len(stamp) == len(ahead) and stamp.endswith(self.zone)

    def advance(self, ts: datetime, table: str, stamp: str | None) -> None:
        """An event replayed at ``table`` at ``ts`` (``stamp`` as written, None if not known).

        The usual case, time moving on, is one comparison of the stamps as written."""
        ahead = self.stamp
        # ``shaped``, written out: this runs for every event, and a call costs more than the test
        if (
            stamp is not None
            and ahead is not None
            and len(stamp) == len(ahead)
            and stamp.endswith(self.zone)
        ):
            if stamp >= ahead:  # the usual case: the clock's shape, and later
                self.at_table[table] = self.latest = ts
                self.stamp = stamp
                return
            latest = self.latest
        elif (latest := self.latest) is None or ts >= latest:
            self.at_table[table] = self.latest = ts
            self.stamp = stamp
            if stamp is not None:
                self.zone = zone_of(stamp)
            return
        last = self.at_table.get(table)
        if last is None or ts >= last:
            # latest > ts here: no date arithmetic near year 1
            assert latest is not None  # a clock with a stamp has its time
            if latest - ts > self.tolerance:
                self._complain(
                    table,
                    f"{stamp or ts.isoformat()} is more than {self.tolerance.seconds} s behind "
                    f"the log's clock ({written_like(latest, stamp)})",
                )
            self.at_table[table] = ts
            return
        self._complain(
            table,
            f"time goes back at table {table}: {stamp or ts.isoformat()} after "
            f"{written_like(last, stamp)}",
        )

    def passed(self, ts: datetime, stamp: str | None) -> None:
        """An event another ``--jobs`` part replays: it moves the clock, its table is not checked
        here. ``stamp`` as written, or None when it does not have the clock's shape."""
        if self.latest is None or ts > self.latest:
            self.latest = ts
            self.stamp = stamp
