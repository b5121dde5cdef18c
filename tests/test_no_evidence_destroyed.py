"""No output replaces evidence: the logs, the history store (however named), the configuration, a
baseline, an overlay, a ruleset; and every CSV is safe to open in a spreadsheet."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from in_process import audit as audit_here

from audit.history.formats import csv_cell, render
from audit.history.views import View

ROOT = Path(__file__).resolve().parent.parent
THREE = ROOT / "fixtures" / "acceptance" / "three-breaches.del"


def audit(*args: str, cwd: Path, stdin=None) -> subprocess.CompletedProcess:
    """The command line run from ``cwd``: in this process (tests/in_process.py), or, with a file
    as its standard input (which the command compares with its outputs), in a child."""
    if stdin is None:
        return audit_here(*args, cwd=cwd)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "audit", *args],
        cwd=cwd,
        env=env,
        stdin=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def refused(done: subprocess.CompletedProcess, *words: str) -> bool:
    return (
        done.returncode == 2
        and done.stderr.startswith("audit: ")
        and done.stderr.count("\n") == 1
        and "Traceback" not in done.stderr
        and all(w in done.stderr for w in words)
    )


@pytest.fixture
def night(tmp_path) -> Path:
    path = tmp_path / "night.del"
    path.write_bytes(THREE.read_bytes())
    return path


@pytest.fixture
def store(tmp_path, night) -> Path:
    """A store holding one recorded night."""
    done = audit("check", "-q", "--store", "hist.sqlite", str(night), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    path = tmp_path / "hist.sqlite"
    assert path.read_bytes().startswith(b"SQLite format 3\x00")
    return path


# -- the history store ------------------------------------------------------------------------


@pytest.mark.parametrize("named", ["hist.sqlite", "sqlite:///hist.sqlite", "./sub/../hist.sqlite"])
def test_a_report_never_replaces_the_store_of_the_run(tmp_path, night, store, named):
    (tmp_path / "sub").mkdir()
    before = store.read_bytes()
    done = audit(
        "check", "--store", named, "-f", "json", "-o", "hist.sqlite", str(night), cwd=tmp_path
    )
    assert refused(done, "hist.sqlite"), done.stderr
    assert store.read_bytes() == before


def test_the_store_of_the_configuration_is_kept_too(tmp_path, night, store):
    (tmp_path / "audit.toml").write_text('store = "hist.sqlite"\n', encoding="utf-8")
    before = store.read_bytes()
    for target in ("hist.sqlite", "hist.sqlite-wal"):
        done = audit("check", "-f", "json", "-o", target, str(night), cwd=tmp_path)
        assert refused(done, target), done.stderr
    assert store.read_bytes() == before and not (tmp_path / "hist.sqlite-wal").exists()


def test_a_link_to_the_store_is_the_store(tmp_path, night, store):
    os.link(store, tmp_path / "hard.json")
    (tmp_path / "soft.json").symlink_to(store)
    before = store.read_bytes()
    for target in ("hard.json", "soft.json"):
        done = audit("check", "--store", "hist.sqlite", "-o", target, str(night), cwd=tmp_path)
        assert refused(done), done.stderr
    assert store.read_bytes() == before


def test_a_store_not_named_is_never_replaced_either(tmp_path, night, store):
    """Last month's store, say: known by its content."""
    before = store.read_bytes()
    done = audit("check", "-f", "json", "-o", "hist.sqlite", str(night), cwd=tmp_path)
    assert refused(done, "SQLite database"), done.stderr
    assert store.read_bytes() == before


def test_a_new_store_given_as_the_output_is_refused_before_it_is_made(tmp_path, night):
    done = audit(
        "check", "--store", "new.sqlite", "-f", "json", "-o", "new.sqlite", str(night), cwd=tmp_path
    )
    assert refused(done, "new.sqlite"), done.stderr
    assert not (tmp_path / "new.sqlite").exists()


def test_other_commands_keep_the_configured_store_and_baseline(tmp_path, night, store):
    (tmp_path / "audit.toml").write_text(
        'store = "hist.sqlite"\nbaseline = "accepted.yaml"\n', encoding="utf-8"
    )
    assert (
        audit("baseline", "create", "-o", "accepted.yaml", str(night), cwd=tmp_path).returncode == 0
    )
    accepted = (tmp_path / "accepted.yaml").read_bytes()
    before = store.read_bytes()
    assert refused(audit("baseline", "create", "-o", "hist.sqlite", str(night), cwd=tmp_path))
    assert refused(audit("rules", "-o", "hist.sqlite", cwd=tmp_path))
    assert refused(audit("rules", "-o", "accepted.yaml", cwd=tmp_path))
    assert refused(audit("rules", "-o", "audit.toml", cwd=tmp_path))
    assert store.read_bytes() == before and (tmp_path / "accepted.yaml").read_bytes() == accepted
    # the baseline itself may be written again: that is what baseline create is for
    assert (
        audit("baseline", "create", "-o", "accepted.yaml", str(night), cwd=tmp_path).returncode == 0
    )


# -- logs --------------------------------------------------------------------------------------


def test_standard_input_redirected_from_a_log_is_an_input(tmp_path, night):
    before = night.read_bytes()
    with open(night, "rb") as fed:
        done = audit("check", "-f", "json", "-o", "night.del", "-", cwd=tmp_path, stdin=fed)
    assert refused(done, "standard input"), done.stderr
    assert night.read_bytes() == before
    with open(night, "rb") as fed:  # a report beside it is written as ever
        assert (
            audit("check", "-f", "json", "-o", "r.json", "-", cwd=tmp_path, stdin=fed).returncode
            == 1
        )
    with open(os.devnull, "rb") as fed:
        assert (
            audit("check", "-f", "json", "-o", os.devnull, "-", cwd=tmp_path, stdin=fed).returncode
            == 0
        )


def test_a_log_of_another_night_is_never_replaced(tmp_path, night):
    """Yesterday's log, not an input of tonight's run: known by its headers or first event."""
    yesterday = tmp_path / "yesterday.del"
    yesterday.write_bytes(night.read_bytes())
    headerless = tmp_path / "plain.log"
    headerless.write_bytes(
        b"\n".join(line for line in night.read_bytes().split(b"\n") if not line.startswith(b"#"))
    )
    archive = tmp_path / "old.del.gz"
    archive.write_bytes(gzip.compress(night.read_bytes()))
    for target in (yesterday, headerless, archive):
        before = target.read_bytes()
        done = audit("check", "-f", "json", "-o", target.name, str(night), cwd=tmp_path)
        assert refused(done, target.name), done.stderr
        assert target.read_bytes() == before


# -- audit simulate ------------------------------------------------------------------------------

SIM = ("simulate", "-r", "fr-bataille-2007", "--rounds", "3")


def test_simulate_writes_again_a_simulated_log_but_no_evidence(tmp_path, night, store):
    assert audit(*SIM, "-o", "sim.del", cwd=tmp_path).returncode == 0
    assert (
        audit(*SIM, "--seed", "2", "-o", "sim.del", cwd=tmp_path).returncode == 0
    )  # a simulation, again
    (tmp_path / "audit.toml").write_text('store = "other.sqlite"\n', encoding="utf-8")
    kept = {p: p.read_bytes() for p in (night, store, tmp_path / "audit.toml")}
    for target in (night, store, tmp_path / "audit.toml"):
        assert refused(audit(*SIM, "-o", target.name, cwd=tmp_path)), target
        assert refused(
            audit(
                *SIM,
                "--inject",
                "wrong-payout",
                "-o",
                "x.del",
                "--expected",
                target.name,
                cwd=tmp_path,
            )
        )
    assert refused(
        audit(*SIM, "--inject", "wrong-payout", "-o", "x.del", "--expected", "x.del", cwd=tmp_path)
    )
    assert all(p.read_bytes() == b for p, b in kept.items())
    folder = tmp_path / "tables"
    folder.mkdir()
    (folder / "FR-01.del").symlink_to(night)
    assert refused(audit(*SIM, "--per-table", "tables", cwd=tmp_path), "FR-01.del")
    assert night.read_bytes() == kept[night]


def test_simulate_replaces_its_output_whole_or_not_at_all(tmp_path):
    """A simulation that fails half-way leaves the previous log as it was."""
    assert audit(*SIM, "-o", "sim.del", cwd=tmp_path).returncode == 0
    before = (tmp_path / "sim.del").read_bytes()
    script = tmp_path / "patched.py"
    script.write_text(
        "import audit.simulate as sim\n"
        "def broken(**kw):\n"
        "    yield '#DEL 1'\n"
        "    raise OSError(28, 'No space left on device')\n"
        "sim.simulate = broken\n"
        "from audit.cli import main\nmain()\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(script), *SIM, "-o", "sim.del"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2 and "No space left" in done.stderr, done.stderr
    assert (tmp_path / "sim.del").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["patched.py", "sim.del"]


def test_trace_never_replaces_what_it_reads(tmp_path, monkeypatch, capsys):
    from audit import trace

    sentences = tmp_path / "sentences"
    sentences.mkdir()
    for source in trace.sentences_dir().glob("*.yaml"):
        (sentences / source.name).write_bytes(source.read_bytes())
    monkeypatch.setattr(trace, "sentences_dir", lambda: sentences)
    target = next(sentences.glob("*.yaml"))
    before = target.read_bytes()
    assert trace.run(target, check=False) == 2
    assert "is an input of this run" in capsys.readouterr().err
    assert target.read_bytes() == before


# -- CSV for a spreadsheet -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '=HYPERLINK("http://x","y")',
        "+1+1",
        "-2+3",
        "@SUM(A1:A2)",
        "\t=1",
        "\r=1",
        "=cmd|' /C calc'!A0",
    ],
)
def test_a_formula_written_in_a_log_is_text_in_a_spreadsheet(text):
    cell = csv_cell(text, text)
    assert cell.startswith("\"'") and cell.endswith('"')
    assert cell[2:-1].replace('""', '"') == text


@pytest.mark.parametrize(
    "value, shown",
    [
        (Decimal("-40.00"), "-40.00"),
        (-3, "-3"),
        (-1.5e-05, "-1.5e-05"),
        ("-40.00", "-40.00"),
        ("12", "12"),
        (None, ""),
        ("D-01", "D-01"),
        ("a,b", '"a,b"'),
    ],
)
def test_numbers_stay_numbers(value, shown):
    assert csv_cell(value if not isinstance(value, Decimal) else format(value, "f"), value) == shown


def test_a_history_view_in_csv_neutralises_the_casinos_names():
    view = View(
        ["dealer", "table", "result", "path"],
        [
            {"dealer": "=1+2", "table": "@T", "result": Decimal("-40"), "path": "-x.del"},
            {
                "dealer": "D0001",
                "table": "FR-01",
                "result": Decimal("12.5"),
                "path": "nights/a.del",
            },
        ],
    )
    assert render(view, "csv") == (
        "dealer,table,result,path\n"
        '"\'=1+2","\'@T",-40.00,"\'-x.del"\n'
        "D0001,FR-01,12.50,nights/a.del\n"
    )
