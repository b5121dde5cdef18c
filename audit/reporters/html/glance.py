"""The night at a glance (what was read, under which rules, what was found) and the tables' summaries."""

from __future__ import annotations

from ... import __version__
from ...findings import SEVERITIES
from ...report import Report
from .markup import Html, el, join, money, row, table


def header(report: Report) -> Html:
    files = len(report.inputs)
    named = report.inputs[0].path if files == 1 else f"{files} files"
    return el(
        "header",
        el("h1", "Audit of ", el("span", named, class_="what")),
        el("p", f"del-audit {__version__} · findings contract, version 1", class_="meta"),
    )


def _figure(n: str | int, label: str, ident: str, kind: str = "") -> Html:
    return el(
        "div",
        el("span", str(n), id=ident, class_="n"),
        el("span", label, class_="label"),
        class_=f"figure {kind}".strip(),
    )


def glance(report: Report) -> Html:
    counts = report.counts()
    figures = [
        _figure(len(report.inputs), "files", "count-files"),
        _figure(report.tables, "tables", "count-tables"),
        _figure(report.rounds, "rounds", "count-rounds"),
        _figure(report.events, "events", "count-events"),
        _figure(sum(counts.values()), "findings", "count-findings", "findings"),
        *(_figure(counts[s], s, f"count-{s}", f"sev-{s}" if counts[s] else "") for s in SEVERITIES),
    ]
    if report.statistics is None:
        figures.append(_figure("—", "anomalies (statistics not computed)", "count-anomalies"))
    else:
        anomalies = len(report.statistics.anomalies())
        figures.append(
            _figure(anomalies, "anomalies", "count-anomalies", "anomaly" if anomalies else "")
        )
    inputs = table(
        ["file", "lines", "bytes", "SHA-256"],
        (
            row(
                el("code", i.path),
                f"{i.lines:,}",
                f"{i.size:,}",
                el("code", i.sha256, class_="sha"),
                numeric=(1, 2),
            )
            for i in report.inputs
        ),
        caption="Inputs",
        numeric=(1, 2),
        class_="inputs",
    )
    return el(
        "section",
        el("h2", "The night at a glance"),
        el("div", *figures, class_="figures"),
        inputs,
        _rulesets(report),
        _baseline(report),
        id="glance",
    )


def _rulesets(report: Report) -> Html:
    rows = []
    for r in report.rulesets:
        regulation = r.model.regulation
        overlay = (
            Html("—")
            if r.overlay is None
            else join(
                [
                    el("code", r.overlay.model.overlay),
                    " — ",
                    r.overlay.model.title,
                    " (",
                    el("code", r.overlay.path.as_posix()),
                    ", SHA-256 ",
                    el("code", r.overlay.sha256, class_="sha"),
                    ")",
                ]
            )
        )
        rows.append(
            row(
                el("code", r.id),
                join([regulation.name, f" ({regulation.short})" if regulation.short else ""]),
                el("code", r.sha256, class_="sha"),
                overlay,
            )
        )
    names = join((el("code", r.id) for r in report.rulesets), ", ")
    return el(
        "details",
        el("summary", f"Rulesets ({len(report.rulesets)}): ", names),
        table(["ruleset", "regulation", "SHA-256", "house overlay"], rows, class_="rulesets"),
        class_="fold rulesets-fold",
    )


def _baseline(report: Report) -> Html:
    if report.baseline is None:
        return Html("")
    stale = len(report.stale)
    return el(
        "p",
        "Baseline ",
        el("code", report.baseline),
        f": {len(report.suppressed)} finding(s) suppressed "
        f"(listed after the findings), {stale} stale entr{'y' if stale == 1 else 'ies'}.",
        class_="baseline",
    )


def tables(report: Report, course_plot: Html) -> Html:
    """Each table's drop, result and hold, as the count room ties them; then its course over the night."""
    several = len(report.inputs) > 1  # one input: its name is the page's title, not a column
    head = [
        *(["file"] if several else []),
        "table",
        "ruleset",
        "game",
        "rounds",
        "drop",
        "paid",
        "collected",
        "result",
        "hold %",
        "bank",
        "findings",
    ]
    numeric = tuple(i + several for i in (3, 4, 5, 6, 7, 8, 10))
    rows = []
    for t in report.table_stats:
        found = sum(report.findings_by_category(t.path, t.table).values())
        ruleset = join(
            [el("code", t.ruleset), *([" + ", el("code", t.overlay)] if t.overlay else [])]
        )
        rows.append(
            row(
                *([el("code", t.path)] if several else []),
                el("span", t.table, class_="id"),
                ruleset,
                t.game,
                f"{t.rounds:,}",
                money(t.drop),
                money(t.paid),
                money(t.collected),
                money(t.result),
                "—" if t.hold is None else str(t.hold),
                "house" if t.house_banked else "a player",
                found,
                numeric=numeric,
            )
        )
    note = el(
        "p",
        "The result is what the bank collected less what it paid: the house's where the house banks, "
        "the bank holder's (a player) where a player holds the bank, and there the hold does not apply.",
        class_="note",
    )
    return el(
        "section",
        el("h2", "Tables"),
        table(
            head,
            rows,
            caption="Per-table summaries",
            sortable=True,
            numeric=numeric,
            class_="summaries",
        ),
        note,
        course_plot,
        id="tables",
    )
