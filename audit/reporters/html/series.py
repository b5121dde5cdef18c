"""The figures the plots draw, read from the report as it is (no plotting here).

The report holds no per-round series: a table's course over the night is read from its
shoes' money groups, each the result and the exact expectation of one shoe in the log's
order, so the cumulative result is known at each shoe's end, with the variance summed over
the shoes (shoes share no card). Where a night is big the plots keep what an officer looks
for first, the most improbable groups, and say how many they left out; the tables of the
page list every group.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from ...findings import Finding
from ...statistics import Group, Statistics

#: the normal quantile of a two-sided 95 % band
Z95 = 1.959964
#: most rows of a plot of groups, most tables of the night's course, most findings drawn one by one
MAX_ROWS = 40
MAX_COURSES = 24
MAX_MOMENTS = 2000
#: most shoes' card tests drawn one by one (beyond: a box per table and test, the shoes outside the band as points)
MAX_CARD_POINTS = 600
#: most shoes of a table's course drawn with a mark each
MAX_MARKED_SHOES = 40


@dataclass
class Band:
    """One group's result against its expectation."""

    label: str
    result: float
    expected: float
    sd: float
    #: None: too few rounds to be tested
    z: float | None
    anomaly: bool


@dataclass
class Course:
    """A table's cumulative result at the start and at each shoe's end."""

    label: str
    rounds: list[int] = field(default_factory=lambda: [0])
    result: list[float] = field(default_factory=lambda: [0.0])
    expected: list[float] = field(default_factory=lambda: [0.0])
    sd: list[float] = field(default_factory=lambda: [0.0])

    @property
    def z(self) -> float:
        return 0.0 if self.sd[-1] == 0 else (self.result[-1] - self.expected[-1]) / self.sd[-1]


@dataclass
class Moment:
    when: datetime
    category: str
    severity: str


@dataclass
class CardPoint:
    """One shoe's card test: its place on the plot, its table, the test and its z."""

    x: int
    #: the table's place among the tables plotted, from 0
    column: int
    table: str
    test: str
    z: float
    anomaly: bool


def _money(figure: Decimal | None) -> float:
    """A money group's figure: every group whose test is "result" has its result, expectation and sd."""
    assert figure is not None
    return float(figure)


def _label(g: Group, several_inputs: bool) -> str:
    label = g.id if g.scope == "table" or g.table is None else f"{g.id} · {g.table}"
    return f"{label} ({g.path})" if several_inputs else label


def _improbable_first(items, z_of):
    """Tested first, the largest |z| first; the order of the report among equals."""
    return sorted(items, key=lambda i: (z_of(i) is None, -abs(z_of(i) or 0.0)))


def bands(stats: Statistics, scope: str, several_inputs: bool) -> tuple[list[Band], int]:
    """The groups of ``scope`` with a spread, at most ``MAX_ROWS`` (the most improbable); and how many there were."""
    flagged = {a.group.key for a in stats.anomalies()}
    groups = [g for g in stats.groups if g.scope == scope and g.test == "result" and g.sd]
    if len(groups) > MAX_ROWS:
        kept = {id(g) for g in _improbable_first(groups, lambda g: g.z)[:MAX_ROWS]}
        groups_kept = [g for g in groups if id(g) in kept]  # in the report's order
    else:
        groups_kept = groups
    return [
        Band(
            _label(g, several_inputs),
            _money(g.result),
            _money(g.expected),
            _money(g.sd),
            g.z,
            g.key in flagged,
        )
        for g in groups_kept
    ], len(groups)


def _shoe_number(g: Group) -> int:
    return int(g.id.rsplit("#", 1)[1])


def _by_table(groups: list[Group]) -> dict[tuple[str, str], list[Group]]:
    out: dict[tuple[str, str], list[Group]] = {}
    for g in groups:
        out.setdefault((g.path, g.table or ""), []).append(g)
    for shoes in out.values():
        shoes.sort(key=_shoe_number)
    return out


def courses(stats: Statistics, several_inputs: bool) -> tuple[list[Course], int]:
    """Each table's course over the night, shoe by shoe, where the house is a party (its shoes have
    money groups), at most ``MAX_COURSES`` (the furthest from expectation); and how many there were."""
    shoes = [g for g in stats.groups if g.scope == "shoe" and g.test == "result"]
    out = []
    for (path, table), groups in _by_table(shoes).items():
        course = Course(f"{table} ({path})" if several_inputs else table)
        variance = 0.0
        for g in groups:
            variance += _money(g.sd) ** 2
            course.rounds.append(course.rounds[-1] + g.rounds)
            course.result.append(course.result[-1] + _money(g.result))
            course.expected.append(course.expected[-1] + _money(g.expected))
            course.sd.append(math.sqrt(variance))
        out.append(course)
    if len(out) <= MAX_COURSES:
        return out, len(out)
    kept = {id(c) for c in _improbable_first(out, lambda c: c.z)[:MAX_COURSES]}
    return [c for c in out if id(c) in kept], len(out)


@dataclass
class Timeline:
    """The findings with a readable time: each one (``moments``), or past ``MAX_MOMENTS`` their
    count by category and interval of ``step`` from ``start`` (``counts``; ``moments`` empty)."""

    moments: list[Moment]
    untimed: int
    counts: dict[tuple[str, int], int] = field(default_factory=dict)
    start: datetime | None = None
    step: timedelta | None = None
    categories: set[str] = field(default_factory=set)


def timeline(findings: Iterable[Finding]) -> Timeline:
    """The findings on the clock of the first one's offset, in two passes when there are more
    than ``MAX_MOMENTS`` (the span, then the counts by interval), so that memory does not grow
    with their number; ``untimed``: how many had none (a syntax line without a stamp, a finding
    about a whole file). ``findings`` is read once or twice."""
    kept: list[Moment] = []
    untimed = seen = 0
    first = last = None
    for when, category, severity in _times(findings):
        if when is None:
            untimed += 1
            continue
        seen += 1
        first = when if first is None or when < first else first
        last = when if last is None or when > last else last
        if seen <= MAX_MOMENTS:
            kept.append(Moment(when, category, severity))
    if seen <= MAX_MOMENTS:
        return Timeline(kept, untimed, categories={m.category for m in kept})
    assert first is not None and last is not None  # seen > MAX_MOMENTS: some were timed
    step = interval(first, last)
    counts: dict[tuple[str, int], int] = {}
    for when, category, _ in _times(findings):
        if when is not None:
            key = (category, (when - first) // step)
            counts[key] = counts.get(key, 0) + 1
    return Timeline([], untimed, counts, first, step, {c for c, _ in counts})


def _times(findings: Iterable[Finding]) -> Iterator[tuple[datetime | None, str, str]]:
    """Each finding's time (None: none readable), on the clock of the first time's offset."""
    zone = None
    for f in findings:
        try:
            when = datetime.fromisoformat(f.time) if f.time else None
        except ValueError:
            when = None
        if when is not None and when.tzinfo is not None:
            zone = zone or when.tzinfo
            try:
                when = when.astimezone(zone).replace(tzinfo=None)
            except (
                OverflowError
            ):  # past 9999 or before 0001 on the first time's clock: its own clock
                when = when.replace(tzinfo=None)
        yield when, f.category, f.severity


def interval(first: datetime, last: datetime) -> timedelta:
    """About a hundred intervals over the span, a whole number of minutes each."""
    return timedelta(minutes=max(1, math.ceil((last - first).total_seconds() / 60 / 100)))


def card_points(stats: Statistics) -> tuple[list[CardPoint], list[tuple[float, str]], list[float]]:
    """Each shoe's two card tests, table after table: the points, each table's middle and label,
    and the places between tables."""
    flagged = {a.group.key for a in stats.anomalies()}
    shoes = [
        g
        for g in stats.groups
        if g.scope == "shoe" and g.test in ("ranks", "order") and g.z is not None
    ]
    points: list[CardPoint]
    middles: list[tuple[float, str]]
    between: list[float]
    points, middles, between, x = [], [], [], 0  # x: the next free place
    for column, ((_path, table), groups) in enumerate(_by_table(shoes).items()):
        if points:
            between.append(float(x))  # an empty place between two tables
            x += 1
        places = _places(groups)
        for g in groups:
            assert g.z is not None  # chosen above
            points.append(
                CardPoint(x + places[_shoe_number(g)], column, table, g.test, g.z, g.key in flagged)
            )
        middles.append((x + (len(places) - 1) / 2, table))
        x += len(places)
    return points, middles, between


def _places(groups: list[Group]) -> dict[int, int]:
    """Each shoe's place at its table, from 0 (both tests of a shoe share it)."""
    places: dict[int, int] = {}
    for g in groups:
        places.setdefault(_shoe_number(g), len(places))
    return places
