"""The build's merge of a table's written runs holds a few records of each, not a chunk of a hundred:
a long log's tables have up to MAX_RUNS - 1 runs each, all open at once while the groups are made."""

from __future__ import annotations

import tracemalloc
from decimal import Decimal

from audit import findings_store
from audit.engine import surveillance
from audit.engine.surveillance import Surveillance

#: what the merge may hold of one run once it has started (records of one player: about 1.3 KB each)
PER_RUN = 60_000


def _table_with_runs(runs: int) -> Surveillance:
    """A table whose players' sums were written out ``runs`` times (300 players each time)."""
    table = Surveillance("T1", house_banked=True)
    for run in range(runs):
        for n in range(300):
            table.begin, table.end = (n, "2026-11-20T21:00:00Z"), (n + 1, "2026-11-20T21:00:05Z")
            player = f"P{run}-{n}"
            table.add_round("D1", {player: ("bet", Decimal(10), Decimal(-10))}, None)
        table.spill()
    return table


def test_the_merge_holds_a_few_records_of_each_run():
    with findings_store.spilling():
        table = _table_with_runs(surveillance.MAX_RUNS - 1)
        runs = len(table.runs)
        assert runs == surveillance.MAX_RUNS - 1
        tracemalloc.start()
        try:
            merged = table.records_in_order()
            next(merged)  # every run's first chunk read
            held, _ = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        table.release()
    assert held < PER_RUN * runs, held
