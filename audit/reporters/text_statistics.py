"""The statistics at the end of the text report: anomalies first, then a short table per scope.

The text keeps it short: each scope shows its groups of smallest p (``SHOWN``); the
JSON report lists every group.
"""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from ..report import Report
from ..statistics import SCOPES, Group

#: groups shown per scope and test, the most improbable first
SHOWN = 5
_TESTS = {"result": "result against expectation", "ranks": "rank frequencies", "order": "cards after one of the same rank"}


def draw(report: Report, console: Console) -> None:
    stats = report.statistics
    tested = [g for g in stats.groups if g.p is not None]
    if not stats.groups:
        return
    console.print()
    anomalies = stats.anomalies()
    console.print(f"[bold]statistics[/bold]: {len(tested)} group(s) tested of {len(stats.groups)}, "
                  f"alpha {stats.alpha} (Holm), {len(anomalies)} anomal{'y' if len(anomalies) == 1 else 'ies'}")
    for a in anomalies:
        g = a.group
        console.print(f"  [yellow]anomaly[/yellow] {g.scope} {escape(g.id)} ({escape(g.path)}): {escape(g.message)}; "
                      f"p = {g.p:g}, adjusted {a.p_adjusted:g}")
    for scope in SCOPES:
        for test, label in _TESTS.items():
            rows = [g for g in tested if g.scope == scope and g.test == test]
            if not rows:
                continue
            rows.sort(key=lambda g: (g.p, g.id))
            console.print(f"  [bold]{scope}[/bold] — {label} ({len(rows)} tested, smallest p first)")
            for g in rows[:SHOWN]:
                console.print("    " + _row(g))


def _row(g: Group) -> str:
    if g.test == "result":
        figures = (f"{g.rounds:>6} rounds  handle {g.handle:>12.2f}  result {g.result:>11.2f}  "
                   f"expected {g.expected:>11.2f}  sd {g.sd:>10.2f}")
    else:
        figures = f"{g.rounds:>6} rounds  {g.cards:>6} cards  statistic {g.statistic:>8g}"
    return f"{escape(g.id):<18} {figures}  z {g.z:>6.2f}  p {g.p:g}"
