"""No line lost, no silent partial read: an input that gives its bytes once (a FIFO, standard
input, a process substitution, a device) is read once whatever --jobs; a file that changes while
it is read, or between the parts of --jobs, is refused; the history records the bytes audited."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from datetime import datetime
from pathlib import Path

import pytest

from audit import simulate as sim
from audit.cluster import Cluster, ClusterError
from audit.history.recording import Recorder
from audit.resources import rulesets_dir
from audit.rulesets import Library
from audit.run import _audit_part, _merge, _tasks, run_audit
from audit.stream import inputs
from audit.stream.inputs import InputError, audit_input

ROOT = Path(__file__).resolve().parent.parent
START = datetime.fromisoformat("2026-11-20T21:00:00+01:00")


def audit(*args: str, cwd: Path, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "audit", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=300,
        **kw,
    )


def night_text(seed: int = 5, start: datetime = START) -> str:
    specs = sim.cli_tables(["fr-bataille-2007", "mc-sun-war-2006", "be-ostende-cdf"], 4, 25)
    return "".join(line + "\n" for line in sim.simulate(tables=specs, seed=seed, start=start))


@pytest.fixture(scope="module")
def library() -> Library:
    return Library.load(rulesets_dir())


@pytest.fixture
def night(tmp_path) -> Path:
    path = tmp_path / "night.del"
    path.write_text(night_text(), encoding="utf-8")
    return path


def report_of(folder: Path, name: str, shown_as: str, replace_with: str) -> dict:
    """A JSON report, the input's name as shown replaced by another (to compare two runs)."""
    text = (folder / name).read_text(encoding="utf-8")
    return json.loads(text.replace(json.dumps(shown_as)[1:-1], replace_with))


def _feed(path: str, data: bytes) -> threading.Thread:
    """A writer that opens the FIFO (waiting for its reader), writes ``data`` and closes it."""

    def write() -> None:
        with open(path, "wb") as out:
            out.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return writer


# -- read once ---------------------------------------------------------------------------------


def test_a_fifo_with_jobs_gives_the_report_of_the_file(tmp_path, night):
    """Split by --jobs, each part opened the FIFO again: the first took the night, the other
    found it empty (or a part of it), and the report passed for a whole one."""
    assert audit("check", "-f", "json", "-o", "file.json", str(night), cwd=tmp_path).returncode == 0
    fifo = tmp_path / "pipe.del"
    os.mkfifo(fifo)
    writer = _feed(str(fifo), night.read_bytes())
    done = audit("check", "--jobs", "2", "-f", "json", "-o", "fifo.json", str(fifo), cwd=tmp_path)
    writer.join(10)
    assert done.returncode == 0, done.stderr
    expected = report_of(tmp_path, "file.json", str(night), "X")
    assert report_of(tmp_path, "fifo.json", str(fifo), "X") == expected
    assert expected["inputs"][0]["size"] == night.stat().st_size


def test_standard_input_with_jobs_gives_the_report_of_the_file(tmp_path, night):
    assert audit("check", "-f", "json", "-o", "file.json", str(night), cwd=tmp_path).returncode == 0
    done = audit(
        "check",
        "-j",
        "2",
        "-f",
        "json",
        "-o",
        "stdin.json",
        "-",
        cwd=tmp_path,
        input=night.read_bytes(),
    )
    assert done.returncode == 0, done.stderr
    assert report_of(tmp_path, "stdin.json", "<stdin>", "X") == report_of(
        tmp_path, "file.json", str(night), "X"
    )


def test_a_process_substitution_with_jobs_is_read_once(tmp_path, night):
    """``audit check -j 2 <(zcat night.del.gz)``: the shell gives ``/dev/fd/N``, a pipe."""
    assert audit("check", "-f", "json", "-o", "file.json", str(night), cwd=tmp_path).returncode == 0
    read_end, write_end = os.pipe()
    data = night.read_bytes()

    def write() -> None:
        with os.fdopen(write_end, "wb") as out:
            out.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        shown = f"/dev/fd/{read_end}"
        done = audit(
            "check",
            "-j",
            "2",
            "-f",
            "json",
            "-o",
            "sub.json",
            shown,
            cwd=tmp_path,
            pass_fds=(read_end,),
        )
    finally:
        os.close(read_end)
        writer.join(10)
    assert done.returncode == 0, done.stderr
    assert report_of(tmp_path, "sub.json", shown, "X") == report_of(
        tmp_path, "file.json", str(night), "X"
    )


def test_only_regular_files_are_split(tmp_path, night):
    fifo = tmp_path / "pipe.del"
    os.mkfifo(fifo)
    assert _tasks([str(night)], 3) == [(str(night), (k, 3)) for k in range(3)]
    assert _tasks([str(fifo)], 3) == [(str(fifo), None)]
    assert _tasks(["/dev/null"], 2) == [("/dev/null", None)]
    assert _tasks(["-"], 2) == [("-", None)]
    link = tmp_path / "link.del"
    link.symlink_to(fifo)
    assert _tasks([str(link), str(night)], 3) == [(str(link), None)] + [
        (str(night), (k, 3)) for k in range(3)
    ]


def test_a_part_of_an_input_read_once_is_refused(library):
    """Should a path become a device between the choice of the tasks and the read of a part."""
    with pytest.raises(InputError, match="not a regular file"):
        audit_input(library, "/dev/null", (1, 2))


def test_the_cluster_refuses_an_input_read_once(tmp_path, library):
    fifo = tmp_path / "pipe.del"
    os.mkfifo(fifo)
    with pytest.raises(ClusterError, match=r"pipe\.del is not a regular file"):
        Cluster("local:1").run(library, [str(fifo)], None)


def test_the_cluster_refusal_is_one_line_and_exit_2(tmp_path):
    fifo = tmp_path / "pipe.del"
    os.mkfifo(fifo)
    done = audit("check", "--cluster", "local:1", str(fifo), cwd=tmp_path, text=True)
    assert done.returncode == 2
    assert done.stderr.startswith("audit: --cluster: ") and done.stderr.count("\n") == 1, (
        done.stderr
    )


# -- a file that changes while it is read ----------------------------------------------------


def _after_first_read(monkeypatch, action) -> None:
    """``action(path)`` once, just after the first bytes of a file are read (and hashed)."""
    real = inputs._Hashing.readinto
    done: list[bool] = []

    def readinto(self, buffer):
        n = real(self, buffer)
        if not done and n:
            done.append(True)
            action(self.raw.name)
        return n

    monkeypatch.setattr(inputs._Hashing, "readinto", readinto)


def test_a_file_that_grows_while_it_is_read_is_refused(monkeypatch, library, night):
    size = night.stat().st_size

    line = "2026-11-21T03:00:00.000+01:00 FR-01 DEALER id=D0001\n"

    def append(path: str) -> None:
        with open(path, "a", encoding="utf-8") as out:
            out.write(line * 3)

    _after_first_read(monkeypatch, append)
    with pytest.raises(
        InputError,
        match=rf"night.del: changed while it was read \(size {size} then {size + 3 * len(line)}\); "
        "audit it again once it is complete",
    ):
        run_audit(library, [str(night)])


def test_a_file_that_shrinks_while_it_is_read_is_refused(monkeypatch, library, night):
    _after_first_read(monkeypatch, lambda path: os.truncate(path, 100))
    with pytest.raises(InputError, match="changed while it was read"):
        run_audit(library, [str(night)])


def test_a_file_written_at_the_same_size_while_it_is_read_is_refused(monkeypatch, library, night):
    def overwrite(path: str) -> None:
        with open(path, "r+b") as out:
            out.seek(0)
            out.write(b"#")

    _after_first_read(monkeypatch, overwrite)
    with pytest.raises(InputError, match="changed while it was read"):
        run_audit(library, [str(night)])


def test_a_growing_file_is_refused_on_the_command_line(tmp_path, night):
    script = tmp_path / "patched.py"
    script.write_text(
        "from audit.stream import inputs\n"
        "real = inputs._Hashing.readinto\n"
        "def readinto(self, buffer):\n"
        "    n = real(self, buffer)\n"
        "    if n and not getattr(self, 'grown', False):\n"
        "        self.grown = True\n"
        "        with open(self.raw.name, 'a') as out:\n"
        "            out.write('# one more line\\n')\n"
        "    return n\n"
        "inputs._Hashing.readinto = readinto\n"
        "from audit.cli import main\nmain()\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(script), "check", "-f", "json", "-o", "r.json", str(night)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2
    assert (
        done.stderr.startswith("audit: ")
        and done.stderr.count("\n") == 1
        and "changed while it was read" in done.stderr
    )
    assert not (tmp_path / "r.json").exists()


def test_a_gzip_log_is_read_whole_and_accepted(tmp_path, library, night):
    """The check compares the bytes read with the file's size: a compressed log's are its own."""
    import gzip

    packed = tmp_path / "night.del.gz"
    packed.write_bytes(gzip.compress(night.read_bytes(), mtime=0))
    report = run_audit(library, [str(packed)])
    assert report.inputs[0].size == packed.stat().st_size


@pytest.mark.parametrize("same_size", [False, True])
def test_a_file_replaced_between_the_parts_of_jobs_is_refused(tmp_path, library, night, same_size):
    """Each part of --jobs reads the whole file: one that read another file than the first
    would merge two nights' tables into one report."""
    other = tmp_path / "other.del"
    text = night.read_text(encoding="utf-8")
    other.write_text(
        text.replace("D0", "D9", 1) if same_size else text + "# a late line\n", encoding="utf-8"
    )
    assert (other.stat().st_size == night.stat().st_size) is same_size
    tasks = _tasks([str(night)], 2)
    first = _audit_part(library, *tasks[0])
    os.replace(other, night)
    second = _audit_part(library, *tasks[1])
    with pytest.raises(InputError, match=r"night\.del: changed while it was read"):
        _merge(library, tasks, [first, second])


def test_the_parts_of_an_unchanged_file_agree(library, night):
    tasks = _tasks([str(night)], 2)
    results = [_audit_part(library, *task) for task in tasks]
    assert results[0].summary.sha256 == results[1].summary.sha256
    assert _merge(library, tasks, results).inputs[0].size == night.stat().st_size


# -- the history records the bytes audited ----------------------------------------------------


def test_the_history_records_the_night_audited_even_once_moved(tmp_path, library, night):
    """The first event's time (the gaming day) came from reading the path again after the
    audit: a moved log was recorded without a day, a replaced one with another night's."""
    import hashlib

    from sqlalchemy import select

    from audit.history import schema

    library.statistics = True
    try:
        report = run_audit(library, [str(night)])
    finally:
        library.statistics = False
    audited = night.read_bytes()
    night.rename(tmp_path / "moved.del")
    night.write_text(
        night_text(seed=9, start=datetime.fromisoformat("2026-12-24T21:00:00+01:00")),
        encoding="utf-8",
    )
    store = tmp_path / "hist.sqlite"
    recorder = Recorder.open(str(store), None, [str(night)], "06:00")
    try:
        recorder.record(report)
        with recorder.store.engine.connect() as conn:
            row = conn.execute(select(schema.inputs)).mappings().one()
    finally:
        recorder.store.dispose()
    assert row["sha256"] == hashlib.sha256(audited).hexdigest()
    assert row["size"] == len(audited)
    assert row["first_event"].startswith("2026-11-20T21:00")
    assert str(row["gaming_day"]) == "2026-11-20"


def test_the_first_event_time_is_that_of_the_first_event_line():
    lines = [
        "#DEL 1",
        "# a comment",
        "",
        "not a time FR-01 OPEN",
        "2026-11-20T21:00:00.5+01:00 FR-01 OPEN game=bataille",
    ]
    replay = type(
        "Replay",
        (),
        {
            "feed_chunk": lambda self, ls, n: n + len(ls),
            "too_long": lambda self, n, length, head: n,
        },
    )()
    first = inputs.FirstStamp()
    import io

    inputs.feed_lines(io.BufferedReader(io.BytesIO("\n".join(lines).encode())), replay, None, first)  # type: ignore[arg-type]
    assert first.stamp == "2026-11-20T21:00:00.5+01:00"
