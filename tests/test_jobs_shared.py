"""``--jobs``: the main process replays tasks beside its workers, each process taking the next task
no other has taken, and a worker writes its tables' statistics sums out before it sends them. The
reports are those of one process, byte for byte."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from audit import findings_store
from audit import run as run_module
from audit.engine import surveillance
from audit.reporters import json_report
from audit.rulesets import Library

ROOT = Path(__file__).resolve().parent.parent
NIGHTS = sorted(str(p) for p in (ROOT / "fixtures" / "nights").glob("*.del"))
FORKS = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(),
    reason="a forked worker inherits the spy; a spawned one does not",
)


def test_every_task_is_taken_once_whoever_asks():
    taken = multiprocessing.Value("i", 0)
    got = [run_module._take(taken, 3) for _ in range(5)]
    assert got == [0, 1, 2, None, None]


@FORKS
def test_the_main_process_replays_tasks_beside_its_worker(monkeypatch):
    monkeypatch.setattr(run_module, "usable_cores", lambda: 2)
    library = Library.load()
    library.statistics = True
    one = json_report.render(run_module.run_audit(library, NIGHTS))
    here: list[tuple] = []  # what this process replayed (a worker's own list stays in the worker)
    real = run_module._audit_part

    def spy(library, path, part, *args):
        if os.getpid() == main:
            here.append((path, part))
        return real(library, path, part, *args)

    main = os.getpid()
    monkeypatch.setattr(run_module, "_audit_part", spy)
    for paths in (NIGHTS, NIGHTS[:1]):  # three files, then one file in two parts
        here.clear()
        report = run_module.run_audit(library, paths, jobs=2)
        tasks = run_module._tasks(paths, 2)
        assert here and set(here) <= set(tasks)
        if paths == NIGHTS:
            assert json_report.render(report) == one


def test_a_worker_writes_out_its_tables_sums_before_sending_them(monkeypatch):
    library = Library.load()
    library.statistics = True
    night = str(ROOT / "fixtures" / "nights" / "mixed-night.del")
    monkeypatch.setattr(surveillance, "CHUNK", 3)  # every table of the night holds a chunk
    kept = run_module._audit_part(library, night, None)
    assert run_module._written_out(kept) is kept  # no spill folder open: nothing written
    assert not any(t.surveillance.runs for t in kept.tables.values())
    held = json_report.render(run_module._merge(library, [(night, None)], [kept]))
    with findings_store.spilling():
        sent = run_module._written_out(run_module._audit_part(library, night, None))
        sums = [t.surveillance for t in sent.tables.values()]
        assert sums and all(s.runs and s.held[0] == 0 and not s.records for s in sums)
        assert json_report.render(run_module._merge(library, [(night, None)], [sent])) == held
