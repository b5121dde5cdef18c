"""`audit simulate`: rule-abiding nights for every ruleset, deterministic, and known faults on request."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit.cli import app
from fixtures import read_fixture

ROOT = Path(__file__).resolve().parent.parent
FR, MC, CDF = "fr-bataille-2007", "mc-sun-war-2006", "be-ostende-cdf"
CATEGORIES = [
    "syntax",
    "log-integrity",
    "late-bet",
    "bet-limit",
    "missed-burn",
    "extra-burn",
    "deal-order",
    "wrong-payout",
    "pay-order",
    "shoe",
    "table",
    "drawing",
    "procedure",
]
#: the categories of the findings contract that each ruleset's tables can break
APPLY = {
    FR: set(CATEGORIES) - {"drawing"},
    MC: set(CATEGORIES) - {"drawing", "pay-order"},
    CDF: set(CATEGORIES) - {"missed-burn", "extra-burn"},
}


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


def audit(*args: str) -> Done:
    """The installed command line, in a process of its own."""
    done = subprocess.run(
        [sys.executable, "-m", "audit", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return Done(done.returncode, done.stdout, done.stderr)


def run(*args: str) -> Done:
    """The same command line in this process (faster: no start-up), standard error apart."""
    try:
        runner = CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        runner = CliRunner()
    result = runner.invoke(app, list(args), catch_exceptions=False)
    return Done(result.exit_code, result.stdout, result.stderr)


def simulate(
    *rulesets: str, rounds: int = 40, seed: int = 1, extra: tuple[str, ...] = ()
) -> list[str]:
    return [
        "simulate",
        *(a for r in rulesets for a in ("--ruleset", r)),
        "--tables",
        str(2 * len(rulesets)),
        "--rounds",
        str(rounds),
        "--seed",
        str(seed),
        *extra,
    ]


def check_json(path: Path) -> tuple[int, dict]:
    done = audit("check", "--format", "json", str(path))
    return done.returncode, json.loads(done.stdout)


@pytest.mark.parametrize(
    "rulesets", [(FR,), (MC,), (CDF,), (FR, MC, CDF)], ids=["fr", "mc", "cdf", "mixed"]
)
def test_a_simulated_night_audits_clean(tmp_path, rulesets):
    log = tmp_path / "night.del"
    done = run(*simulate(*rulesets, seed=11, extra=("--output", str(log))))
    assert done.returncode == 0, done.stderr
    code, report = check_json(log)
    assert (code, report["findings"]) == (0, [])
    assert report["summary"]["tables"] == 2 * len(rulesets)
    assert report["summary"]["rounds"] == 2 * len(rulesets) * 40
    assert {t["ruleset"] for t in report["table_summaries"]} == set(rulesets)


def test_tables_are_interleaved_round_robin(tmp_path):
    done = run(*simulate(FR, MC, CDF, rounds=3, seed=5))
    opened = [line.split()[1] for line in done.stdout.splitlines() if " OPEN " in line]
    assert opened == ["FR-01", "MC-01", "CDF-01", "FR-02", "MC-02", "CDF-02"]
    events = [line.split()[1] for line in done.stdout.splitlines() if not line.startswith("#")]
    switches = sum(1 for a, b in itertools.pairwise(events) if a != b)
    assert switches > len(events) // 4  # the tables' lines are mixed, not one table after the other


@pytest.mark.parametrize("inject", [(), ("--inject", "all")], ids=["clean", "injected"])
def test_same_seed_same_bytes_other_seed_other_log(inject):
    first = run(*simulate(FR, CDF, rounds=30, seed=7, extra=inject))
    again = run(*simulate(FR, CDF, rounds=30, seed=7, extra=inject))
    other = run(*simulate(FR, CDF, rounds=30, seed=8, extra=inject))
    assert first.returncode == again.returncode == other.returncode == 0, (
        first.stderr + other.stderr
    )
    assert first.stdout == again.stdout
    assert first.stdout != other.stdout


@pytest.mark.parametrize(
    "rulesets", [(FR,), (MC,), (CDF,), (FR, MC, CDF)], ids=["fr", "mc", "cdf", "mixed"]
)
def test_injected_faults_give_exactly_the_expected_findings(tmp_path, rulesets):
    log, expected = tmp_path / "faulty.del", tmp_path / "expected.json"
    done = run(
        *simulate(
            *rulesets,
            rounds=60,
            seed=3,
            extra=("--inject", "all", "--output", str(log), "--expected", str(expected)),
        )
    )
    assert done.returncode == 0, done.stderr
    want = json.loads(expected.read_text(encoding="utf-8"))
    assert [e["line"] for e in want] == sorted(e["line"] for e in want)
    code, report = check_json(log)
    assert code == 1
    got = sorted((f["rule"], f["line"]) for f in report["findings"])
    assert got == sorted((e["rule"], e["line"]) for e in want)
    assert sorted(
        (f["rule"], f["line"], f["category"], f["table"]) for f in report["findings"]
    ) == sorted((e["rule"], e["line"], e["category"], e["table"]) for e in want)
    # one fault of every category the tables' rulesets have, and the log is a fixture
    assert {e["category"] for e in want} == set().union(*(APPLY[r] for r in rulesets))
    assert read_fixture(log).expected == got


def test_inject_some_categories_only(tmp_path):
    expected = tmp_path / "expected.json"
    done = run(
        *simulate(
            MC,
            extra=("--inject", "late-bet", "--inject", "missed-burn", "--expected", str(expected)),
        )
    )
    assert done.returncode == 0, done.stderr
    want = json.loads(expected.read_text(encoding="utf-8"))
    assert sorted(e["category"] for e in want) == ["late-bet", "missed-burn"]
    assert done.stdout.count("# expect: ") == 2


def test_writes_to_a_file_or_to_standard_output(tmp_path):
    log, expected = tmp_path / "night.del", tmp_path / "expected.json"
    to_file = audit(*simulate(CDF, rounds=5, extra=("-o", str(log), "--expected", str(expected))))
    to_stdout = audit(*simulate(CDF, rounds=5))
    assert to_file.returncode == to_stdout.returncode == 0
    assert to_file.stdout == ""
    text = log.read_text(encoding="utf-8")
    assert text == to_stdout.stdout and text.startswith("#DEL 1\n") and text.endswith(" CLOSE\n")
    assert f"{len(text.splitlines())} lines" in to_file.stderr
    assert (
        json.loads(expected.read_text(encoding="utf-8")) == []
    )  # no fault asked: nothing expected


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ("--night", "example", "--seed", "2"),
            "--night writes a shipped night as it is: not with --seed",
        ),
        (("--ruleset", "xx-unknown"), "unknown ruleset"),
        (("--ruleset", FR, "--inject", "nonsense"), "not a category"),
        (("--ruleset", FR, "--inject", "drawing"), "no rule of that category"),
        (("--ruleset", FR, "--ruleset", MC, "--tables", "1"), "every ruleset needs a table"),
        (("--ruleset", FR, "--start", "yesterday"), "not an ISO 8601"),
    ],
)
def test_usage_errors_exit_2(args, message):
    done = run("simulate", *args)
    assert done.returncode == 2 and message in done.stderr and done.stdout == ""


def test_a_fault_with_no_place_is_reported(tmp_path):
    done = run(*simulate(FR, rounds=1, extra=("--inject", "all")))
    assert done.returncode == 1
    assert "no place for a " in done.stderr
    assert done.stdout.startswith("#DEL 1")


def test_the_realistic_style_audits_clean_and_varies_the_stakes(tmp_path):
    """``--style realistic``, the benchmark's realistic night from the command line: clean, and stakes
    over the whole range (not the plain style's multiples of 5)."""
    plain, realistic = tmp_path / "plain.del", tmp_path / "realistic.del"
    for path, style in ((plain, "plain"), (realistic, "realistic")):
        done = run(
            *simulate(FR, CDF, rounds=60, seed=3, extra=("--style", style, "--output", str(path)))
        )
        assert done.returncode == 0, done.stderr
    code, report = check_json(realistic)
    assert (code, report["findings"]) == (0, [])

    def stakes(path: Path) -> set[str]:
        return {
            w.split("=", 1)[1]
            for line in path.read_text().splitlines()
            if " BET " in line
            for w in line.split()
            if w.startswith("amount=")
        }

    assert not any(Decimal(s) % 5 for s in stakes(plain))
    assert any(Decimal(s) % 5 for s in stakes(realistic))
    assert len(stakes(realistic)) > 2 * len(stakes(plain))


def test_per_table_writes_each_tables_lines_to_its_own_file(tmp_path):
    """``--per-table DIR``: one file a table, each with the header lines and exactly its table's lines of
    the interleaved night of the same seed, each auditing clean."""
    night = tmp_path / "night.del"
    folder = tmp_path / "tables"
    assert run(*simulate(FR, MC, rounds=20, seed=4, extra=("--output", str(night)))).returncode == 0
    done = run(*simulate(FR, MC, rounds=20, seed=4, extra=("--per-table", str(folder))))
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["FR-01.del", "FR-02.del", "MC-01.del", "MC-02.del"]
    events = [line for line in night.read_text().splitlines() if not line.startswith("#")]
    for name in names:
        table = name.removesuffix(".del")
        own = [
            line for line in (folder / name).read_text().splitlines() if not line.startswith("#")
        ]
        assert own == [line for line in events if line.split()[1] == table]
    code, report = check_json(folder)
    assert (code, report["findings"]) == (0, [])
    refused = run(
        *simulate(FR, rounds=5, extra=("--per-table", str(folder), "--output", str(night)))
    )
    assert refused.returncode == 2 and "--per-table" in refused.stderr


def test_python_m_audit_simulate_is_audit_simulate_with_its_defaults():
    """One command, one set of options and defaults, whichever way it is started."""
    module = subprocess.run(
        [sys.executable, "-m", "audit.simulate", "-r", FR, "--rounds", "3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    command = audit("simulate", "-r", FR, "--rounds", "3")
    assert module.returncode == command.returncode == 0, module.stderr
    assert module.stdout == command.stdout and module.stderr == command.stderr
    helped = subprocess.run(
        [sys.executable, "-m", "audit.simulate", "-h"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert helped.stdout == audit("simulate", "--help").stdout and "--night" in helped.stdout


def _first_stamp(text: str) -> str:
    return next(line.split()[0] for line in text.splitlines() if line[:1].isdigit())


def test_nights_of_different_seeds_fall_on_different_days_unless_a_start_is_given():
    """The default start is seed - 1 days after 2026-11-20 21:00 (+01:00): seed 1 keeps the
    fixtures' evening, and nights made with seeds 1 to N are N gaming days of a history store."""
    days = {
        seed: _first_stamp(
            audit("simulate", "-r", FR, "--rounds", "1", "--seed", str(seed)).stdout
        )[:10]
        for seed in (1, 2, 40)
    }
    assert days == {1: "2026-11-20", 2: "2026-11-21", 40: "2026-12-29"}
    pinned = {
        _first_stamp(
            audit(
                "simulate",
                "-r",
                FR,
                "--rounds",
                "1",
                "--seed",
                str(seed),
                "--start",
                "2027-01-05T20:00",
            ).stdout
        )[:16]
        for seed in (1, 2)
    }
    assert pinned == {"2027-01-05T20:00"}


def test_without_a_ruleset_it_writes_the_benchmarks_bataille_night():
    done = audit("simulate", "--tables", "3", "--rounds", "2")
    assert done.returncode == 0, done.stderr
    tables = {line.split()[1] for line in done.stdout.splitlines() if line[:1].isdigit()}
    assert tables == {"BAT-01", "BAT-02", "BAT-03"}
