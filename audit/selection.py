"""Which rules an audit reports: ``--select`` and ``--ignore``, as ruff chooses its rules.

A rule is named by its id (``FR-PAY-MAIN``), a prefix of ids (``FR-``,
``FR-PAY``) or a finding category (``wrong-payout``); a rule's former id (an
``aliases`` entry of its ruleset), given whole, names the rule it became. ``select`` narrows the
rules to those it names (all when it is empty); ``ignore`` then removes the
ones it names, whatever ``select`` said. Each of the two given on the command
line replaces the same key of the configuration. A name that matches no rule
and no category stops the audit (exit 2) with the closest names.

The selection filters the finished report (findings, suppressed findings and
stale baseline entries), not the rulesets: the engine and the processes of
``--jobs`` run the rules as loaded, so a selection never changes what the
selected rules find, nor a finding's fingerprint.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .findings import CATEGORIES, Finding
from .findings_store import SpilledFindings
from .report import Report
from .rulesets import Library


class SelectionError(Exception):
    """A rule name that matches nothing: the audit stops with exit 2."""


def split(values: Iterable[str] | None) -> tuple[str, ...]:
    """The names of repeated, comma-separated values (``--select a,b --select c``), blanks left out."""
    return tuple(
        name.strip() for value in values or () for name in value.split(",") if name.strip()
    )


@dataclass(frozen=True)
class Selection:
    """The names given to ``select`` and ``ignore``, and the category of every known rule."""

    select: tuple[str, ...]
    ignore: tuple[str, ...]
    #: rule id -> its category, for every rule of every ruleset loaded
    categories: Mapping[str, str]
    #: a former rule id -> the rule's id now (a stale baseline entry may carry a former id)
    aliases: dict[str, str] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return bool(self.select or self.ignore)

    def keeps(self, rule: str, category: str | None = None) -> bool:
        """Whether findings of ``rule`` are reported (``category``: the rule's, if the library does not know it)."""
        rule = self.aliases.get(rule, rule)
        category = self.categories.get(rule, category)
        if self.select and not _named(self.select, rule, category):
            return False
        return not _named(self.ignore, rule, category)

    def kept_rules(self) -> list[str]:
        return [rule for rule in self.categories if self.keeps(rule)]

    def apply(self, report: Report) -> int:
        """Leave out of the report the findings, suppressed findings and stale entries of the rules not
        kept, and tell the report which rules it speaks of (SARIF's rules, JUnit's test cases).

        Returns how many findings it left out: findings and suppressed (baselined) findings alike,
        so that what the rules found is what the report lists, plus what the baseline suppressed,
        plus this count (the report's ``configuration.selection.hidden``)."""
        if not self.active:
            return 0
        report.reported_rules = frozenset(self.kept_rules())
        if isinstance(report.findings, SpilledFindings):
            # findings that spilled: narrowed as they are read, counted from their tally
            by_rule = report.findings.tally().rules
            hidden = sum(
                n for (rule, category), n in by_rule.items() if not self.keeps(rule, category)
            )
            report.findings = report.findings.where(lambda f, fp: self._keeps_finding(f))
            report.fingerprints = report.findings.fingerprints
        else:
            kept = [
                (f, fp)
                for f, fp in zip(report.findings, report.fingerprints)
                if self._keeps_finding(f)
            ]
            hidden = len(report.findings) - len(kept)
            report.findings = [f for f, _ in kept]
            report.fingerprints = [fp for _, fp in kept]
        suppressed = [s for s in report.suppressed if self._keeps_finding(s.finding)]
        hidden += len(report.suppressed) - len(suppressed)
        report.suppressed = suppressed
        report.stale = [e for e in report.stale if self.keeps(e["rule"])]
        return hidden

    def _keeps_finding(self, f: Finding) -> bool:
        return self.keeps(f.rule, f.category)


def _named(names: tuple[str, ...], rule: str, category: str | None) -> bool:
    return any(rule.startswith(name) or name == category for name in names)


def choose(
    library: Library,
    cli_select: list[str] | None,
    cli_ignore: list[str] | None,
    cfg_select: list[str] | None,
    cfg_ignore: list[str] | None,
    cfg_where: str = "configuration",
) -> Selection:
    """The selection of the command line, each of its keys replacing the configuration's; every name checked."""
    categories = {
        rule.id: rule.category
        for loaded in library.rulesets.values()
        for rule in loaded.model.rules
    }
    aliases = library.aliases
    chosen = {}
    for key, given, configured in (
        ("select", cli_select, cfg_select),
        ("ignore", cli_ignore, cfg_ignore),
    ):
        where, names = (
            (f"--{key}", split(given)) if given else (f"{cfg_where}: {key}", split(configured))
        )
        for name in names:
            if name not in aliases:
                _check(name, where, categories)
        chosen[key] = tuple(aliases.get(name, name) for name in names)
    return Selection(chosen["select"], chosen["ignore"], categories, aliases)


def _check(name: str, where: str, categories: Mapping[str, str]) -> None:
    if name in CATEGORIES or any(rule.startswith(name) for rule in categories):
        return
    known = {rule.upper(): rule for rule in categories} | {c.upper(): c for c in CATEGORIES}
    prefixes = {rule.rsplit("-", 1)[0] + "-" for rule in categories}
    known |= {p.upper(): p for p in prefixes}
    close = difflib.get_close_matches(name.upper(), list(known), n=3, cutoff=0.6)
    hint = (
        f"; did you mean {' or '.join(known[c] for c in close)}?"
        if close
        else "; `audit rules` lists the rule ids and their categories"
    )
    raise SelectionError(f"{where}: {name!r} is no rule id, prefix of one, or category{hint}")
