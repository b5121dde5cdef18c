"""The ``statistics`` section of the report as a page: anomalies first, the plots, then every group.

The report may have none (the statistics were not computed in that run): the section says
so, and the plots that need them are left out.
"""

from __future__ import annotations

from ...report import Report
from ...statistics import MIN_ROUNDS, SCOPES
from .markup import Html, el, join, money, number, row, table

_TESTS = {"result": "result against expectation", "ranks": "rank frequencies",
          "order": "cards after one of the same rank"}
NOT_COMPUTED = "The surveillance statistics were not computed in this run (docs/statistics.md)."


def section(report: Report, plots: list[Html]) -> Html:
    stats = report.statistics
    if stats is None:
        return el("section", el("h2", "Statistics"), el("p", NOT_COMPUTED, class_="note", id="statistics-absent"),
                  id="statistics")
    tested = sum(1 for g in stats.groups if g.p is not None)
    anomalies = stats.anomalies()
    intro = el("p", f"{tested} group(s) tested of {len(stats.groups)}; anomalies are the groups whose p-value, "
               f"corrected by Holm's method for the {tested} tests, is below alpha = {stats.alpha:g}. "
               "An anomaly is a measure, not a breach: it says what was measured, not who is to blame. "
               f"A money group of fewer than {MIN_ROUNDS} rounds is listed, not tested.", class_="note")
    if anomalies:
        rows = (row(a.group.scope, a.group.id, el("code", a.group.path), a.group.table or "—", _TESTS[a.group.test],
                    number(a.group.z, ".2f"), number(a.group.p), number(a.p_adjusted), a.group.message,
                    numeric=(5, 6, 7), class_="anomaly")
                for a in anomalies)
        found = table(["scope", "id", "file", "table", "test", "z", "p", "p adjusted", "what was measured"], rows,
                      caption=f"Anomalies ({len(anomalies)})", numeric=(5, 6, 7), class_="anomalies")
    else:
        found = el("p", "No anomaly: no group departs from expectation beyond what chance explains at this alpha.",
                   class_="clean")
    return el("section", el("h2", "Statistics"), intro, found, join(plots), _groups(report), id="statistics")


def _groups(report: Report) -> Html:
    """Every group, one table per scope and kind of test (the text report shows only the first few). Their
    figures are aligned by the table's class (``from-N``: from the N-th column on), not cell by cell:
    a big night has thousands of rows."""
    parts = []
    several = len(report.inputs) > 1
    for scope in SCOPES:
        mine = [g for g in report.statistics.groups if g.scope == scope]
        money_groups = [g for g in mine if g.test == "result"]
        if money_groups:
            head = ["id", *(["file"] if several else []), "table", "ruleset", "rounds", "handle", "result", "expected",
                    "sd", "z", "p"]
            rows = (row(g.id, *([el("code", g.path)] if several else []), g.table or "several", g.ruleset or "several",
                        f"{g.rounds:,}", money(g.handle), money(g.result), money(g.expected), money(g.sd),
                        number(g.z, ".2f"), number(g.p)) for g in money_groups)
            parts.append(table(head, rows, caption=f"{scope}: result against expectation ({len(money_groups)})",
                               sortable=True, class_=f"groups from-{len(head) - 6}"))
        card_groups = [g for g in mine if g.test != "result"]
        if card_groups:
            head = ["id", *(["file"] if several else []), "table", "test", "rounds", "cards", "statistic", "z", "p"]
            rows = (row(g.id, *([el("code", g.path)] if several else []), g.table or "several", _TESTS[g.test],
                        f"{g.rounds:,}", f"{g.cards:,}", number(g.statistic), number(g.z, ".2f"), number(g.p))
                    for g in card_groups)
            parts.append(table(head, rows, caption=f"{scope}: card tests ({len(card_groups)})", sortable=True,
                               class_=f"groups from-{len(head) - 4}"))
    return el("div", el("h3", "Every group"), *parts, class_="all-groups")
