"""Findings past a threshold are written to disk and the reports read them back merged (issue 15,
item 11): 500,000 malformed lines peaked at 612 MB. Every report is the same byte for byte whether
the findings spilled or not; the spill folder is gone after a run, an error, an interruption; and a
child auditing many malformed lines stays under the memory bound."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit import findings_store, fingerprint, interrupt, selection
from audit import run as run_module
from audit.cli import app
from audit.reporters import REPORTERS

ROOT = Path(__file__).resolve().parent.parent
LOGS = sorted(str(p) for p in (ROOT / "tests" / "golden" / "logs").glob("*.del"))
#: every registered format -> the suffix of its report's file (named after the format: two formats
#: may share an extension)
FORMATS = {name: f"{name}.{r.extension}" for name, r in REPORTERS.items()}
#: the memory bound of docs/report.md, in bytes
BOUND = 200 * 1024 * 1024


@pytest.fixture
def spill_folder(temporary_folder, monkeypatch):
    """Where the spill folders go (checked empty after each test), and a count of merges from disk."""
    folder = temporary_folder
    merges = []
    real = findings_store.merged

    def merged(stores):
        merges.append(len(stores))
        return real(stores)

    monkeypatch.setattr(findings_store, "merged", merged)
    yield folder, merges


def _logs(tmp_path: Path) -> list[str]:
    bad = tmp_path / "malformed.del"
    bad.write_text(
        "".join(f"not an event {n}\nnot an event\n" for n in range(150))
    )  # equal contents too
    return [*LOGS, str(bad)]


def _check(tmp_path: Path, name: str, *args: str) -> tuple[int, dict[str, bytes]]:
    out = tmp_path / name
    out.mkdir()
    paths = [out / f"report.{ext}" for ext in FORMATS.values()]
    options = [o for fmt, path in zip(FORMATS, paths) for o in ("-f", fmt, "-o", str(path))]
    result = CliRunner().invoke(app, ["check", "--no-progress", *options, *args])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, {p.name: p.read_bytes() for p in paths}


@pytest.mark.parametrize(
    "args", [(), ("--jobs", "2"), ("--select", "syntax,FR-"), ("--ignore", "MC-")]
)
def test_every_report_is_the_same_whether_the_findings_spilled_or_not(
    args, tmp_path, monkeypatch, spill_folder
):
    logs = _logs(tmp_path)
    base = tmp_path / "baseline.json"
    CliRunner().invoke(app, ["baseline", "create", "-o", str(base), LOGS[0]])
    args = (*args, "--baseline", str(base), *logs)
    status, kept = _check(tmp_path, "kept", *args)
    assert spill_folder[1] == []
    monkeypatch.setattr(findings_store, "THRESHOLD", 7)
    spilled_status, spilled = _check(tmp_path, "spilled", *args)
    assert spill_folder[1], "the findings did not spill"
    assert spilled_status == status
    for name in kept:
        assert spilled[name] == kept[name], name


def test_a_baseline_made_from_spilled_findings_is_the_same(tmp_path, monkeypatch, spill_folder):
    logs = _logs(tmp_path)
    CliRunner().invoke(app, ["baseline", "create", "-o", str(tmp_path / "kept.json"), *logs])
    monkeypatch.setattr(findings_store, "THRESHOLD", 3)
    CliRunner().invoke(app, ["baseline", "create", "-o", str(tmp_path / "spilled.json"), *logs])
    assert spill_folder[1]
    assert (tmp_path / "spilled.json").read_bytes() == (tmp_path / "kept.json").read_bytes()


def test_the_spill_folder_is_removed_after_an_error(tmp_path, monkeypatch, spill_folder):
    monkeypatch.setattr(findings_store, "THRESHOLD", 3)
    bad_baseline = tmp_path / "baseline.json"
    bad_baseline.write_text("{}")  # read after the audit: exit 2 once the findings spilled
    result = CliRunner().invoke(
        app, ["check", "--no-progress", "--baseline", str(bad_baseline), *_logs(tmp_path)]
    )
    assert result.exit_code == 2 and spill_folder[1]


def test_the_spill_folder_is_removed_after_an_interruption(tmp_path, monkeypatch, spill_folder):
    monkeypatch.setattr(findings_store, "THRESHOLD", 3)

    def stop(self, report):
        raise interrupt.Interrupted(signal.SIGINT)

    monkeypatch.setattr(selection.Selection, "apply", stop)
    with pytest.raises(
        interrupt.Interrupted
    ):  # (the command line's main turns it into "audit: interrupted")
        CliRunner().invoke(app, ["check", "--no-progress", "--jobs", "2", *_logs(tmp_path)])
    assert spill_folder[1]


def test_without_a_spill_folder_the_findings_stay_in_memory(tmp_path, monkeypatch):
    monkeypatch.setattr(findings_store, "THRESHOLD", 3)
    report = run_module.run_audit(run_module.Library.load(), _logs(tmp_path))
    assert isinstance(report.findings, list) and len(report.findings) > 300


#: two logs of malformed lines, one finding each; the child spills past a tenth of a log's findings
#: (as the 20,000 of ``findings_store.THRESHOLD`` are a tenth of 200,000): ten runs on disk each time
LINES = (10_000, 40_000)
#: what the peak may grow by from the short log to the long one: the longer log's findings kept in
#: memory would add about 850 bytes each (30,000 more: some 25 MB); spilled, only the larger
#: in-memory run (3,000 more findings: under 3 MB)
GROWTH = 10 * 1024 * 1024
#: the audit, then its own peak memory: ``ru_maxrss`` of a child (``os.wait4``) keeps the high-water
#: mark of the process it was forked from (Linux carries it over ``exec``), here pytest's, so the
#: child reads its own (``VmHWM``, its memory's since ``exec``)
CHILD = """
import sys
from audit import findings_store
findings_store.THRESHOLD = int(sys.argv.pop(1))
from audit.cli import app
try:
    app(sys.argv[1:], prog_name="audit")
finally:
    with open("/proc/self/status") as status:
        sys.stderr.write(next(line for line in status if line.startswith("VmHWM:")))
"""


def _peak_auditing_malformed_lines(tmp_path: Path, lines: int) -> int:
    """The child's peak memory auditing ``lines`` malformed lines to JSON, every finding reported."""
    log = tmp_path / f"malformed-{lines}.del"
    with log.open("w") as out:
        for n in range(lines):
            out.write(f"garbage {n}\n")
    report = tmp_path / f"report-{lines}.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            str(lines // 10),
            "check",
            "--no-progress",
            "-f",
            "json",
            "-o",
            str(report),
            str(log),
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stderr
    with report.open() as text:
        assert sum(1 for line in text if line.startswith('      "rule": "DEL-')) == lines
    return int(done.stderr.rsplit("VmHWM:", 1)[1].split()[0]) * 1024


@pytest.mark.skipif(
    not os.path.exists("/proc/self/status"), reason="reads the peak memory from /proc"
)
def test_many_malformed_lines_stay_under_the_memory_bound(tmp_path):
    """Four times the malformed lines, spilled in as many runs: the peak stays under the bound and
    barely moves (it would grow by the findings if they were kept)."""
    short, long = (_peak_auditing_malformed_lines(tmp_path, lines) for lines in LINES)
    assert long < BOUND, f"peak {long // 2**20} MB"
    assert long - short < GROWTH, f"peak {short // 2**20} MB, then {long // 2**20} MB"


def test_many_inputs_of_few_findings_each_spill_together(tmp_path, monkeypatch, spill_folder):
    """Each store holds fewer findings than the threshold; together they pass it, and are written out."""
    logs = _logs(tmp_path)
    status, kept = _check(tmp_path, "kept", *logs)
    monkeypatch.setattr(
        findings_store, "THRESHOLD", 320
    )  # above each file's findings (300 at most), below their sum (348)
    spilled_status, spilled = _check(tmp_path, "spilled", *logs)
    assert spill_folder[1] and spilled_status == status and spilled == kept


def test_fingerprints_counted_on_disk_are_those_counted_in_memory(
    tmp_path, monkeypatch, spill_folder
):
    """The plain count (a digest per distinct content, in memory) against the count on disk that
    spilled findings use (digests sorted in runs, numbered, sorted back): the same fingerprints,
    with contents repeated within a run, across runs and across files."""
    findings = list(run_module.run_audit(run_module.Library.load(), _logs(tmp_path)).findings)
    expected = list(fingerprint.fingerprinted(findings))
    assert len({fp for _, fp in expected}) == len(expected)  # repeated contents told apart
    assert len({fingerprint.content(f) for f in findings}) < len(findings) - 100
    monkeypatch.setattr(findings_store, "THRESHOLD", 7)
    with findings_store.spilling():
        store = findings_store.FindingStore()
        for f in findings:
            store.append(f)
        spilled = findings_store.merged([store])
        assert len(spilled.runs) > 10
        assert list(spilled.pairs()) == expected
        assert list(spilled.where(lambda f, fp: f.rule != "DEL-SYNTAX").pairs()) == [
            (f, fp) for f, fp in expected if f.rule != "DEL-SYNTAX"
        ]
        assert list(spilled.fingerprints) == [fp for _, fp in expected]
