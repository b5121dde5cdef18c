"""What ``audit check --verbose`` tells on standard error: what was loaded, what was read, how long it took.

Lines start with ``audit:`` like every message of the auditor and go to
standard error, so that a report on standard output stays as it is. Text
that comes from outside (paths, overlay titles) is escaped for the terminal.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from .escape import for_terminal

if TYPE_CHECKING:
    from .config import Config
    from .rulesets import Library
    from .selection import Selection


class Narrator:
    """Says what the audit does when ``enabled``; says nothing otherwise."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def say(self, text: str) -> None:
        if self.enabled:
            sys.stderr.write(f"audit: {for_terminal(text)}\n")

    @contextmanager
    def timed(self, what: str) -> Iterator[None]:
        """``what`` and the seconds the work inside took, once it is done."""
        start = time.perf_counter()
        yield
        self.say(f"{what} in {time.perf_counter() - start:.2f} s")

    def configuration(self, cfg: Config) -> None:
        self.say(
            f"configuration: {cfg.path}" if cfg.path else "configuration: none found (defaults)"
        )

    def library(self, library: Library) -> None:
        if not self.enabled:
            return
        directory = library.spec.get("directory")
        self.say(f"rulesets from {directory}:" if directory else "rulesets:")
        for rid in sorted(library.rulesets):
            loaded = library.rulesets[rid]
            enabled = sum(1 for r in loaded.model.rules if r.enabled)
            line = f"  {rid} ({loaded.path.name}, sha256 {loaded.sha256[:12]}…): {enabled} rule(s) enabled"
            if loaded.overlay is not None:
                line += f", house overlay {loaded.overlay.model.overlay} ({loaded.overlay.path})"
            self.say(line)
        for pattern, overlay in library.table_overlays:
            self.say(
                f"  house overlay {overlay.model.overlay} ({overlay.path}) over {overlay.model.ruleset} "
                f"at tables {pattern}"
            )

    def selection(self, selection: Selection) -> None:
        if not selection.active:
            return
        kept = selection.kept_rules()
        self.say(
            f"rules reported: {len(kept)} of {len(selection.categories)} "
            f"(select {', '.join(selection.select) or 'all'}; ignore {', '.join(selection.ignore) or 'none'})"
        )

    def inputs(self, files: list[str], jobs: int) -> None:
        self.say(f"inputs: {len(files)} file(s), in {jobs} process(es) at most")
        for name in files:
            self.say(f"  {'<stdin>' if name == '-' else name}")
