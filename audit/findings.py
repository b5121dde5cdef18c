"""Findings: the auditor's output, as fixed by the findings contract (v1)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict

#: The severities of the contract, the gravest first.
Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = Severity.__args__  # type: ignore[attr-defined]
#: a severity's weight: a finding fails the run when its rank is at least the failing severity's
SEVERITY_RANK: dict[str, int] = {s: len(SEVERITIES) - i for i, s in enumerate(SEVERITIES)}
#: the failing severity when none is given (the contract's default)
DEFAULT_FAIL_ON: Severity = "error"

#: The fixed list of categories of the contract (``findings.md``).
Category = Literal[
    "syntax",
    "log-integrity",
    "late-bet",
    "bet-limit",
    "missed-burn",
    "extra-burn",
    "deal-order",
    "wrong-payout",
    "pay-order",
    "shoe",
    "table",
    "drawing",
    "procedure",
]
CATEGORIES: tuple[str, ...] = Category.__args__  # type: ignore[attr-defined]


class Finding(BaseModel):
    """One breach. Field order is the order of the JSON contract."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    rule: str
    category: Category
    severity: Severity
    path: str
    line: int
    table: str | None
    round: int | None
    message: str
    expected: str | None
    actual: str | None
    ruleset: str
    citation: str
    #: the stamp of the event at ``line`` as the log wrote it (None: that line has none)
    time: str | None = None
    #: the dealer in charge of the table at that event (the last DEALER of the table so far)
    dealer: str | None = None
    #: the ordinal of the table's current shoe in the log (1 from its first SHOE new)
    shoe: int | None = None

    def sort_key(self) -> tuple[str, int, str, str, int, str]:
        """Path, line, rule as the contract orders them; then table, round, message, so that
        the order never depends on the order the engine (or its processes) found them."""
        return (
            self.path,
            self.line,
            self.rule,
            self.table or "",
            -1 if self.round is None else self.round,
            self.message,
        )


def any_at_or_above(findings: Iterable[Finding], floor: str) -> bool:
    """Whether a finding is at least as grave as ``floor``: the exit status 1 of ``audit check``."""
    rank = SEVERITY_RANK[floor]
    return any(SEVERITY_RANK[f.severity] >= rank for f in findings)


def moment(f: Finding) -> str:
    """When and under whom, in words: ``at 2026-11-20T21:14:03.120+01:00, dealer D07, shoe 2``
    (the parts the finding has; empty when none)."""
    parts = []
    if f.time is not None:
        parts.append(f"at {f.time}")
    if f.dealer is not None:
        parts.append(f"dealer {f.dealer}")
    if f.shoe is not None:
        parts.append(f"shoe {f.shoe}")
    return ", ".join(parts)


def place(f: Finding) -> str:
    """Where a finding happened, in words: ``table BAT-07, round 3``, or ``no table``."""
    where = "no table" if f.table is None else f"table {f.table}"
    return where if f.round is None else f"{where}, round {f.round}"
