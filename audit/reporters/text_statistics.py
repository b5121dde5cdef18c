"""The statistics at the end of the text report: anomalies first, then a short table per scope.

The text keeps it short: each scope shows its groups of smallest p (``SHOWN``); the
JSON report lists every group.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..report import Report
from ..statistics import SCOPES, Group

if TYPE_CHECKING:
    from rich.console import Console

#: groups shown per scope and test, the most improbable first
SHOWN = 5
_TESTS = {
    "result": "result against expectation",
    "units": "results per unit staked",
    "ranks": "rank frequencies",
    "order": "cards after one of the same rank",
}


def draw(report: Report, console: Console) -> None:
    from rich.markup import escape  # rich only where it draws: ``footage`` serves audit follow too

    stats = report.statistics
    assert stats is not None  # drawn only for a report with statistics
    if not stats.groups:
        return
    tested, shown = _smallest(stats.groups)
    console.print()
    anomalies = stats.anomalies()
    console.print(
        f"[bold]statistics[/bold]: {tested} group(s) tested of {len(stats.groups)}, "
        f"alpha {stats.alpha} (Holm), {len(anomalies)} anomal{'y' if len(anomalies) == 1 else 'ies'}"
    )
    for a in anomalies:
        g = a.group
        where = f"table {g.table}" if g.table is not None else "tables " + ", ".join(_tables(g))
        console.print(
            f"  [yellow]anomaly[/yellow] {g.scope} {escape(g.id)} ({escape(g.path)}, {escape(where)}): "
            f"{escape(a.message)}; p = {g.p:g}, adjusted {a.p_adjusted:g}"
        )
        if g.first_line is not None:
            console.print("    " + footage(g, escape))
    for scope in SCOPES:
        for test, label in _TESTS.items():
            count, rows = shown.get((scope, test), (0, []))
            if not count:
                continue
            console.print(f"  [bold]{scope}[/bold] — {label} ({count} tested, smallest p first)")
            for g in rows:
                console.print("    " + _row(g, escape))


def footage(g: Group, escape=str) -> str:
    """Where a tested group's rounds were (``audit follow``'s anomaly lines say it too): its lines,
    their times, its dealers and shoes; ``escape`` the values written from the log."""
    return (
        f"lines {g.first_line}-{g.last_line}"
        + (f" ({escape(str(g.first_time))} to {escape(str(g.last_time))})" if g.first_time else "")
        + (f", dealers {escape(', '.join(g.dealers))}" if g.dealers else "")
        + (f", shoes {escape(', '.join(g.shoes))}" if g.shoes else "")
    )


def _tables(g: Group) -> list[str]:
    """The tables of a group seen at several: those of its shoes."""
    return sorted({shoe.rsplit("#", 1)[0] for shoe in g.shoes}) or ["several"]


def _smallest(groups) -> tuple[int, dict[tuple[str, str], tuple[int, list[Group]]]]:
    """In one pass over the groups: how many were tested, and per scope and test how many and the
    ``SHOWN`` of smallest (p, id), ties in report order: ``sorted(rows, key)[:SHOWN]`` without the rows."""
    tested = 0
    shown: dict[tuple[str, str], tuple[int, list[Group]]] = {}
    for g in groups:
        if g.p is None:
            continue
        tested += 1
        count, rows = shown.get((g.scope, g.test), (0, []))
        if len(rows) < SHOWN or _key(g) < _key(rows[-1]):
            rows.append(g)
            rows.sort(key=_key)  # stable: a tie stays in report order
            del rows[SHOWN:]
        shown[(g.scope, g.test)] = (count + 1, rows)
    return tested, shown


def _key(g: Group) -> tuple:
    return (g.p, g.id)


def _row(g: Group, escape) -> str:
    if g.test == "result":
        figures = (
            f"{g.rounds:>6} rounds  handle {g.handle:>12.2f}  result {g.result:>11.2f}  "
            f"expected {g.expected:>11.2f}  sd {g.sd:>10.2f}"
        )
    elif g.test == "units":
        figures = (
            f"{g.rounds:>6} rounds  {g.bets:>6} bets  units {g.units:>9.2f}  "
            f"expected {g.units_expected:>9.2f}  sd {g.units_sd:>7.2f}"
        )
    else:
        figures = f"{g.rounds:>6} rounds  {g.cards:>6} cards  statistic {g.statistic:>8g}"
    return f"{escape(g.id):<18} {figures}  z {g.z:>6.2f}  p {g.p:g}"
