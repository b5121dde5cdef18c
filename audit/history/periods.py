"""Periods of gaming days: a day, a month, a (business) year, as the views group them.

The business year is the calendar year (January to December) of the gaming day."""

from __future__ import annotations

from datetime import date, timedelta

PERIODS = ("day", "month", "year")


def key(day: date, period: str) -> str:
    """The period ``day`` falls in, as the views name it: 2026-11-20, 2026-11 or 2026."""
    if period == "day":
        return day.isoformat()
    if period == "month":
        return f"{day.year:04d}-{day.month:02d}"
    return f"{day.year:04d}"


def start(day: date, period: str) -> date:
    """The first day of the period ``day`` falls in."""
    if period == "day":
        return day
    if period == "month":
        return day.replace(day=1)
    return day.replace(month=1, day=1)


def before(day: date, period: str) -> date | None:
    """A day of the period just before the one ``day`` falls in; None in the first (year 0001)."""
    first = start(day, period)
    return first - timedelta(days=1) if first > date.min else None


def year_earlier(day: date) -> date:
    """The same date one year earlier (29 February becomes the 28th)."""
    try:
        return day.replace(year=day.year - 1)
    except ValueError:
        return day.replace(year=day.year - 1, day=28)


def parse_day(value: str, option: str) -> date:
    """A ``--from``/``--to`` date, YYYY-MM-DD."""
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{option} {value!r}: a date YYYY-MM-DD is expected") from None
