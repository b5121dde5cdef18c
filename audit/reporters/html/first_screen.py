"""The page's first screen: which night and casino (``night``), the verdict, what hides findings (a
banner no one can miss), the anomalies, and what shaped the report (``report.configuration``).

The verdict is the exit status's: a finding at or above the failing severity (the
configuration's ``fail_on``, else the contract's default) fails the night. A report made without a
configuration shows none of it; everything else on this screen it still shows.
"""

from __future__ import annotations

from ...configuration import Configuration
from ...findings import DEFAULT_FAIL_ON, SEVERITIES, SEVERITY_RANK
from ...report import Report
from . import night as night_of
from .markup import Html, el, join

#: anomalies named on the first screen; the statistics section lists every one
MAX_ANOMALIES = 5


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def fail_on(report: Report) -> str:
    return report.configuration.fail_on if report.configuration is not None else DEFAULT_FAIL_ON


def section(report: Report) -> Html:
    return el(
        "section",
        _night(night_of.of(report)),
        _verdict(report),
        _hidden(report),
        _anomalies(report),
        _configuration(report.configuration),
        id="summary",
        class_="first-screen",
        aria_label="verdict and what shaped the report",
    )


def _verdict(report: Report) -> Html:
    floor = fail_on(report)
    counts = report.counts()
    failing = [s for s in SEVERITIES if SEVERITY_RANK[s] >= SEVERITY_RANK.get(floor, 1)]
    n = sum(counts.get(s, 0) for s in failing)
    at_or_above = f"at or above {floor}" if len(failing) > 1 else f"at {floor}"
    if n:
        word, kind = "FAIL", "fail"
        split = ", ".join(f"{counts[s]:,} {s}" for s in failing if counts.get(s, 0))
        said = join(
            [
                el("strong", _plural(n, "finding")),
                f" {at_or_above}",
                f": {split}" if len(failing) > 1 else "",
            ]
        )
    else:
        word, kind = "PASS", "pass"
        said = join([el("strong", "no finding"), f" {at_or_above}"])
    return el(
        "div",
        el("span", word, class_="word", id="verdict-word"),
        " ",
        said,
        el("span", " (", el("code", f"--fail-on {floor}"), ")", class_="why"),
        class_=f"verdict {kind}",
        id="verdict",
        data_fail_on=floor,
        data_failing=n,
    )


def hidden_phrases(configuration: Configuration | None) -> list[Html]:
    """What hides findings from this report, one phrase each (none: nothing hides any)."""
    if configuration is None or not (
        configuration.hides_anything() or configuration.store_trouble() is not None
    ):
        return []
    out = []
    chosen = configuration.selection
    if chosen.select or chosen.ignore or chosen.hidden:
        how = []
        if chosen.select:
            how.append(join(["select ", join((el("code", s) for s in chosen.select), ", ")]))
        if chosen.ignore:
            how.append(join(["ignore ", join((el("code", s) for s in chosen.ignore), ", ")]))
        by = join(how, "; ") if how else Html("the selection")
        source = join([" (", chosen.source, ")"]) if chosen.source else Html("")
        out.append(
            join([el("strong", _plural(chosen.hidden, "finding")), " hidden by ", by, source])
        )
    baseline = configuration.baseline
    if baseline is not None and baseline.suppressed:
        out.append(_suppressed(baseline.suppressed, baseline.path))
    out += [
        join(
            [
                "ruleset ",
                el("code", r.id, class_="id"),
                " is not the one shipped with audit (",
                el("code", r.path or ""),
                "): its rules decided what is found",
            ]
        )
        for r in configuration.rulesets
        if not r.shipped
    ]
    out += [
        join(
            [
                "game plugin ",
                el("code", p.game, class_="id"),
                " is not the auditor's own code (",
                el("code", p.entry_point),
                _origin(p, ", from "),
                "): it ran inside the audit",
            ]
        )
        for p in configuration.plugins
    ]
    if configuration.store is not None and (trouble := configuration.store_trouble()):
        out.append(
            join(
                [
                    "the history store ",
                    el("code", configuration.store.store),
                    f" {trouble[0]}: {trouble[2]}",
                ]
            )
        )
    return out


def _origin(p, lead: str) -> Html | str:
    """``lead`` and a game plugin's distribution and version, or nothing when it has none."""
    if not p.distribution:
        return ""
    return join([lead, el("code", f"{p.distribution} {p.version or ''}".strip())])


def _suppressed(n: int, path: str | None) -> Html:
    return join(
        [
            el("strong", _plural(n, "finding")),
            " suppressed by the baseline ",
            el("code", path) if path else "",
            " (listed after the findings)",
        ]
    )


def _hidden(report: Report) -> Html:
    """The banner of what hides findings: the configuration's record, or without one what the report
    itself knows (the findings its baseline suppressed, that a selection of the rules was made)."""
    configuration = report.configuration
    if configuration is not None:
        phrases = hidden_phrases(configuration)
        baseline = configuration.baseline
        missing = configuration.selection.hidden + (
            baseline.suppressed if baseline is not None else 0
        )
    else:
        phrases = (
            [_suppressed(len(report.suppressed), report.baseline)] if report.suppressed else []
        )
        if report.reported_rules is not None:
            phrases.append(
                join(
                    [
                        "findings of rules the selection leaves out are not reported (",
                        _plural(len(report.reported_rules), "rule"),
                        " reported)",
                    ]
                )
            )
        missing = len(report.suppressed) + (report.reported_rules is not None)
    if not phrases:
        return Html("")
    selected = configuration is None or bool(
        configuration.selection.select or configuration.selection.ignore
    )
    lead = (
        "⚠ Not every finding is listed: "
        if missing
        else "⚠ A selection of the rules is in force: "
        if selected
        else "⚠ Read with care: "
    )
    return el(
        "div",
        el("span", lead, class_="lead"),
        join(phrases, "; "),
        ".",
        class_="banner hides",
        id="hidden-findings",
        role="note",
    )


def _night(night: night_of.Night) -> Html:
    dates = night.dates()
    if dates is None:
        when = Html("not known (the logs could not be read again for their times)")
    else:
        day = dates[0] if dates[0] == dates[1] else f"{dates[0]} → {dates[1]}"
        when = join(
            [
                el("strong", day, class_="dates"),
                " (first event ",
                el("time", night.first, class_="stamp"),
                ", last ",
                el("time", night.last, class_="stamp"),
                ")",
            ]
        )
    casino = (
        join((el("strong", c) for c in night.casinos), ", ")
        if night.casinos
        else join(["not named (no ", el("code", "#casino"), " header)"])
    )
    unread = (
        el(
            "span",
            f" · {_plural(night.unread, 'input')} not read again for this (standard input or a URL)",
            class_="note",
        )
        if night.unread
        else Html("")
    )
    return el(
        "p",
        el("span", "Night ", class_="key"),
        el("span", when, id="night-dates"),
        " · ",
        el("span", "casino ", class_="key"),
        el("span", casino, id="night-casino"),
        unread,
        class_="night",
    )


def _anomalies(report: Report) -> Html:
    stats = report.statistics
    if stats is None:
        return el(
            "p",
            el("span", "Anomalies ", class_="key"),
            el(
                "span",
                "not computed (the statistics did not run: ",
                el("code", "--statistics"),
                ")",
                id="summary-anomalies",
            ),
            class_="anomalies-line",
        )
    anomalies = stats.anomalies()
    if not anomalies:
        return el(
            "p",
            el("span", "Anomalies ", class_="key"),
            el("span", "none", id="summary-anomalies"),
            " (no group departs from expectation beyond chance)",
            class_="anomalies-line",
        )
    items = [
        el(
            "li",
            el("span", f"{a.group.scope} ", class_="scope"),
            el("span", a.group.id, class_="id"),
            f" at {a.group.table}"
            if a.group.table and a.group.table != a.group.id and a.group.scope != "shoe"
            else "",
            ": ",
            a.group.message,
        )
        for a in anomalies[:MAX_ANOMALIES]
    ]
    more = len(anomalies) - MAX_ANOMALIES
    if more > 0:
        items.append(el("li", el("a", f"and {more:,} more", href="#statistics")))
    return el(
        "div",
        el(
            "p",
            el("span", "Anomalies ", class_="key"),
            el("strong", len(anomalies), id="summary-anomalies", class_="anomaly"),
            " (a measure, not a breach: ",
            el("a", "statistics", href="#statistics"),
            ")",
        ),
        el("ul", *items),
        class_="anomalies-line",
    )


def _configuration(c: Configuration | None) -> Html:
    """What shaped the report, as a list of facts: failing severity, statistics, rulesets, overlays,
    selection, baseline, configuration files."""
    if c is None:
        return Html("")

    def sha(value: str) -> Html:
        return el("code", value, class_="sha")

    facts = [
        (
            "fails on",
            join(
                [
                    el("code", c.fail_on),
                    " and above" if c.fail_on != SEVERITIES[0] else "",
                    ": a finding there makes the exit status 1",
                ]
            ),
        ),
        ("statistics", "computed" if c.statistics else "not computed"),
    ]
    if c.store is not None and c.store.unopened is not None:
        facts.append(
            (
                "history store",
                join(
                    [
                        el("code", c.store.store),
                        f": could not be opened: {c.store.unopened}; the night is not recorded",
                    ]
                ),
            )
        )
    elif c.store is not None:
        facts.append(
            (
                "history store",
                join(
                    [
                        el("code", c.store.store),
                        f": {c.store.sealed} input(s) sealed before this run, head ",
                        el("code", c.store.head or "none"),
                        f"; damaged: {c.store.damaged}" if c.store.damaged else "",
                    ]
                ),
            )
        )
    facts.append(
        (
            "rulesets",
            join(
                el("span", el("code", r.id, class_="id"), " ", sha(r.sha256), class_="item")
                for r in c.rulesets
            )
            if c.rulesets
            else "none",
        )
    )
    if c.overlays:
        overlays = []
        for o in c.overlays:
            changes = [
                join([what, " ", join((el("code", r, class_="id") for r in rules), ", ")])
                for what, rules in (
                    ("tightened", o.tightened),
                    ("added", o.added),
                    ("parameters", o.parameters),
                    ("its own reading of", o.readings),
                )
                if rules
            ]
            overlays.append(
                el(
                    "span",
                    el("code", o.path),
                    " ",
                    sha(o.sha256),
                    " at every table of its ruleset"
                    if o.tables == "*"
                    else join([" at ", el("code", o.tables)]),
                    join([": ", join(changes, "; ")]) if changes else ": changes no rule",
                    class_="item",
                )
            )
        facts.append(("house overlays", join(overlays)))
    else:
        facts.append(("house overlays", "none"))
    facts.append(
        (
            "game plugins",
            join(
                el(
                    "span",
                    el("code", p.game, class_="id"),
                    " ",
                    el("code", p.entry_point),
                    _origin(p, " from "),
                    class_="item",
                )
                for p in c.plugins
            )
            if c.plugins
            else "none (the built-in games only)",
        )
    )
    chosen = c.selection
    if chosen.select or chosen.ignore:
        parts = (
            [join(["select ", join((el("code", s) for s in chosen.select), ", ")])]
            if chosen.select
            else []
        ) + (
            [join(["ignore ", join((el("code", s) for s in chosen.ignore), ", ")])]
            if chosen.ignore
            else []
        )
        facts.append(
            (
                "selection",
                join(
                    [
                        join(parts, "; "),
                        join([" (", chosen.source, ")"]) if chosen.source else "",
                        f": {_plural(chosen.hidden, 'finding')} hidden",
                    ]
                ),
            )
        )
    else:
        facts.append(
            (
                "selection",
                "every rule"
                + (f" ({_plural(chosen.hidden, 'finding')} hidden)" if chosen.hidden else ""),
            )
        )
    if c.baseline is not None:
        facts.append(
            (
                "baseline",
                join(
                    [
                        el("code", c.baseline.path),
                        " ",
                        sha(c.baseline.sha256),
                        f": {_plural(c.baseline.suppressed, 'finding')} suppressed",
                    ]
                ),
            )
        )
    else:
        facts.append(("baseline", "none"))
    facts.append(
        (
            "configuration files",
            join(el("span", el("code", f.path), " ", sha(f.sha256), class_="item") for f in c.files)
            if c.files
            else "none read",
        )
    )
    return el(
        "div",
        el("h2", "What shaped this report"),
        el("dl", *(join([el("dt", k), el("dd", v)]) for k, v in facts), class_="facts"),
        id="configuration",
        class_="configuration",
    )
