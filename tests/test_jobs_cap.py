"""``--jobs`` is capped at the usable cores and at the tasks (issue 15, item 10): ``--jobs 64`` on
two cores started 64 processes, each reading the whole file, and ran 14 times slower."""

from __future__ import annotations

import multiprocessing.context
from pathlib import Path

import pytest

from audit import run as run_module
from audit.reporters import json_report
from audit.rulesets import Library

ROOT = Path(__file__).resolve().parent.parent
NIGHTS = sorted(str(p) for p in (ROOT / "fixtures" / "nights").glob("*.del"))


@pytest.fixture
def pools(monkeypatch):
    """The number of processes of each pool the audit starts."""
    started: list[int] = []
    real = multiprocessing.context.BaseContext.Pool

    def pool(self, processes=None, *args, **kwargs):
        started.append(processes)
        return real(self, processes, *args, **kwargs)

    monkeypatch.setattr(multiprocessing.context.BaseContext, "Pool", pool)
    return started


@pytest.mark.parametrize("cores", [1, 2])
def test_jobs_are_capped_at_the_cores_and_the_tasks(cores, pools, monkeypatch):
    assert len(NIGHTS) >= 3
    monkeypatch.setattr(run_module, "usable_cores", lambda: cores)
    library = Library.load()
    one = json_report.render(run_module.run_audit(library, NIGHTS[:1]))
    many = json_report.render(run_module.run_audit(library, NIGHTS))
    # one file, split by tables: in as many parts as cores, not 64
    tasks = []
    real_tasks = run_module._tasks
    monkeypatch.setattr(
        run_module, "_tasks", lambda files, jobs: tasks.append(jobs) or real_tasks(files, jobs)
    )
    assert json_report.render(run_module.run_audit(library, NIGHTS[:1], jobs=64)) == one
    assert json_report.render(run_module.run_audit(library, NIGHTS, jobs=64)) == many
    assert tasks == [cores, cores]
    # as many processes as cores: this one replays tasks too, beside a pool of the others
    assert pools == ([] if cores == 1 else [cores - 1, cores - 1])


def test_the_usable_cores_are_those_this_process_may_run_on():
    import os

    cores = run_module.usable_cores()
    assert 1 <= cores <= (os.cpu_count() or 1)
    if hasattr(os, "sched_getaffinity"):
        assert cores == len(os.sched_getaffinity(0))
