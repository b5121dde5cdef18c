"""Turning a failed verification into a finding: the ``Sink`` and the ``Flagger``.

The engine never raises on a breach: a check calls ``flag(CHECK, ...)`` with
its declared object, and the rule that the table's ruleset binds to that check
(if any, and enabled) supplies the id, category, severity and citation. A
check with no rule in the ruleset is simply not part of that regulation.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from types import MappingProxyType
from typing import Final, Literal, cast

from ..findings import Finding
from ..findings_store import FindingStore
from .binding import Binding, BoundRule
from .checks import Check, P


class _Current(Enum):
    """The type of ``CURRENT`` alone, so that a type checker tells it from a text."""

    CURRENT = "the current event's text"


CURRENT: Final = _Current.CURRENT  # flag(actual=...) default: the current event's text

_construct = Finding.model_construct
#: the fields a finding sets (all of them): one set for every finding, where pydantic would keep
#: one each (about 700 bytes; safe to share, a finding being frozen)
_EVERY_FIELD = set(Finding.model_fields)
#: a rule's citation, one string for all its findings (``citation_text`` writes a new one each time)
_citation = sys.intern


@lru_cache(maxsize=256)
def _binding(
    format_rules: Binding, ruleset: Binding | None
) -> Mapping[str, tuple[BoundRule, Binding]]:
    """Check name -> (rule, ruleset) of a pair of rulesets (loaded rulesets compare as objects): one
    for every table the pair governs, so that a table open costs no copy of its rules."""
    rules = {c: (r, format_rules) for c, r in format_rules.by_check.items()}
    if ruleset is not None:
        rules.update({c: (r, ruleset) for c, r in ruleset.by_check.items()})
    return MappingProxyType(rules)


@dataclass
class Sink:
    """Where the findings of one audit go, with the position being read."""

    path: str
    findings: list[Finding] = field(
        default_factory=FindingStore
    )  # written to disk past a threshold
    line: int = 0
    text: str = ""  # the current event, from its verb on
    stamp: str | None = None  # the current line's timestamp as written (None: it has none)


class Flagger:
    """Finds the rule for a check in a table's ruleset, then in the format's rules."""

    def __init__(
        self,
        sink: Sink,
        format_rules: Binding,
        ruleset: Binding | None,
        table: str | None,
    ):
        self.sink = sink
        self.format_rules = format_rules
        self.ruleset = ruleset
        self.table = table
        # check name -> (rule, ruleset), the table's ruleset first, then the format's (shared, never changed)
        self._rules = _binding(format_rules, ruleset)
        #: the table's dealer and shoe ordinal, set by the table on DEALER and SHOE (not per event)
        self.dealer: str | None = None
        self.shoe: int | None = None
        #: line -> (stamp, event text) of the lines a later finding may name (``keep``): the
        #: current round's, cleared as each round begins, and the current shoe's (``shoe_kept``)
        self.kept: dict[int, tuple[str | None, str]] = {}
        self.shoe_kept: dict[int, tuple[str | None, str]] = {}

    def keep(self) -> None:
        """Remember the current line's stamp and event: a finding flagged later may be at this line."""
        sink = self.sink
        self.kept[sink.line] = (sink.stamp, sink.text)

    def enabled(self, check: Check) -> bool:
        return check.name in self._rules

    def settings(self, check: Check[P]) -> P | None:
        """The check's parameters as the binding rule gives them; None when no rule binds it."""
        found = self._rules.get(check.name)
        # the rule's settings were validated against the check's parameters (``Library.load``)
        return cast("P", found[0].settings) if found is not None else None

    def flag(
        self,
        check: Check,
        message: str,
        *,
        line: int | None = None,
        round: int | None = None,
        expected: str | None = None,
        actual: str | Literal[_Current.CURRENT] | None = CURRENT,
    ) -> None:
        """``actual`` defaults to the event on the finding's line (the one being replayed, or one
        kept); pass None for a finding about something missing."""
        found = self._rules.get(check.name)
        if found is None:
            return
        rule, ruleset = found
        sink = self.sink
        at = sink.line if line is None else line
        if at == sink.line:
            stamp, text = sink.stamp, sink.text
        else:
            stamp, text = self.kept.get(at) or self.shoe_kept.get(at) or (None, "")
        if actual is CURRENT:
            actual = text or None
        # built without validation (every value is the engine's own or a validated rule's), with the
        # strings findings have in common shared: a finding costs its message and actual only
        self.sink.findings.append(
            _construct(
                _EVERY_FIELD,
                rule=rule.id,
                category=rule.category,
                severity=rule.severity,
                path=self.sink.path,
                line=at,
                table=self.table,
                round=round,
                message=message,
                expected=expected,
                actual=actual,
                ruleset=ruleset.id,
                citation=_citation(rule.citation_text),
                time=stamp,
                dealer=self.dealer if self.table is not None else None,
                shoe=self.shoe,
            )
        )
