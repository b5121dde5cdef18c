"""Reporters turn a finished report into text for people or data for programs.

The registry below is the one list of report formats: the command line's
``--format`` choices and their help, and the names a configuration's
``reports`` accepts, are read from it. A reporter is a module of this package
with a ``render(report) -> str`` (and, for a report that may be large, a
``pieces(report)`` that makes the same text piece by piece, so that it is
written without being held whole); adding a format is that module and one
``register`` line here. Modules are imported when a report is first rendered,
so that start-up does not load rich or the XML library for a JSON report.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import import_module
from importlib.util import find_spec
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..report import Report


@dataclass(frozen=True)
class Reporter:
    """One report format."""

    #: the ``--format`` value and a configuration's ``reports`` ``format``
    name: str
    #: the file suffix a report of this format usually takes (without the dot)
    extension: str
    #: one line for the help
    description: str
    #: the report as the file holds it
    render: Callable[[Report], str]
    #: draws the report on standard output for a person (colours on a terminal); without it the
    #: rendered text is written there as it is, for a program (and no progress bar is drawn meanwhile)
    show: Callable[[Report], None] | None = None
    #: the same text as ``render``, made piece by piece as it is written (None: rendered whole)
    stream: Callable[[Report], Iterable[str]] | None = None
    #: modules the format imports beyond the auditor's own dependencies, and the extra that installs them
    needs: tuple[str, ...] = ()
    extra: str | None = None

    def pieces(self, report: Report) -> Iterable[str]:
        """The report's text in pieces, to write one after another."""
        return self.stream(report) if self.stream is not None else (self.render(report),)

    def missing(self) -> str | None:
        """Why this format cannot be written here (a module it needs is not installed), or None."""
        absent = [module for module in self.needs if find_spec(module) is None]
        if not absent:
            return None
        return (
            f"the {self.name} format needs {', '.join(absent)}, which is not installed: "
            f"pip install 'del-audit[{self.extra}]'"
        )


#: format name -> reporter, in the order the help lists them
REPORTERS: dict[str, Reporter] = {}


def register(reporter: Reporter) -> Reporter:
    """Add a format. The command line's choices and the configuration's names are read when
    ``audit.cli`` and ``audit.config`` are imported: register before (the shipped formats are
    registered below, when this package is imported)."""
    if reporter.name in REPORTERS:
        raise ValueError(f"report format {reporter.name!r} is registered twice")
    REPORTERS[reporter.name] = reporter
    return reporter


def names() -> tuple[str, ...]:
    return tuple(REPORTERS)


def _module_function(module: str, function: str = "render") -> Callable:
    """A function of one of this package's modules, imported at its first call."""

    def call(report: Report):
        return getattr(import_module(f"{__name__}.{module}"), function)(report)

    return call


register(
    Reporter(
        "text",
        "txt",
        "a summary, then the findings by table and round, for a person",
        _module_function("text"),
        show=_module_function("text", "show"),
        stream=_module_function("text", "pieces"),
    )
)
register(
    Reporter(
        "json",
        "json",
        "the JSON report of the findings contract, for programs",
        _module_function("json_report"),
        stream=_module_function("json_report", "pieces"),
    )
)
register(
    Reporter(
        "sarif",
        "sarif",
        "SARIF 2.1.0, for code-scanning views",
        _module_function("sarif"),
        stream=_module_function("sarif", "pieces"),
    )
)
register(
    Reporter(
        "junit",
        "xml",
        "JUnit XML, for the test views of CI servers",
        _module_function("junit"),
        stream=_module_function("junit", "pieces"),
    )
)
register(
    Reporter(
        "github",
        "txt",
        "GitHub Actions workflow commands: annotations on the run, for a CI step's log",
        _module_function("github"),
        stream=_module_function("github", "pieces"),
    )
)
register(
    Reporter(
        "gitlab",
        "json",
        "GitLab Code Quality JSON, for merge requests and the pipeline's Code Quality tab",
        _module_function("gitlab"),
        stream=_module_function("gitlab", "pieces"),
    )
)
register(
    Reporter(
        "html",
        "html",
        "one self-contained HTML page with plots, for the compliance officer (the html extra)",
        _module_function("html"),
        needs=("matplotlib",),
        extra="html",
    )
)
