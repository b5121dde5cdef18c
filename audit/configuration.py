"""What shaped a report: the ``configuration`` object of the findings contract.

A report that hides something must say so. The configuration files read, the
rulesets and overlays with their hashes and what each overlay changes, the
selection and how many findings it hid, the baseline and how many it
suppressed, the failing severity and whether the statistics ran: every format
shows these facts where a person reads first (``docs/trust.md``).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from .rulesets import shipped_folders

if TYPE_CHECKING:
    from .rulesets import LoadedRuleset


class _Fact(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FileRead(_Fact):
    """A configuration file actually read (found upwards or named), as the report names it."""

    path: str
    sha256: str


class RulesetUsed(_Fact):
    id: str
    sha256: str
    #: whether these are the bytes of the ruleset of that id shipped with this version of audit; a
    #: ruleset from another folder (``--rulesets``, the configuration's ``rulesets``) says where it is
    shipped: bool = True
    path: str | None = None


class OverlayUsed(_Fact):
    """A house overlay and what it changes (rule ids): regulation rules it makes stricter, house
    rules it turns on, rules whose house parameters it sets, and rules it gives its own reading of
    (shown beside the ruleset's, never in its place)."""

    path: str
    sha256: str
    #: the ruleset it changes
    ruleset: str | None = None
    #: the tables it applies at: ``*`` for an overlay given with --house (every table of its ruleset)
    tables: str = "*"
    tightened: list[str] = Field(default_factory=list)
    added: list[str] = Field(default_factory=list)
    parameters: list[str] = Field(default_factory=list)
    readings: list[str] = Field(default_factory=list)


class PluginUsed(_Fact):
    """A game registered from code that is not the auditor's own (a game plugin): it ran inside
    the audit, whether or not a table of the night played its game."""

    game: str
    #: what published it: ``module:attribute``
    entry_point: str
    #: the installed distribution that holds it, and its version (None: not found in metadata)
    distribution: str | None = None
    version: str | None = None

    def said(self) -> str:
        """``game plugin roulette (roulette_game:GAME, from roulette-game 1.2.0)``."""
        origin = (
            f", from {self.distribution} {self.version or '(no version)'}"
            if self.distribution
            else ""
        )
        return f"game plugin {self.game} ({self.entry_point}{origin})"


class StoreUsed(_Fact):
    """The history store the run records into, as it was before the run: how many inputs it had
    sealed and its head (the last seal). Kept outside the store, in every night's report, the
    head is what ``audit history verify --head`` checks the store against later."""

    store: str
    sealed: int = 0
    head: str | None = None
    #: why the run could not read the month to date from the store, which the report then leaves out:
    #: values no recording writes (another hand's), or the store's own error; None: it was read
    damaged: str | None = None
    #: why the run could not open the store at all (unreachable, not a store, a newer schema): the
    #: night is audited and reported all the same, not recorded, and without a month to date;
    #: ``sealed`` and ``head`` then say nothing. None: it was opened
    unopened: str | None = None

    def trouble(self) -> tuple[str, str, str] | None:
        """What went wrong with the store, why, and what the report lacks for it; None: nothing."""
        if self.unopened is not None:
            return (
                "could not be opened",
                self.unopened,
                "the night is not recorded and the month to date is left out",
            )
        if self.damaged is not None:
            return ("could not be read", self.damaged, "the month to date is left out")
        return None


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
    #: the games registered from code that is not this version's own
    plugins: list[PluginUsed] = Field(default_factory=list)
    selection: SelectionUsed = Field(default_factory=SelectionUsed)
    baseline: BaselineUsed | None = None
    #: the lowest severity that fails the run (exit status 1)
    fail_on: str = "error"
    #: whether the report holds the surveillance statistics
    statistics: bool = False
    #: whether a statistics anomaly fails the run too (``--fail-on-anomaly``)
    fail_on_anomaly: bool = False
    #: the history store the run records into (``--store``), None without one
    store: StoreUsed | None = None

    def hides_anything(self) -> bool:
        """Whether a finding could be missing from this report because of what shaped it."""
        return bool(
            self.selection.select
            or self.selection.ignore
            or self.selection.hidden
            or (self.baseline is not None and self.baseline.suppressed)
            or any(not r.shipped for r in self.rulesets)
            or bool(self.plugins)  # code of its own ran in the audit: it could have hidden one
        )

    def shaped(self) -> bool:
        """Whether anything beyond the shipped rules decided what this report lists: a selection, a
        baseline that suppressed, a house overlay; or a store it could not use what it leaves out."""
        return self.hides_anything() or bool(self.overlays) or self.store_trouble() is not None

    def store_trouble(self) -> tuple[str, str, str] | None:
        """What went wrong with the history store (``StoreUsed.trouble``); None: nothing, or none."""
        return self.store.trouble() if self.store is not None else None

    def as_json(self) -> dict:
        """The ``configuration`` object of the JSON report (and of SARIF's run properties)."""
        return self.model_dump(mode="json")

    def hiding(self) -> list[str]:
        """What shaped the report, in a few words each, the findings it hid first: the text report's
        first line, ``--quiet``'s line, the GitHub notice (empty when nothing did)."""
        said = [self.selection_said()] if self.selection.select or self.selection.ignore else []
        if self.baseline is not None and self.baseline.suppressed:
            said.append(f"{self.baseline.suppressed} suppressed by baseline {self.baseline.path}")
        for o in self.overlays:
            said.append(f"house overlay {o.path}{overlay_changes(o)}")
        said += [
            f"ruleset {r.id} is not the one shipped ({r.path})"
            for r in self.rulesets
            if not r.shipped
        ]
        said += [f"{p.said()} is not the auditor's own code" for p in self.plugins]
        if self.store is not None and (trouble := self.store.trouble()) is not None:
            said.append(f"history store {self.store.store} {trouble[0]}: {trouble[2]}")
        return said

    def selection_said(self) -> str:
        """``12 finding(s) hidden by ignore DEL-TIME-ORDER (audit.toml)``."""
        sel = self.selection
        names = " ".join(
            f"{key} {', '.join(values)}"
            for key, values in (("select", sel.select), ("ignore", sel.ignore))
            if values
        )
        return f"{sel.hidden} finding(s) hidden by {names or 'no selection'} ({sel.source or 'nowhere'})"

    def facts(self) -> list[str]:
        """Every fact, a line each: the text summary's configuration lines."""
        lines = [f"configuration file {f.path} sha256 {f.sha256}" for f in self.files] or [
            "configuration file: none (defaults)"
        ]
        sel = self.selection
        if sel.select or sel.ignore:
            lines.append(
                f"selection ({sel.source}): select {', '.join(sel.select) or 'every rule'}; "
                f"ignore {', '.join(sel.ignore) or 'none'}; {sel.hidden} finding(s) hidden"
            )
        else:
            lines.append("selection: none (every rule reported)")
        if self.baseline is not None:
            lines.append(
                f"baseline {self.baseline.path} sha256 {self.baseline.sha256}: "
                f"{self.baseline.suppressed} finding(s) suppressed"
            )
        for o in self.overlays:
            where = "every table" if o.tables == "*" else f"tables {o.tables}"
            lines.append(
                f"house overlay {o.path} sha256 {o.sha256} over {o.ruleset}, {where}{overlay_changes(o)}"
            )
        lines += [
            f"ruleset {r.id} sha256 {r.sha256}"
            + ("" if r.shipped else f", NOT the shipped one: {r.path}")
            for r in self.rulesets
        ]
        lines += [f"{p.said()}: not the auditor's own code" for p in self.plugins]
        lines.append(
            f"fail on {self.fail_on}{' or an anomaly' if self.fail_on_anomaly else ''}; "
            f"statistics {'on' if self.statistics else 'off'}"
        )
        if self.store is not None and self.store.unopened is not None:
            lines.append(
                f"not recorded: store {self.store.store} could not be opened: {self.store.unopened}"
            )
        elif self.store is not None:
            lines.append(  # (written before the night is recorded, which may yet fail: exit 2)
                f"history store {self.store.store}: {self.store.sealed} input(s) sealed before "
                f"this run, head {self.store.head or 'none'}"
            )
            if self.store.damaged:
                lines.append(f"store damaged: {self.store.damaged}")
        return lines


def overlay_changes(o: OverlayUsed) -> str:
    """``: tightens A; adds B; sets parameters of C; gives its own reading of D`` (empty when it
    changes nothing)."""
    parts = [
        f"{verb} {', '.join(ids)}"
        for verb, ids in (
            ("tightens", o.tightened),
            ("adds", o.added),
            ("sets parameters of", o.parameters),
            ("gives its own reading of", o.readings),
        )
        if ids
    ]
    return f": {'; '.join(parts)}" if parts else ""


def ruleset_used(loaded: LoadedRuleset) -> RulesetUsed:
    """A ruleset as the report names it: shipped, or not, and then where it came from. A folder of
    rulesets is the audited party's to give (``--rulesets``, the configuration's ``rulesets``): the
    report says which are not this version's own, whatever their ids."""
    shipped = False
    for folder in shipped_folders():  # the format's and every game's (a plugin's included)
        own = folder / f"{loaded.id}.yaml"
        try:
            shipped = (
                own.is_file() and hashlib.sha256(own.read_bytes()).hexdigest() == loaded.sha256
            )
        except OSError:
            shipped = False
        if shipped:
            break
    return RulesetUsed(
        id=loaded.id,
        sha256=loaded.sha256,
        shipped=shipped,
        path=None if shipped else shown_path(loaded.path),
    )


def shown_path(path: Path | str) -> str:
    """A file as a report names it: relative to the current folder when the two share a folder
    below the file system's root (``../audit.toml``, ``house/casino.yaml``), else as given; with
    ``/`` between folders."""
    given = Path(path)
    try:
        file, here = given.resolve(), Path.cwd().resolve()
        shared = Path(os.path.commonpath([file, here]))
        if shared == Path(shared.anchor):  # only the root in common: the relative path says less
            return given.as_posix()
        return Path(os.path.relpath(file, here)).as_posix()
    except (OSError, ValueError, RuntimeError):  # another drive, no current folder, a loop of links
        return given.as_posix()
