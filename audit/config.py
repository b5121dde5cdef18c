"""Project configuration: ``audit.toml``, or ``[tool.audit]`` in ``pyproject.toml``.

Found by searching upwards from the current directory, as ruff and pytest do,
so a nightly job run from anywhere in a repository of logs gets the same
settings. Paths in the file are relative to the file. Command-line options
win over the file. A bad file stops the audit (exit 2) naming file and key.
"""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from . import bounded, nesting
from .findings import Severity
from .reporters import names as report_formats
from .rulesets import Library

#: the registered report formats (audit/reporters), as a type the settings are validated against
if TYPE_CHECKING:  # the registry's names are known at run time only: to a type checker, a text
    ReportFormat: TypeAlias = str
else:
    ReportFormat = Literal[report_formats()]


class ConfigError(Exception):
    """A configuration that cannot be used; the message names file and key."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class ReportOutput(_Strict):
    format: ReportFormat
    output: str | None = None


class Settings(_Strict):
    #: a folder of rulesets used instead of the shipped ones
    rulesets: str | None = None
    #: table id or glob pattern (fnmatch, case-sensitive) -> house overlay file
    house: dict[str, str] = Field(default_factory=dict)
    baseline: str | None = None
    fail_on: Severity | None = Field(default=None, alias="fail-on")
    reports: list[ReportOutput] = Field(default_factory=list)
    #: rule ids, prefixes of ids or categories: only their findings are reported (all when empty)
    select: list[str] = Field(default_factory=list)
    #: rule ids, prefixes of ids or categories whose findings are left out
    ignore: list[str] = Field(default_factory=list)
    #: a Dask scheduler's address or local[:N], as --cluster
    cluster: str | None = None
    #: the history store audit check records into, as --store (docs/history.md)
    store: str | None = None
    #: whether audit check adds the surveillance statistics, as --statistics/--no-statistics (on unless
    #: turned off here or by --no-statistics, docs/statistics.md)
    statistics: bool = True
    #: when a gaming day begins, local time as the log writes it (docs/history.md)
    gaming_day_start: str = Field(
        default="06:00", alias="gaming-day-start", pattern=r"^([01]\d|2[0-3]):[0-5]\d$"
    )


class Config:
    """Settings and the file they came from (paths resolve against its folder), with the SHA-256 of
    the bytes read from it (the report's ``configuration.files``)."""

    def __init__(self, settings: Settings, path: Path | None, sha256: str | None = None):
        self.settings = settings
        self.path = path
        self.sha256 = sha256

    def resolve(self, value: str | None) -> Path | None:
        if value is None:
            return None
        p = Path(value)
        return p if p.is_absolute() or self.path is None else self.path.parent / p

    def library(self, house: list[Path] | None = None, rulesets: Path | None = None) -> Library:
        """The rulesets this configuration audits with, as every command loads them: ``rulesets``
        (the command line's) replaces its folder, ``house`` its overlays. A ``RulesetError`` says
        what is wrong and where."""
        directory = rulesets or self.resolve(self.settings.rulesets)
        if house:
            return Library.load(directory, overlays=house)
        return Library.load(directory, table_overlays=self.table_overlays())

    def table_overlays(self) -> list[tuple[str, Path]]:
        """(table id or pattern, house overlay file) as the configuration pairs them."""
        return [(pattern, self.resolve(file)) for pattern, file in self.settings.house.items()]  # type: ignore[misc]

    def baseline(self) -> Path | None:
        """The configured baseline as seen from here, so reports do not depend on where a checkout lives."""
        path = self.resolve(self.settings.baseline)
        if path is None:
            return None
        try:
            return path.resolve().relative_to(Path.cwd().resolve())
        except ValueError:
            return path


def _read(path: Path, tool_table: bool) -> Config | None:
    """The settings of one file; with ``tool_table`` (a pyproject.toml) those of its [tool.audit] table, None if none."""
    try:
        raw = bounded.read_bytes(
            path, bounded.MAX_CONFIG_BYTES
        )  # read once: the settings and the hash the report gives are of the same bytes
        text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
        nesting.check_depth(text, "toml")  # before tomllib's recursion meets it
        data = tomllib.loads(text)
    except OSError as err:
        raise ConfigError(f"{path}: cannot read: {err.strerror or err}") from None
    except bounded.TooLarge as err:
        raise ConfigError(f"{path}: {err}") from None
    except nesting.ShapeProblem as err:
        raise ConfigError(f"{path}, {err}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: invalid TOML: {err}") from None
    prefix = ""
    if tool_table:
        tool = data.get("tool", {})
        if not isinstance(tool, dict):
            raise ConfigError(f"{path}: tool: a table is expected, not {type(tool).__name__}")
        if "audit" not in tool:
            return None
        data, prefix = tool["audit"], "tool.audit."
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: tool.audit: a table is expected, not {type(data).__name__}")
    try:
        return Config(Settings.model_validate(data), path, hashlib.sha256(raw).hexdigest())
    except ValidationError as err:
        first = err.errors()[0]
        key = prefix + ".".join(str(p) for p in first["loc"])
        msg = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
        raise ConfigError(f"{path}: {key}: {msg}") from None


def discover(start: Path | None = None) -> Config:
    """The nearest ``audit.toml`` or ``pyproject.toml`` with ``[tool.audit]``, or an empty config."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        own = folder / "audit.toml"
        if own.is_file():
            return _read(own, tool_table=False) or Config(Settings(), None)
        project = folder / "pyproject.toml"
        if project.is_file():
            found = _read(project, tool_table=True)
            if found is not None:
                return found
    return Config(Settings(), None)


def load(path: Path) -> Config:
    """An explicit ``--config`` file: ``pyproject.toml`` reads its ``[tool.audit]`` table."""
    if not path.exists():  # a device or a pipe is read too, within the size limit
        raise ConfigError(f"{path}: no such configuration file")
    found = _read(path, tool_table=path.name == "pyproject.toml")
    if found is None:
        raise ConfigError(f"{path}: no [tool.audit] table")
    return found
