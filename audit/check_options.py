"""The options of ``audit check``, grouped by what they decide: which rules judge the logs, how the
audit runs, what the statistics add, and which reports are written where. The command line
builds them from its typer options (``audit/cli.py``), so that the code that runs the audit takes
four small values instead of twenty loose ones."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RuleOptions:
    """Which rules judge the logs, and what is already accepted."""

    house: list[Path] | None
    config: Path | None
    rulesets: Path | None
    select: list[str] | None
    ignore: list[str] | None
    baseline: Path | None


@dataclass(frozen=True)
class RunOptions:
    """How the audit runs, and where it is recorded."""

    jobs: int
    cluster: str | None
    store: str | None


@dataclass(frozen=True)
class StatisticsOptions:
    """The surveillance statistics: whether they are added (None: as the configuration says), their
    error rate, and whether an anomaly fails the audit."""

    statistics: bool | None
    alpha: float
    fail_on_anomaly: bool


@dataclass(frozen=True)
class ReportOptions:
    """Which reports go where, what fails the audit, and what a person sees meanwhile."""

    formats: list[str]
    outputs: list[Path]
    fail_on: str | None
    quiet: bool
    verbose: bool
    color: str
    no_progress: bool
