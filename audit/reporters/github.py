"""GitHub Actions workflow commands: one annotation per finding, shown on the run and its summary.

A step that writes ``::error file=F,line=N,title=RULE::message`` to its log
makes GitHub annotate the run (and, when the file is in the repository, the
line). Severities map to the three commands: error, warning, notice (info).
GitHub's escaping (the actions toolkit's ``command.ts``): ``%``, CR and LF in
the message as ``%25``, ``%0D``, ``%0A``; in a property, ``:`` and ``,`` as
``%3A`` and ``%2C`` too. Suppressed findings are not annotated. When a selection, a baseline
that suppressed or a house overlay shaped the report, one ``::notice`` first says so (the
findings hidden and suppressed, the overlays); the hashes are in the JSON, SARIF and JUnit reports.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..findings import Finding, moment, place
from ..report import Report

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def message(f: Finding) -> str:
    """The finding's message, where it happened, what the rules expect and what the log holds, the citation."""
    where = ", ".join(filter(None, (place(f), moment(f))))
    lines = [f"{f.message} ({where}; {f.category}, {f.ruleset})"]
    if f.expected is not None or f.actual is not None:
        lines += [f"expected: {f.expected or '—'}", f"actual: {f.actual or '—'}"]
    lines.append(f.citation)
    return "\n".join(lines)


def annotation(f: Finding) -> str:
    props = f"file={escape_property(f.path)},line={f.line},title={escape_property(f.rule)}"
    return f"::{COMMANDS[f.severity]} {props}::{escape_data(message(f))}"


def configuration_notice(report: Report) -> str | None:
    """One notice, before the findings' annotations, when the configuration hid findings or changed
    the rules (a selection, a baseline that suppressed, a house overlay); None otherwise."""
    conf = report.configuration
    if conf is None or not conf.shaped():
        return None
    return (
        f"::notice title={escape_property('what shaped this report')}::"
        f"{escape_data('; '.join(conf.hiding()))}"
    )


def pieces(report: Report) -> Iterator[str]:
    notice = configuration_notice(report)
    if notice is not None:
        yield notice + "\n"
    yield from (annotation(f) + "\n" for f in report.findings)


def render(report: Report) -> str:
    return "".join(pieces(report))
