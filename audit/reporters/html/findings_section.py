"""The findings, grouped by file, table and round, with their filters and tallies.

Without scripts the page is complete: every finding is a row of one table, grouped by a
header row per table and round; past ``MAX_ROWS`` findings, the first ``MAX_ROWS`` in that order
(a page of more is too heavy to open; the table's caption says so, and the JSON, SARIF and JUnit
reports hold every finding). The filters are in the page but hidden until the script
shows them; each row carries the values they match (``data-severity``, ``data-category``,
``data-rule``, ``data-table``, ``data-dealer``), written as the row shows them.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import groupby, islice

from ...findings import CATEGORIES, SEVERITIES, Finding
from ...findings_store import ordered
from ...report import Report
from ..text import stale_entry
from .markup import Html, el, join, row, table, void

NO_TABLE = "(no table)"
NO_DEALER = "(no dealer)"
#: the filters: the row's attribute and the label
FILTERS = (
    ("severity", "severity"),
    ("category", "category"),
    ("rule", "rule"),
    ("table", "table"),
    ("dealer", "dealer"),
)
_COLUMNS = ("where", "time", "dealer", "severity", "rule", "what", "regulation")
#: most findings listed in the page
MAX_ROWS = 2_000


def _group_key(f: Finding) -> tuple[str, str, int]:
    return (f.path, f.table or "", -1 if f.round is None else f.round)


def _values(f: Finding) -> dict[str, str]:
    return {
        "severity": f.severity,
        "category": f.category,
        "rule": f.rule,
        "table": f.table or NO_TABLE,
        "dealer": f.dealer or NO_DEALER,
    }


def section(report: Report, timeline: Html) -> Html:
    total = len(report.findings)
    if not report.findings:
        body = el(
            "p", "No finding: every round of every table kept the rules audited.", class_="clean"
        )
    else:
        body = join(
            [
                _filters(report.findings, min(total, MAX_ROWS)),
                timeline,
                _findings_table(report, total),
                _tallies(report),
            ]
        )
    return el(
        "section",
        el("h2", "Findings (", el("span", total, id="findings-total"), ")"),
        body,
        _suppressed(report),
        id="findings",
    )


def _filters(findings: Iterable[Finding], rows: int) -> Html:
    """The filters of the ``rows`` findings listed, with every value the findings have."""
    values: dict[str, set[str]] = {key: set() for key, _ in FILTERS}
    for f in findings:
        for key, value in _values(f).items():
            values[key].add(value)
    controls = []
    for key, label in FILTERS:
        seen = values[key]
        order: list[str]
        if key == "severity":
            order = [s for s in SEVERITIES if s in seen]
        elif key == "category":
            order = [c for c in CATEGORIES if c in seen]
        else:
            order = sorted(seen, key=lambda v: (v.startswith("("), v))
        options = [el("option", "all", value="")] + [el("option", v, value=v) for v in order]
        controls.append(el("label", label, " ", el("select", *options, data_key=key, name=key)))
    controls.append(el("button", "show all", type="button", id="filters-reset"))
    controls.append(
        el("output", f"{rows} of {rows} findings shown", id="findings-shown", aria_live="polite")
    )
    return el(
        "form",
        *controls,
        id="filters",
        class_="filters",
        hidden=True,
        aria_label="filter the findings",
    )


def _findings_table(report: Report, total: int) -> Html:
    regulations = {r.id: r.model.regulation.short or r.model.title for r in report.rulesets}
    by_place = islice(
        ordered(report.findings, key=lambda f: (*_group_key(f), f.line, f.rule)), MAX_ROWS
    )
    groups = []
    for (path, table_id, rnd), grouped in groupby(by_place, key=_group_key):
        items = list(grouped)
        where = [el("code", path), " — ", f"table {table_id}" if table_id else NO_TABLE]
        if rnd >= 0:
            where.append(f", round {rnd}")
        shoes = sorted({f.shoe for f in items if f.shoe is not None})
        if shoes:
            where.append(f", shoe {', '.join(map(str, shoes))}")
        head = el(
            "tr", el("th", *where, colspan=len(_COLUMNS), scope="rowgroup"), class_="group-head"
        )
        groups.append(
            el("tbody", head, join(_finding_row(f, regulations) for f in items), class_="group")
        )
    cols = el("colgroup", *(void("col", class_=f"c-{c}") for c in _COLUMNS))
    head = el("thead", el("tr", *(el("th", c, scope="col") for c in _COLUMNS)))
    caption = "Findings by file, table and round"
    if total > MAX_ROWS:
        caption += (
            f": the first {MAX_ROWS:,} of {total:,} (a page of more would be too heavy to open; "
            "the JSON, SARIF and JUnit reports list every one)"
        )
    return el(
        "table",
        el("caption", caption),
        cols,
        head,
        join(groups),
        id="findings-table",
        class_="findings",
    )


def _finding_row(f: Finding, regulations: dict[str, str]) -> Html:
    what = [el("p", f.message)]
    if f.expected or f.actual:
        what.append(
            el(
                "dl",
                el("dt", "expected"),
                el("dd", el("code", f.expected or "—")),
                el("dt", "actual"),
                el("dd", el("code", f.actual or "—")),
                class_="ea",
            )
        )
    regulation = regulations.get(f.ruleset)
    cited = join(
        [el("span", regulation, class_="reg") if regulation else "", " ", el("q", f.citation)]
    )
    data = {f"data_{k}": v for k, v in _values(f).items()}
    return el(
        "tr",
        el("td", el("code", f"{f.path}:{f.line}")),
        el("td", _time(f.time), class_="time"),
        el("td", f.dealer or "—", class_="id"),
        el("td", el("span", f.severity, class_=f"badge sev-{f.severity}")),
        el("td", el("code", f.rule, class_="id"), void("br"), el("span", f.category, class_="cat")),
        el("td", *what),
        el("td", cited, class_="cite"),
        class_=f"finding sev-{f.severity}",
        **data,
    )


def _time(stamp: str | None) -> Html:
    """A stamp as written, that may break after its date and before its offset, nowhere else."""
    if stamp is None:
        return Html("—")
    date, sep, rest = stamp.partition("T")
    cut = max(rest.rfind("+"), rest.rfind("-"))
    if not sep or cut <= 0:
        return el("span", stamp, class_="stamp")
    return join(
        [
            el("span", date, "T", class_="stamp"),
            void("wbr"),
            el("span", rest[:cut], class_="stamp"),
            void("wbr"),
            el("span", rest[cut:], class_="stamp"),
        ]
    )


def _tallies(report: Report) -> Html:
    """Findings counted by rule, by category and by dealer (with the rounds each dealt)."""
    tally = report.tally()
    by_rule, by_category = tally.rules, tally.category_totals()
    rules = table(
        ["rule", "category", "findings"],
        (
            row(el("code", r), c, n, numeric=(2,))
            for (r, c), n in sorted(by_rule.items(), key=lambda item: (-item[1], item[0]))
        ),
        caption="By rule",
        sortable=True,
        numeric=(2,),
    )
    categories = table(
        ["category", "findings"],
        (
            row(c, by_category[c], numeric=(1,))
            for c in sorted(by_category, key=lambda c: (-by_category[c], CATEGORIES.index(c)))
        ),
        caption="By category",
        sortable=True,
        numeric=(1,),
    )
    return el("div", rules, categories, _by_dealer(report), class_="tallies")


def _by_dealer(report: Report) -> Html:
    """The dealers with findings or an anomaly, the most findings first; the others folded."""
    anomalous = (
        set()
        if report.statistics is None
        else {a.group.id for a in report.statistics.anomalies() if a.group.scope == "dealer"}
    )
    dealers = report.by_dealer()
    first = sorted(
        (d for d in dealers if d[2] or (d[0] is not None and d[0] in anomalous)),
        key=lambda d: (-d[2], d[0] is None, d[0] or ""),
    )
    listed = set(first)
    rest = [d for d in dealers if d not in listed]
    head, numeric = ["dealer", "rounds dealt", "findings"], (1, 2)

    def rows(items):
        return (
            row(
                join(
                    [
                        el("span", NO_DEALER if d is None else d, class_="id"),
                        join([" ", el("span", "anomaly", class_="badge anomaly")])
                        if d in anomalous
                        else "",
                    ]
                ),
                f"{rounds:,}",
                found,
                numeric=numeric,
            )
            for d, rounds, found in items
        )

    caption = f"By dealer ({len(dealers)})"
    parts = []
    if first:
        parts.append(
            table(
                head,
                rows(first),
                caption=f"{caption}: {len(first)} with findings or an anomaly",
                sortable=True,
                numeric=numeric,
                class_="by-dealer",
            )
        )
    if rest:
        label = (
            f"the other {len(rest):,} dealers: no finding, no anomaly"
            if first
            else f"{caption}: none with a finding or an anomaly"
        )
        parts.append(
            el(
                "details",
                el("summary", label),
                table(head, rows(rest), sortable=True, numeric=numeric, class_="by-dealer"),
                class_="fold",
                data_scope="dealer",
            )
        )
    return el("div", *parts)


def _suppressed(report: Report) -> Html:
    """What the baseline accepted (not failing the night, kept as evidence) and its stale entries."""
    parts = []
    if report.suppressed:
        rows = (
            row(
                el("code", f"{s.finding.path}:{s.finding.line}"),
                el("code", s.finding.rule),
                s.finding.message,
                s.justification,
            )
            for s in report.suppressed
        )
        parts.append(
            table(
                ["where", "rule", "what", "justification"],
                rows,
                caption=f"Suppressed by the baseline ({len(report.suppressed)})",
                class_="suppressed",
            )
        )
    if report.stale:
        parts.append(el("h3", "Stale baseline entries (they match no finding any more)"))
        parts.append(el("ul", *(el("li", stale_entry(e)) for e in report.stale)))
    return join(parts)
