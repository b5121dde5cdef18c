"""The log's clock: time order judged on stamps as written when their shape allows it, on times otherwise."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from audit.stream.clock import LogClock


def _clock(tolerance: int = 2) -> tuple[LogClock, list[tuple[str, str]]]:
    complaints: list[tuple[str, str]] = []
    return LogClock(
        timedelta(seconds=tolerance), lambda table, message: complaints.append((table, message))
    ), complaints


def _at(clock: LogClock, stamp: str, table: str = "T1") -> None:
    clock.advance(datetime.fromisoformat(stamp), table, stamp)


def test_a_stamp_has_the_clocks_shape_when_its_length_and_offset_are_the_clocks():
    clock, _ = _clock()
    assert not clock.shaped("2026-11-20T21:00:00.000+01:00")  # no clock yet
    _at(clock, "2026-11-20T21:00:00.000+01:00")
    assert clock.shaped("2026-11-20T21:00:00.001+01:00")
    assert not clock.shaped("2026-11-20T21:00:00.01+01:00")  # another length
    assert not clock.shaped("2026-11-20T21:00:00.000+02:00")  # another offset
    assert not clock.shaped("2026-11-20T20:00:00.000000Z")


def test_time_going_back_at_a_table_or_behind_the_clock_is_a_complaint():
    clock, complaints = _clock(tolerance=2)
    _at(clock, "2026-11-20T21:00:10.000+01:00", "A")
    _at(clock, "2026-11-20T21:00:09.000+01:00", "B")  # behind the clock, within the tolerance
    assert complaints == []
    _at(clock, "2026-11-20T21:00:05.000+01:00", "C")  # 5 s behind
    _at(clock, "2026-11-20T21:00:04.000+01:00", "A")  # back at A
    assert [table for table, _ in complaints] == ["C", "A"]
    assert (
        "behind the log's clock" in complaints[0][1]
        and "time goes back at table A" in complaints[1][1]
    )


def test_the_clock_judges_by_time_whatever_the_stamps_shape():
    """Stamps of random shapes (precision, offset) fed in random order: the complaints are those a
    clock comparing times only would make."""
    rng = random.Random(3)
    base = datetime.fromisoformat("2026-11-20T21:00:00+00:00")
    for _ in range(200):
        clock, complaints = _clock(tolerance=1)
        latest: datetime | None = None
        last: dict[str, datetime] = {}
        expected = 0
        for _ in range(30):
            ts = base + timedelta(milliseconds=rng.randrange(0, 5000))
            offset = rng.choice([0, 1, 2])
            local = ts.astimezone(
                datetime.fromisoformat(f"2026-01-01T00:00:00+0{offset}:00").tzinfo
            )
            stamp = local.isoformat(timespec=rng.choice(["seconds", "milliseconds"])).replace(
                "+00:00", rng.choice(["Z", "+00:00"])
            )
            ts = datetime.fromisoformat(stamp)
            table = rng.choice("AB")
            if latest is None or ts >= latest:
                latest = last[table] = ts
            elif table in last and ts < last[table]:
                expected += 1
            else:
                expected += latest - ts > timedelta(seconds=1)
                last[table] = ts
            clock.advance(ts, table, stamp)
        assert len(complaints) == expected
