"""What shaped a report: the ``configuration`` object of the findings contract.

A report that hides something must say so. The configuration files read, the
rulesets and overlays with their hashes and what each overlay changes, the
selection and how many findings it hid, the baseline and how many it
suppressed, the failing severity and whether the statistics ran: every format
shows these facts where a person reads first (``docs/trust.md``).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class _Fact(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FileRead(_Fact):
    """A configuration file actually read (found upwards or named), as the report names it."""

    path: str
    sha256: str


class RulesetUsed(_Fact):
    id: str
    sha256: str


class OverlayUsed(_Fact):
    """A house overlay and what it changes (rule ids): regulation rules it makes stricter, house
    rules it turns on, and rules whose house parameters it sets."""

    path: str
    sha256: str
    #: the tables it applies at: ``*`` for an overlay given with --house (every table of its ruleset)
    tables: str = "*"
    tightened: list[str] = Field(default_factory=list)
    added: list[str] = Field(default_factory=list)
    parameters: list[str] = Field(default_factory=list)


class SelectionUsed(_Fact):
    select: list[str] = Field(default_factory=list)
    ignore: list[str] = Field(default_factory=list)
    #: where the names came from: "command line", or the configuration file's path
    source: str | None = None
    #: findings the selection removed from this report
    hidden: int = 0


class BaselineUsed(_Fact):
    path: str
    sha256: str
    #: findings the baseline accepted (reported as suppressed, not failing the run)
    suppressed: int = 0


class Configuration(_Fact):
    files: list[FileRead] = Field(default_factory=list)
    rulesets: list[RulesetUsed] = Field(default_factory=list)
    overlays: list[OverlayUsed] = Field(default_factory=list)
    selection: SelectionUsed = Field(default_factory=SelectionUsed)
    baseline: BaselineUsed | None = None
    fail_on: str = "error"
    statistics: bool = False

    def hides_anything(self) -> bool:
        """Whether a finding could be missing from this report because of what shaped it."""
        return bool(self.selection.select or self.selection.ignore or self.selection.hidden
                    or (self.baseline is not None and self.baseline.suppressed))
