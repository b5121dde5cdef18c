"""Findings: the auditor's output, as fixed by the findings contract (v1)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
SEVERITY_RANK = {"error": 3, "warning": 2, "info": 1}

#: The fixed list of categories of the contract (``findings.md``).
Category = Literal[
    "syntax", "log-integrity", "late-bet", "bet-limit", "missed-burn", "extra-burn",
    "deal-order", "wrong-payout", "pay-order", "shoe", "table", "drawing", "procedure",
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

    def sort_key(self) -> tuple[str, int, str, str, int, str]:
        """Path, line, rule as the contract orders them; then table, round, message, so that
        the order never depends on the order the engine (or its processes) found them."""
        return (self.path, self.line, self.rule, self.table or "", -1 if self.round is None else self.round,
                self.message)
