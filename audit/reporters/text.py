"""The report a person reads first: a summary, then findings by table and round."""

from __future__ import annotations

import io
from collections.abc import Iterator
from itertools import groupby

from rich.console import Console
from rich.markup import escape

from .. import terminal
from ..escape import for_terminal
from ..findings import CATEGORIES, Finding, moment
from ..findings_store import ordered
from ..report import Report
from .text_statistics import draw as draw_statistics

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def safe(text: str) -> str:
    """Text from outside (a log, a file name, a ruleset, a baseline), made harmless for a terminal:
    what does not print (controls, bidi, zero-width) shown escaped, rich's markup escaped."""
    return escape(for_terminal(text))


def _group_key(f: Finding) -> tuple[str, str, int]:
    return (f.path, f.table or "", -1 if f.round is None else f.round)


def pieces(report: Report) -> Iterator[str]:
    """The report as a file holds it: plain text, lines as long as they are; a finding at a time
    (never all in memory)."""
    out = io.StringIO()
    console = Console(
        width=120,
        file=out,
        highlight=False,
        soft_wrap=True,
        color_system=None,
        force_terminal=False,
        emoji=False,
    )
    for _ in _drawing(report, console):
        yield out.getvalue()
        out.seek(0)
        out.truncate()
    yield out.getvalue()


def render(report: Report) -> str:
    return "".join(pieces(report))


def show(report: Report) -> None:
    """The report on standard output: in colour on a terminal, the same plain text in a pipe."""
    console = terminal.console(highlight=False, soft_wrap=True)
    for _ in _drawing(report, console):
        pass


def _drawing(report: Report, console: Console) -> Iterator[None]:
    """The report drawn on ``console``, pausing after each finding."""
    yield from _draw(report, console)
    if report.statistics is not None:
        draw_statistics(report, console)


def _draw(report: Report, console: Console) -> Iterator[None]:
    counts = report.counts()
    inputs = ", ".join(i.path for i in report.inputs)
    conf = report.configuration
    if (
        conf is not None and conf.shaped()
    ):  # the first line a person reads: what is not shown, and why
        console.print(f"[bold yellow]audit: {safe('; '.join(conf.hiding()))}[/bold yellow]")
    console.print(f"[bold]audit[/bold]: {safe(inputs)}")
    if conf is not None:
        for fact in conf.facts():
            console.print(f"  [dim]{safe(fact)}[/dim]")
    console.print(
        f"  {report.tables} table(s), {report.rounds} round(s), {report.events} event(s) audited"
    )
    for t in report.table_stats:
        hold = "—" if t.hold is None else f"{t.hold}%"
        who = "house" if t.house_banked else "bank (a player)"
        console.print(
            f"  {safe(t.path)} {safe(t.table)} ({safe(t.ruleset)}{', ' + safe(t.overlay) if t.overlay else ''}): "
            f"{t.rounds} round(s), drop {t.drop:.2f}, {who} result {t.result:.2f}, hold {hold}"
        )
    for i in report.inputs:
        console.print(f"  [dim]{safe(i.path)} sha256 {i.sha256}[/dim]")
    overlays = [r for r in report.rulesets if r.overlay is not None]
    for r in overlays:
        assert r.overlay is not None  # as chosen above
        console.print(
            f"  house rules: {safe(r.overlay.model.overlay)} over {safe(r.id)} ({safe(r.overlay.path.as_posix())})"
        )
    if report.baseline is not None:
        console.print(
            f"  baseline {safe(report.baseline)}: {len(report.suppressed)} finding(s) suppressed, "
            f"{len(report.stale)} stale entr{'y' if len(report.stale) == 1 else 'ies'}"
        )
        for entry in report.stale:
            console.print(
                f"    [yellow]stale[/yellow] {safe(stale_entry(entry))} (matches nothing any more)"
            )
    if not report.findings:
        hidden = conf.selection.hidden if conf is not None else 0
        console.print(
            f"  [yellow]no finding reported; {hidden} hidden by the selection[/yellow]"
            if hidden
            else "  [green]no finding[/green]"
        )
        return
    console.print(
        "  findings: " + ", ".join(f"[{_STYLE[s]}]{n} {s}[/{_STYLE[s]}]" for s, n in counts.items())
    )
    regulations = {r.id: r.model.regulation.short or r.model.title for r in report.rulesets}
    by_place = ordered(report.findings, key=lambda f: (*_group_key(f), f.line, f.rule))
    for (path, table, rnd), items in groupby(by_place, key=_group_key):
        where = f"table {table}" if table else "(no table)"
        when = f", round {rnd}" if rnd >= 0 else ""
        console.print()
        console.print(f"[bold]{safe(path)} — {safe(where)}{when}[/bold]")
        for f in items:
            style = _STYLE[f.severity]
            at = moment(f)
            console.print(
                f"  {safe(f.path)}:{f.line}: [{style}]{f.severity}[/{style}] {safe(f.rule)} ({f.category})"
                + (f" {safe(at)}" if at else ""),
                emoji=False,
            )  # :100: is a line, not an emoji
            console.print(f"    {safe(f.message)}")
            if f.expected or f.actual:
                console.print(f"    expected: {safe(f.expected or '—')}")
                console.print(f"    actual:   {safe(f.actual or '—')}")
            regulation = regulations.get(f.ruleset)
            console.print(
                f"    [dim]{safe(regulation + ', ' if regulation else '')}{safe(f.citation)}[/dim]"
            )
            yield
    _draw_tallies(report, console)


def _draw_tallies(report: Report, console: Console) -> None:
    """Findings counted by rule and by category (as linters' statistics), then by dealer."""
    tally = report.tally()
    by_rule, by_category = tally.rules, tally.category_totals()
    width = len(str(max(by_rule.values())))
    console.print()
    console.print("[bold]findings by rule[/bold]")
    for (rule, category), n in sorted(by_rule.items(), key=lambda item: (-item[1], item[0])):
        console.print(f"  {n:>{width}}  {safe(rule)} ({category})")
    console.print("[bold]findings by category[/bold]")
    for category in sorted(by_category, key=lambda c: (-by_category[c], CATEGORIES.index(c))):
        console.print(f"  {by_category[category]:>{width}}  {category}")
    dealers = report.by_dealer()
    if dealers:
        console.print("[bold]by dealer[/bold]")
        for dealer, rounds, found in dealers:
            name = "(no dealer logged)" if dealer is None else safe(dealer)
            console.print(f"  {name}: {rounds} round(s) dealt, {found} finding(s)")


def stale_entry(entry: dict) -> str:
    """A stale baseline entry as what it was: rule, file, table and round where it had them, and its message."""
    where = [entry["path"]]
    where.append("(no table)" if entry["table"] is None else f"table {entry['table']}")
    if entry["round"] is not None:
        where.append(f"round {entry['round']}")
    return f"{entry['rule']} {', '.join(where)}: {entry['message']}"


def summary_line(report: Report) -> str:
    """The report in one line (``--quiet``): findings by severity and the statistics' anomalies, what
    was audited, what the selection hid, what the baseline did, the house overlays, the rulesets and
    game plugins that are not the auditor's own."""
    counts = report.counts()
    found = (
        f"{sum(counts.values())} finding(s) ({', '.join(f'{n} {s}' for s, n in counts.items())})"
        if report.findings
        else "no finding"
    )
    anomalies = len(report.statistics.anomalies()) if report.statistics is not None else 0
    if anomalies:
        found += f", {anomalies} statistics anomal{'y' if anomalies == 1 else 'ies'}"
        if report.configuration is not None and report.configuration.fail_on_anomaly:
            found += " (failing the run: --fail-on-anomaly)"
    line = (
        f"audit: {found} in {len(report.inputs)} file(s), {report.tables} table(s), "
        f"{report.rounds} round(s)"
    )
    conf = report.configuration
    if conf is not None and (conf.selection.select or conf.selection.ignore):
        line += f"; {conf.selection_said()}"
    if report.baseline is not None:
        where = f" {conf.baseline.path}" if conf is not None and conf.baseline is not None else ""
        line += (
            f"; {len(report.suppressed)} suppressed by the baseline{where}, {len(report.stale)} stale entr"
            f"{'y' if len(report.stale) == 1 else 'ies'}"
        )
    if conf is not None and conf.overlays:
        line += "; house overlay(s) " + ", ".join(o.path for o in conf.overlays)
    foreign = [r for r in conf.rulesets if not r.shipped] if conf is not None else []
    if foreign:
        line += "; ruleset(s) not shipped: " + ", ".join(f"{r.id} ({r.path})" for r in foreign)
    if conf is not None and conf.plugins:
        line += "; " + ", ".join(p.said() for p in conf.plugins) + ", not the auditor's own code"
    if conf is not None and conf.store is not None and (trouble := conf.store.trouble()):
        line += f"; history store {conf.store.store} {trouble[0]}, {trouble[2]}"
    return for_terminal(line) + "\n"
