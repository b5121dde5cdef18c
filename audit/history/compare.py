"""``audit history compare``: each table's hold this period against the same period of the
previous business year, and whether the gap is outside a 95 % interval (docs/history.md,
"compare", where the method is written out).

The model: a gaming day's win at a table is its hold times its drop plus a noise whose
variance grows with the drop (a day is a sum of many bets): w = h·d + e, Var(e) = σ²·d.
σ² is estimated from the table's gaming days of the previous business year (the calendar
year before that of ``--to``), around that year's hold. Under no change, the gap between the
current period's hold H = W/D and the same period's a year earlier H0 = W0/D0 has the
standard deviation σ·√(1/D + 1/D0); the 95 % interval is H0 ± 1.96 of it. Arithmetic is
``Decimal`` throughout, so both backends give the same figures.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from decimal import Decimal

from . import periods
from .views import HUNDREDTH, ZERO, View, hold, table_nights

#: the two-sided 95 % quantile of the normal distribution
Z95 = Decimal("1.96")

COLUMNS = [
    "table",
    "game",
    "current",
    "drop",
    "hold",
    "previous",
    "previous_drop",
    "previous_hold",
    "low",
    "high",
    "z",
    "reference_days",
    "status",
]


def latest_day(conn) -> date | None:
    from sqlalchemy import func, select

    from .schema import inputs

    return conn.execute(select(func.max(inputs.c.gaming_day))).scalar()


def compare(conn, period: str, until: date | None) -> View:
    """The view; ``until`` (default: the latest gaming day recorded) ends the current period."""
    until = until or latest_day(conn)
    if until is None:
        return View(COLUMNS, [])
    now = (periods.start(until, period), until)
    if until.year > date.min.year:
        then = (periods.year_earlier(now[0]), periods.year_earlier(until))
        reference = (date(until.year - 1, 1, 1), date(until.year - 1, 12, 31))
    else:  # the year 0001 has no year before it: empty spans, nothing to compare with
        then = reference = (date.max, date.min)
    first = min(then[0], reference[0], now[0])
    # per house-banked table: gaming day -> [drop, win]
    days: dict[str, dict[date, list[Decimal]]] = defaultdict(
        lambda: defaultdict(lambda: [ZERO, ZERO])
    )
    games: dict[str, str] = {}
    for n in table_nights(conn, first, until):
        if not n.house_banked:
            continue
        games[n.table] = n.game
        day = days[n.table][n.day]
        day[0] += n.drop
        day[1] += n.result
    rows = []
    for table in sorted(days):
        by_day = days[table]
        cur = _sum(by_day, now)
        old = _sum(by_day, then)
        if cur[0] <= 0:
            continue
        row = {
            "table": table,
            "game": games[table],
            "current": f"{now[0]}..{now[1]}",
            "drop": cur[0],
            "hold": hold(cur[1], cur[0]),
            "previous": f"{then[0]}..{then[1]}" if then[0] <= then[1] else "-",
            "previous_drop": old[0],
            "previous_hold": hold(old[1], old[0]),
            "low": None,
            "high": None,
            "z": None,
            "reference_days": 0,
            "status": "no reference",
        }
        sigma, row["reference_days"] = _sigma(by_day, reference)
        if sigma is not None and old[0] > 0:
            spread = sigma * ((1 / cur[0]) + (1 / old[0])).sqrt() * 100  # in points of hold
            h0 = old[1] * 100 / old[0]
            gap = cur[1] * 100 / cur[0] - h0
            row["low"] = (h0 - Z95 * spread).quantize(HUNDREDTH)
            row["high"] = (h0 + Z95 * spread).quantize(HUNDREDTH)
            row["z"] = round(float(gap / spread), 2) + 0.0
            row["status"] = (
                "above" if gap > Z95 * spread else "below" if gap < -Z95 * spread else "within"
            )
        rows.append(row)
    return View(COLUMNS, rows)


def _sum(by_day: dict[date, list[Decimal]], span: tuple[date, date]) -> tuple[Decimal, Decimal]:
    drop = win = ZERO
    for day, (d, w) in by_day.items():
        if span[0] <= day <= span[1]:
            drop += d
            win += w
    return drop, win


def _sigma(
    by_day: dict[date, list[Decimal]], year: tuple[date, date]
) -> tuple[Decimal | None, int]:
    """σ (per square root of money) from the days of the reference year with a drop, and their
    number; None when fewer than two days or no spread."""
    sample = [
        (d, w) for day, (d, w) in sorted(by_day.items()) if year[0] <= day <= year[1] and d > 0
    ]
    if len(sample) < 2:
        return None, len(sample)
    drop = sum((d for d, _ in sample), ZERO)
    h = sum((w for _, w in sample), ZERO) / drop
    variance = sum(((w - h * d) ** 2 / d for d, w in sample), ZERO) / (len(sample) - 1)
    return (variance.sqrt() if variance > 0 else None), len(sample)
