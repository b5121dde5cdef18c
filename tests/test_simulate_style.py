"""The realistic style of the simulator (issue 21): legal, varied where real nights are, and one file per table."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from audit.simulate import EXAMPLE_START, REALISTIC, realistic_tables, simulate, write_tables
from audit.simulate.style import PLAIN, extra_limit_rounds, heavy

ROOT = Path(__file__).resolve().parent.parent
AMOUNT = re.compile(r" amount=([0-9.]+)")


def _sim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "audit.simulate", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def night(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("realistic") / "night.del"
    done = _sim(
        "--style", "realistic", "--tables", "6", "--rounds", "150", "--seed", "3", "-o", str(path)
    )
    assert done.returncode == 0, done.stderr
    return path


def test_a_realistic_night_audits_clean(night):
    done = subprocess.run(
        [sys.executable, "-m", "audit", "check", "--format", "json", str(night)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["findings"] == []
    events = sum(
        1
        for line in night.read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    )
    assert report["summary"]["events"] == events and report["summary"]["tables"] == 6


def test_a_realistic_night_has_what_a_casino_has(night):
    text = night.read_text(encoding="utf-8")
    tables = Counter(re.findall(r" OPEN game=(\S+) ruleset=(\S+)", text))
    assert tables == {
        ("bataille", "fr-bataille-2007"): 2,
        ("bataille", "mc-sun-war-2006"): 2,
        ("chemin-de-fer", "be-ostende-cdf"): 2,
    }
    for needle in (
        "by=standing:",
        "spot=egalite",
        "spot=war",
        " surrender",
        " SEAT ",
        " out\n",
        " DEALER id=",
        " LIMITS ",
        " PASS\n",
        " AWARD ",
        "how=auction",
        " BANCO ",
    ):
        assert needle in text, needle
    assert len(re.findall(r" LIMITS ", text)) > 6  # several changes a table, not one
    amounts = [Decimal(a) for a in AMOUNT.findall(text)]
    assert sum(a % 5 != 0 for a in amounts) > len(amounts) / 3  # not round sums only
    assert any(a != a.to_integral_value() for a in amounts)
    stamps = re.findall(r"T\d\d:\d\d:\d\d\.(\d{3})", text)
    assert len(set(stamps)) > 900  # millisecond jitter
    standing = set(re.findall(r"standing:(P\d\d-\d+)", text))
    assert len(standing) > 3 * 6  # new standing players arrive


def test_stakes_are_heavy_tailed_over_the_whole_range():
    rng = random.Random(5)
    for low, high in (
        (Decimal(10), Decimal(500)),
        (Decimal("12.50"), Decimal(1250)),
        (Decimal(20), Decimal(21)),
    ):
        values = [heavy(rng, low, high) for _ in range(5000)]
        assert all(low <= v <= high for v in values)
        assert low in values and high in values
        if high > 10 * low:  # most stakes small, a long tail up to the top
            assert sorted(values)[len(values) // 2] < low + (high - low) / 10
    assert heavy(rng, Decimal(7), Decimal(7)) == Decimal(7)


def test_the_plain_style_draws_nothing_more():
    rng = random.Random(1)
    state = rng.getstate()
    assert extra_limit_rounds(rng, PLAIN, 1000) == set() and rng.getstate() == state
    rounds = extra_limit_rounds(rng, REALISTIC, 1000)
    assert rounds and max(rounds) <= 1000


def test_one_file_per_table_holds_the_tables_lines_of_the_night(tmp_path):
    tables = realistic_tables(4, 12)
    count = write_tables(tables=tables, seed=9, start=EXAMPLE_START, directory=tmp_path)
    night = list(simulate(tables=tables, seed=9, start=EXAMPLE_START))
    files = sorted(tmp_path.iterdir())
    assert [f.name for f in files] == sorted(f"{t.table}.del" for t in tables)
    lines = 0
    for f in files:
        own = f.read_text(encoding="utf-8").splitlines()
        table = f.stem
        assert own[:3] == night[:3]  # the headers
        assert own[3:] == [line for line in night[3:] if line.split(" ")[1] == table]
        lines += len(own)
    assert count == lines


@pytest.mark.parametrize(
    "args, message",
    [
        (["--night", "example", "--style", "realistic"], "not with --style"),
        (["--tables", "3", "--style", "realistic", "--cdf", "1"], "No such option: --cdf"),
        (["--tables", "3", "--per-table", "x", "-o", "y"], "not with --output"),
    ],
)
def test_usage_errors(args, message):
    done = _sim(*args)
    assert done.returncode == 2 and message in done.stderr
