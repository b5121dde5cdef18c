"""The morning report: one self-contained HTML page for the compliance officer (docs/report.md).

One file that opens anywhere, offline, years later, and prints: its style, its script and
its plots (SVG drawn by matplotlib) are inside it, and its Content-Security-Policy forbids
any request (the script is allowed by its hash alone). Without scripts every finding and
figure is a plain HTML table; the script only adds the filters and sorting. The same report
gives the same bytes.

Needs matplotlib (the ``html`` extra); the command line checks it before any log is read.
"""

from __future__ import annotations

import base64
import hashlib
from importlib import resources

from ...report import Report
from . import findings_section, first_screen, glance, series, statistics_section
from .markup import Html, el, void


def _asset(name: str) -> str:
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


def render(report: Report) -> str:
    script = _asset("page.js")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    policy = (
        f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; "
        "base-uri 'none'; form-action 'none'"
    )
    title = (
        f"Audit of {report.inputs[0].path}"
        if len(report.inputs) == 1
        else f"Audit of {len(report.inputs)} files"
    )
    head = el(
        "head",
        void("meta", charset="utf-8"),
        void("meta", http_equiv="Content-Security-Policy", content=policy),
        void("meta", name="viewport", content="width=device-width, initial-scale=1"),
        void("meta", name="generator", content="del-audit"),
        el("title", title),
        el("style", Html(_asset("page.css"))),
    )
    body = el(
        "body",
        glance.header(report),
        first_screen.section(report),
        _contents(),
        el(
            "main",
            glance.glance(report),
            findings_section.section(report, _timeline(report)),
            glance.tables(report, _courses(report)),
            statistics_section.section(report, _statistics_plots(report)),
        ),
        el("script", Html(script)),
    )
    return f"<!DOCTYPE html>\n{el('html', head, body, lang='en')}\n"


def _contents() -> Html:
    links = [
        ("glance", "At a glance"),
        ("findings", "Findings"),
        ("tables", "Tables"),
        ("statistics", "Statistics"),
    ]
    return el(
        "nav",
        el("ul", *(el("li", el("a", label, href=f"#{ident}")) for ident, label in links)),
        aria_label="contents",
        class_="contents",
    )


def _plot(svg: Html, caption: str) -> Html:
    return el("figure", svg, el("figcaption", caption), class_="plot")


def _timeline(report: Report) -> Html:
    from . import plots  # matplotlib, loaded when a page is drawn (not by audit follow's page)

    line = series.timeline(report.findings)
    if not line.categories:
        return Html("")
    return _plot(
        plots.timeline(line),
        "Each mark is a finding at the time its line was stamped, by category; a cluster shows when "
        "and where a table went wrong.",
    )


def _courses(report: Report) -> Html:
    from . import plots  # matplotlib, loaded when a page is drawn (not by audit follow's page)

    if report.statistics is None:
        return el(
            "p",
            "The tables' course over the night needs the statistics, not computed in this run.",
            class_="note",
        )
    courses, total = series.courses(report.statistics, len(report.inputs) > 1)
    if not courses:
        return Html("")
    return _plot(
        plots.night_courses(courses, total),
        "The house's cumulative result at each shoe's end (the report keeps each shoe's result, not each "
        "round's), the exact expectation of the bets placed (dashed) and its 95 % band.",
    )


def _statistics_plots(report: Report) -> list[Html]:
    from . import plots  # matplotlib, loaded when a page is drawn (not by audit follow's page)

    stats = report.statistics
    if stats is None:
        return []
    several = len(report.inputs) > 1
    out = []
    for scope, what in (("table", "table"), ("dealer", "dealer")):
        rows, total = series.bands(stats, scope, several)
        if rows:
            out.append(
                _plot(
                    plots.result_bands(rows, total, what, f"bands-{scope}"),
                    f"Each {what}'s result (dot), its exact expectation (tick) and the band the result "
                    "stays in 95 % of the time if the game is fair; red: outside the band.",
                )
            )
    points, middles, between = series.card_points(stats)
    if points:
        out.append(
            _plot(
                plots.card_tests(points, middles, between),
                "Each shoe's card tests as a z: a prepared or clumped shoe stands out of the band.",
            )
        )
    return out
