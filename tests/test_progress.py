"""The progress bar under ``--jobs``: the workers tell the bytes they read as they read them, so the
bar moves while the parts of one file are replayed, not only when a part ends."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
from pathlib import Path

import pytest

from audit import run
from audit.rulesets import Library
from audit.stream.inputs import CHUNK_BYTES

ROOT = Path(__file__).resolve().parent.parent


class SlowResults:
    """A pool's result iterator whose first result comes only after ``waits`` time-outs, during
    which the workers read ``per_wait`` bytes each time."""

    def __init__(self, results, read, waits: int, per_wait: int) -> None:
        self.results, self.read, self.waits, self.per_wait = list(results), read, waits, per_wait

    def next(self, timeout=None):
        if self.waits:
            self.waits -= 1
            self.read.value += self.per_wait
            raise multiprocessing.TimeoutError
        return self.results.pop(0)


def test_the_bar_moves_while_the_main_process_waits_for_a_part():
    read = multiprocessing.Value("q", 0)
    told: list[int] = []
    out = run._collect(
        SlowResults(["part 0", "part 1"], read, waits=3, per_wait=100), 2, read, told.append, poll=0
    )
    assert out == ["part 0", "part 1"]
    assert told == [100, 100, 100]  # three advances before the first part came back


def test_a_worker_counts_its_share_of_a_split_file():
    read = multiprocessing.Value("q", 0)
    run._WORKER_READ = read
    try:
        assert run._worker_tick(("night.del", None)) is not None
        run._worker_tick(("night.del", None))(1000)
        run._worker_tick(("night.del", (1, 4)))(
            1000
        )  # each of 4 parts reads the whole file: a quarter
        assert read.value == 1250
        run._WORKER_READ = None
        assert run._worker_tick(("night.del", (0, 2))) is None  # no bar: nothing counted
    finally:
        run._WORKER_READ = None


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="the pool forks here"
)
def test_two_jobs_on_one_file_tell_every_byte_once(tmp_path):
    log = tmp_path / "night.del"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "audit.simulate",
            "--tables",
            "4",
            "--rounds",
            "700",
            "--seed",
            "3",
            "-o",
            str(log),
        ],
        check=True,
        cwd=ROOT,
    )
    assert log.stat().st_size > 2 * CHUNK_BYTES  # several chunks: several ticks from each worker
    told: list[int] = []
    run.run_audit(Library.load(), [str(log)], jobs=2, progress=told.append)
    size = log.stat().st_size
    assert len(told) >= 1
    # each worker's chunks are counted at half: at most one byte lost per chunk and worker
    assert size - 2 * (size // CHUNK_BYTES + 2) <= sum(told) <= size
