"""The ``statistics`` section of the report as a page: anomalies first, the plots, then every group.

The report may have none (the statistics were not computed in that run): the section says
so, and the plots that need them are left out.
"""

from __future__ import annotations

from ...report import Report
from ...statistics import MIN_ROUNDS, SCOPES
from .markup import Html, el, join, money, number, row, table

_TESTS = {
    "result": "result against expectation",
    "units": "results per unit staked",
    "ranks": "rank frequencies",
    "order": "cards after one of the same rank",
}
NOT_COMPUTED = "The surveillance statistics were not computed in this run (docs/statistics.md)."


def section(report: Report, plots: list[Html]) -> Html:
    stats = report.statistics
    if stats is None:
        return el(
            "section",
            el("h2", "Statistics"),
            el("p", NOT_COMPUTED, class_="note", id="statistics-absent"),
            id="statistics",
        )
    tested = sum(1 for g in stats.groups if g.p is not None)
    anomalies = stats.anomalies()
    intro = el(
        "p",
        f"{tested} group(s) tested of {len(stats.groups)}; anomalies are the groups whose p-value, "
        f"corrected by Holm's method for the {tested} tests, is below alpha = {stats.alpha:g}. "
        "An anomaly is a measure, not a breach: it says what was measured, not who is to blame. "
        f"A money group of fewer than {MIN_ROUNDS} rounds is listed, not tested.",
        class_="note",
    )
    if anomalies:
        rows = (
            row(
                a.group.scope,
                a.group.id,
                el("code", a.group.path),
                a.group.table or "—",
                _TESTS[a.group.test],
                number(a.group.z, ".2f"),
                number(a.group.p),
                number(a.p_adjusted),
                a.group.message,
                numeric=(5, 6, 7),
                class_="anomaly",
            )
            for a in anomalies
        )
        found = table(
            ["scope", "id", "file", "table", "test", "z", "p", "p adjusted", "what was measured"],
            rows,
            caption=f"Anomalies ({len(anomalies)})",
            numeric=(5, 6, 7),
            class_="anomalies",
        )
    else:
        found = el(
            "p",
            "No anomaly: no group departs from expectation beyond what chance explains at this alpha.",
            class_="clean",
        )
    return el(
        "section",
        el("h2", "Statistics"),
        intro,
        found,
        _month_to_date(report),
        join(plots),
        _groups(report),
        id="statistics",
    )


def _month_to_date(report: Report) -> Html:
    """With a history store: the month's recorded nights and this one summed, its anomalies."""
    mtd = report.month_to_date
    store = report.configuration.store if report.configuration is not None else None
    if mtd is None and store is not None and (trouble := store.trouble()) is not None:
        return el(
            "div",
            el(
                "p",
                "Month to date left out: the history store ",
                el("code", store.store),
                f" {trouble[0]}: {trouble[1]}.",
                class_="damaged",
            ),
            id="month",
        )
    if mtd is None:
        return join([])
    head = el(
        "p",
        f"Month to date, {mtd.first.isoformat()} to {mtd.last.isoformat()} ({mtd.nights} night(s), "
        f"this one included): each group summed over the nights, tested at alpha = {mtd.alpha:.3g}, "
        "the night's alpha spent over the month's days (one look a night).",
        class_="note",
    )
    if not mtd.anomalies:
        return el(
            "div", head, el("p", "No anomaly in the month to date.", class_="clean"), id="month"
        )
    rows = (
        row(
            a.group.scope,
            a.group.id,
            a.group.table or "—",
            a.group.cards,
            a.group.rounds,
            number(a.group.z, ".2f"),
            number(a.p_adjusted),
            a.group.message,
            numeric=(3, 4, 5, 6),
            class_="anomaly",
        )
        for a in mtd.anomalies
    )
    return el(
        "div",
        head,
        table(
            ["scope", "id", "table", "nights", "rounds", "z", "p adjusted", "what was measured"],
            rows,
            caption=f"Month to date: anomalies ({len(mtd.anomalies)})",
            numeric=(3, 4, 5, 6),
            class_="anomalies",
        ),
        id="month",
    )


#: the scopes listed whole: a night has few tables; the others (people, shoes) list first the groups
#: with an anomaly or a finding, the rest folded
OPEN_SCOPES = ("table",)


#: a scope's name in the plural: an s added, as every scope's is (a game's own too)
def _plural(scope: str) -> str:
    return f"{scope}s"


def _flagged(report: Report) -> set[tuple[str, str, str]]:
    """(path, scope, id) of the groups to list first: an anomaly's, a dealer's with a finding, a shoe's
    with a finding (a finding names its dealer and its shoe; it names no player)."""
    assert report.statistics is not None  # ``section`` shows groups only for a report with them
    out = {(a.group.path, a.group.scope, a.group.id) for a in report.statistics.anomalies()}
    dealers = {d for d, n in report.tally().dealers.items() if d is not None and n}
    shoes = set()
    if any(g.scope == "shoe" for g in report.statistics.groups):
        shoes = {
            (f.path, f"{f.table}#{f.shoe}")
            for f in report.findings
            if f.table and f.shoe is not None
        }
    for g in report.statistics.groups:
        if (g.scope == "dealer" and g.id in dealers) or (
            g.scope == "shoe" and (g.path, g.id) in shoes
        ):
            out.add((g.path, g.scope, g.id))
    return out


def _units_table(groups: list, several: bool, scope: str, flagged: set) -> Html:
    """One scope's units tests: the main bets' results per unit staked against their expectation."""
    head = [
        "id",
        *(["file"] if several else []),
        "table",
        "rounds",
        "bets",
        "units",
        "expected",
        "sd",
        "z",
        "p",
    ]

    def units_row(g) -> Html:
        return row(
            g.id,
            *([el("code", g.path)] if several else []),
            g.table or "several",
            f"{g.rounds:,}",
            f"{g.bets:,}",
            number(g.units, ",.2f"),
            number(g.units_expected, ",.2f"),
            number(g.units_sd, ",.2f"),
            number(g.z, ".2f"),
            number(g.p),
        )

    return _listed(
        groups,
        head,
        units_row,
        f"{scope}: results per unit staked",
        f"groups from-{len(head) - 6}",
        scope,
        flagged,
    )


def _listed(
    groups: list,
    head: list[str],
    make_row,
    caption: str,
    classes: str,
    scope: str,
    flagged: set[tuple[str, str, str]],
) -> Html:
    """One scope's groups of one kind: the flagged ones in a table, the others folded in ``<details>``
    (every one of a table's scope in one table)."""
    if scope in OPEN_SCOPES:
        return table(
            head,
            (make_row(g) for g in groups),
            caption=f"{caption} ({len(groups)})",
            sortable=True,
            class_=classes,
        )
    first = [g for g in groups if (g.path, g.scope, g.id) in flagged]
    rest = [g for g in groups if (g.path, g.scope, g.id) not in flagged]
    found = scope in ("dealer", "shoe")
    why, neither = (
        ("an anomaly or a finding", "no anomaly, no finding")
        if found
        else ("an anomaly", "no anomaly")
    )
    parts = []
    if first:
        parts.append(
            table(
                head,
                (make_row(g) for g in first),
                caption=f"{caption} ({len(groups)}): {len(first)} with {why}",
                sortable=True,
                class_=f"{classes} flagged",
            )
        )
    if rest:
        label = (
            f"{caption} ({len(groups)}): none with {why}"
            if not first
            else f"the other {len(rest):,} {_plural(scope)}: {neither}"
        )
        parts.append(
            el(
                "details",
                el("summary", label),
                table(head, (make_row(g) for g in rest), sortable=True, class_=classes),
                class_="fold",
                data_scope=scope,
            )
        )
    return join(parts)


def _groups(report: Report) -> Html:
    """Every group, one table per scope and kind of test (the text report shows only the first few). Their
    figures are aligned by the table's class (``from-N``: from the N-th column on), not cell by cell:
    a big night has thousands of rows. Past the tables' scope, the groups with an anomaly (or a
    finding) come first and the others are folded."""
    parts = []
    several = len(report.inputs) > 1
    flagged = _flagged(report)
    assert report.statistics is not None  # as in ``_flagged``
    for scope in SCOPES:
        mine = [g for g in report.statistics.groups if g.scope == scope]
        money_groups = [g for g in mine if g.test == "result"]
        if money_groups:
            head = [
                "id",
                *(["file"] if several else []),
                "table",
                "ruleset",
                "rounds",
                "handle",
                "result",
                "expected",
                "sd",
                "z",
                "p",
            ]

            def money_row(g) -> Html:
                return row(
                    g.id,
                    *([el("code", g.path)] if several else []),
                    g.table or "several",
                    g.ruleset or "several",
                    f"{g.rounds:,}",
                    money(g.handle),
                    money(g.result),
                    money(g.expected),
                    money(g.sd),
                    number(g.z, ".2f"),
                    number(g.p),
                )

            parts.append(
                _listed(
                    money_groups,
                    head,
                    money_row,
                    f"{scope}: result against expectation",
                    f"groups from-{len(head) - 6}",
                    scope,
                    flagged,
                )
            )
        unit_groups = [g for g in mine if g.test == "units"]
        if unit_groups:
            parts.append(_units_table(unit_groups, several, scope, flagged))
        card_groups = [g for g in mine if g.test in ("ranks", "order")]
        if card_groups:
            head = [
                "id",
                *(["file"] if several else []),
                "table",
                "test",
                "rounds",
                "cards",
                "statistic",
                "z",
                "p",
            ]

            def card_row(g) -> Html:
                return row(
                    g.id,
                    *([el("code", g.path)] if several else []),
                    g.table or "several",
                    _TESTS[g.test],
                    f"{g.rounds:,}",
                    f"{g.cards:,}",
                    number(g.statistic),
                    number(g.z, ".2f"),
                    number(g.p),
                )

            parts.append(
                _listed(
                    card_groups,
                    head,
                    card_row,
                    f"{scope}: card tests",
                    f"groups from-{len(head) - 4}",
                    scope,
                    flagged,
                )
            )
    return el("div", el("h3", "Every group"), *parts, class_="all-groups", id="every-group")
