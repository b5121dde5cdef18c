"""The report of an audit, as the contract describes it: inputs, findings, tables, rulesets, baseline.

Running the audit that fills it is ``audit.run``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol, TypeVar

from .configuration import Configuration
from .engine.stats import TableStats
from .findings import Finding
from .findings_store import SpilledFindings, Tally
from .rulesets import LoadedRuleset
from .statistics import Statistics


@dataclass
class InputSummary:
    path: str
    sha256: str
    lines: int
    size: int = 0
    #: what each line read turned out to be: the counts add up to ``lines``
    accounting: dict[str, int] = field(default_factory=dict)
    #: the time of the input's first event, as written, from the bytes audited (its gaming day
    #: in the history store); None when its first lines hold none
    first_event: str | None = None
    #: the gaming day most of its event lines belong to, counted as the audit read them when a
    #: history store records the run (``Library.gaming_day_start``); None otherwise
    gaming_day: date | None = None


@dataclass
class Suppressed:
    """A finding the baseline accepts: kept in the machine reports, not failing the run."""

    finding: Finding
    fingerprint: str
    justification: str


_T_co = TypeVar("_T_co", covariant=True)


class Counted(Protocol[_T_co]):
    """What can be counted and iterated, not indexed: the fingerprints of findings that spilled."""

    def __iter__(self) -> Iterator[_T_co]: ...
    def __len__(self) -> int: ...


@dataclass
class Report:
    inputs: list[InputSummary] = field(default_factory=list)
    #: in report order: a list, or past ``findings_store.THRESHOLD`` a ``SpilledFindings`` (iterate it)
    findings: list[Finding] | SpilledFindings = field(default_factory=list)
    tables: int = 0
    rounds: int = 0
    events: int = 0
    rulesets: list[LoadedRuleset] = field(default_factory=list)
    table_stats: list[TableStats] = field(default_factory=list)
    #: fingerprints of ``findings``, in the same order
    fingerprints: list[str] | Counted[str] = field(default_factory=list)
    suppressed: list[Suppressed] = field(default_factory=list)
    #: baseline entries (as written in the baseline file) that match no finding any more
    stale: list[dict] = field(default_factory=list)
    baseline: str | None = None
    #: the surveillance statistics (``audit.statistics``)
    statistics: Statistics | None = None
    #: the rule ids a ``--select``/``--ignore`` keeps (``audit.selection``); None: every rule
    reported_rules: frozenset[str] | None = None
    #: what shaped the report (``audit.configuration``): filled by the command that made it
    configuration: Configuration | None = None
    #: with a history store: the month to date's anomalies (``audit.history.anomalies.MonthToDate``)
    month_to_date: Any = None

    def reports(self, rule: str) -> bool:
        """Whether the report speaks of ``rule``: its findings, its SARIF descriptor, its JUnit test cases."""
        return self.reported_rules is None or rule in self.reported_rules

    def fingerprinted(self) -> Iterable[tuple[Finding, str]]:
        """Each finding with its fingerprint, in report order: findings that spilled are read once
        for both (``zip`` of the two would merge them from disk twice at once). A report made
        without fingerprints gives "" for each."""
        pairs = getattr(self.findings, "pairs", None)
        if pairs is not None:
            return pairs()
        if len(self.fingerprints) != len(self.findings):
            return ((f, "") for f in self.findings)
        return zip(self.findings, self.fingerprints)

    def tally(self) -> Tally:
        """The findings counted (once for findings that spilled, which are read from disk)."""
        tally = getattr(self.findings, "tally", None)
        return tally() if tally is not None else Tally.of(self.findings)

    def findings_by_category(self, path: str, table: str) -> dict[str, int]:
        return dict(sorted(self.tally().categories.get((path, table), {}).items()))

    def by_dealer(self) -> list[tuple[str | None, int, int]]:
        """(dealer, rounds dealt, findings at a table) for every dealer of the night, in name order,
        the findings made where no dealer was logged (None) last."""
        rounds: dict[str | None, int] = {}
        for t in self.table_stats:
            for dealer, n in t.dealer_rounds.items():
                rounds[dealer] = rounds.get(dealer, 0) + n
        found = self.tally().dealers
        dealers = sorted(set(rounds) | set(found), key=lambda d: (d is None, d or ""))
        return [(d, rounds.get(d, 0), found.get(d, 0)) for d in dealers]

    def counts(self) -> dict[str, int]:
        return dict(self.tally().severities)


def report_order(report: Report, path: str) -> int:
    """The place of an input in the report (its tables and findings follow that order)."""
    return next(i for i, inp in enumerate(report.inputs) if inp.path == path)
