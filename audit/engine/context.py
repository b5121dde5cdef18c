"""Turning a failed verification into a finding.

The engine never raises on a breach: a check calls ``flag(check, ...)`` and
the rule that the table's ruleset binds to that check (if any, and enabled)
supplies the id, category, severity and citation. A check with no rule in the
ruleset is simply not part of that regulation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..findings import Finding
from ..rulesets import LoadedRuleset


@dataclass
class Sink:
    """Where the findings of one audit go, with the position being read."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    line: int = 0
    text: str = ""  # the current event, from its verb on


class Flagger:
    """Finds the rule for a check in a table's ruleset, then in the format's rules."""

    def __init__(self, sink: Sink, format_rules: LoadedRuleset, ruleset: LoadedRuleset | None, table: str | None):
        self.sink = sink
        self.format_rules = format_rules
        self.ruleset = ruleset
        self.table = table

    def enabled(self, check: str) -> bool:
        return self._rule(check) is not None

    def settings(self, check: str):
        found = self._rule(check)
        return found[0].settings if found else None

    def _rule(self, check: str):
        if self.ruleset is not None:
            rule = self.ruleset.rule(check)
            if rule is not None:
                return rule, self.ruleset
        rule = self.format_rules.rule(check)
        if rule is not None:
            return rule, self.format_rules
        return None

    def flag(self, check: str, message: str, *, line: int | None = None, round: int | None = None,
             expected: str | None = None, actual: str | None = None) -> None:
        found = self._rule(check)
        if found is None:
            return
        rule, ruleset = found
        at = self.sink.line if line is None else line
        if actual is None and at == self.sink.line and self.sink.text:
            actual = self.sink.text
        self.sink.findings.append(Finding(
            rule=rule.id, category=rule.category, severity=rule.severity,
            path=self.sink.path, line=at, table=self.table, round=round,
            message=message, expected=expected, actual=actual,
            ruleset=ruleset.id, citation=rule.citation_text,
        ))
