"""The cyclic collector while the audit makes many objects that live on: a log's replay, the
statistics' groups, the reports.

A replay frees almost everything by reference counting (an event lives for one line, a round's
objects for one round); the statistics' build and the reports make tens of thousands of groups
and records, each alive until it is written. Left at its defaults, the collector ran every 700
surviving containers and at each full pass scanned the whole heap (grammar, rulesets, models,
every table's sums): about 3 % of a night's audit, and hundreds of passes over a night's groups.
While such work runs, what existed before is frozen out of its scans and it runs less often; it
still runs, so what a closed table leaves in cycles is freed and memory stays flat."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

#: the collector's thresholds meanwhile (Python's defaults: 700, 10, 10)
THRESHOLDS = (20_000, 10, 10)


@contextlib.contextmanager
def seldom() -> Iterator[None]:
    """Within: the collector runs seldom and skips what existed before. After: as it was, even on
    an error (a caller that froze objects itself keeps them frozen, and its own choice)."""
    before, frozen = gc.get_threshold(), gc.get_freeze_count() > 0
    if not frozen:
        gc.freeze()
    gc.set_threshold(*THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
        if not frozen:
            gc.unfreeze()
