"""The fast paths must change nothing: same events and errors as the grammar, same report with --jobs."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from audit.parser import LineParser, parse_line
from audit.report import run_audit
from audit.reporters import json_report
from audit.rulesets import Library

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "fixtures").rglob("*.del"))


def _mutations(lines: list[str], seed: int) -> list[str]:
    """Lines broken the ways logs break: words dropped, swapped, garbled, blanks moved."""
    rng = random.Random(seed)
    out = []
    for text in lines:
        words = text.split(" ")
        op = rng.randrange(6)
        if op == 0 and len(words) > 3:
            del words[rng.randrange(len(words))]
        elif op == 1 and len(words) > 3:
            i, j = rng.randrange(len(words)), rng.randrange(len(words))
            words[i], words[j] = words[j], words[i]
        elif op == 2:
            i = rng.randrange(len(words))
            words[i] = words[i][:-1] + rng.choice("x9=.:-\t ")
        elif op == 3:
            words.insert(rng.randrange(len(words) + 1), rng.choice(["", "\t", "#", "amount=1.005", "seat=0"]))
        out.append(" ".join(words))
    return out


def test_fast_parser_gives_the_grammars_events_and_errors_on_every_fixture_line():
    checked = 0
    for path in FIXTURES:
        fast = LineParser()
        for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            assert fast.parse(text, n) == parse_line(text, n), f"{path.name}:{n}"
            checked += 1
    assert checked > 10_000


def test_fast_parser_agrees_on_generated_and_mutated_logs():
    from audit.simulate import generated_tables, simulate
    from datetime import datetime, timezone
    lines = list(simulate(tables=generated_tables(3, 30), seed=5, start=datetime(2026, 11, 20, 21, tzinfo=timezone.utc)))
    fast = LineParser(max_cached=64)  # a small cache: clearing it must not change anything either
    for n, text in enumerate(lines + _mutations(lines, 1) + _mutations(lines, 2), start=1):
        got, want = fast.parse(text, n), parse_line(text, n)
        assert got == want and type(got) is type(want), f"line {n}: {text!r}"


@pytest.mark.parametrize("jobs", [2, 3])
def test_jobs_give_the_same_report_byte_for_byte(jobs):
    library = Library.load()
    for path in [*FIXTURES[jobs::9], ROOT / "fixtures" / "nights" / "mixed-night.del"]:
        one = json_report.render(run_audit(library, [str(path)]))
        assert json_report.render(run_audit(library, [str(path)], jobs=jobs)) == one, path.name


def test_jobs_across_files_and_on_the_command_line(tmp_path):
    files = [str(p.relative_to(ROOT)) for p in FIXTURES[:6]]
    args = [sys.executable, "-m", "audit", "check", "--format", "json", *files]
    one = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    two = subprocess.run([*args, "--jobs", "2"], cwd=ROOT, capture_output=True, text=True)
    assert one.returncode == two.returncode and one.stdout == two.stdout
    assert two.stderr == ""  # no progress bar when standard error is not a terminal


def test_standard_input_is_never_split_across_jobs():
    night = (ROOT / "fixtures" / "nights" / "mixed-night.del").read_text(encoding="utf-8")
    args = [sys.executable, "-m", "audit", "check", "--format", "json", "-"]
    one = subprocess.run(args, cwd=ROOT, input=night, capture_output=True, text=True)
    two = subprocess.run([*args, "--jobs", "2"], cwd=ROOT, input=night, capture_output=True, text=True)
    assert one.returncode == 0 and one.stdout == two.stdout
