"""The registry of report formats: the one place a format is added (audit/reporters/__init__.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from audit.findings import SEVERITIES
from audit.reporters import REPORTERS, Reporter, names, register
from audit.reporters.sarif import LEVELS
from audit.reporters.text import _STYLE

ROOT = Path(__file__).resolve().parent.parent
THREE = ROOT / "fixtures" / "acceptance" / "three-breaches.del"

#: a program that registers a toy format, then runs the command line as it is (cli.py and config.py untouched)
TOY_AUDIT = """
import sys
from audit.reporters import Reporter, register
register(Reporter("toy", "toy", "one rule id per finding",
                  lambda report: "".join(f"{f.rule}\\n" for f in report.findings)))
from audit.cli import main
main()
"""


def toy_audit(tmp_path: Path, *args: str, register_toy: bool = True) -> subprocess.CompletedProcess:
    script = tmp_path / "toy_audit.py"
    script.write_text(
        TOY_AUDIT if register_toy else "from audit.cli import main\nmain()\n", encoding="utf-8"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, str(script), *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_registered_format_is_a_choice_of_the_command_line_and_its_help(tmp_path):
    out = tmp_path / "report.toy"
    done = toy_audit(tmp_path, "check", "--format", "toy", "--output", str(out), str(THREE))
    assert done.returncode == 1, done.stderr
    assert out.read_text(encoding="utf-8") == "FR-LATE-BET\nFR-BURN-START\nFR-PAY-MAIN\n"
    shown = toy_audit(tmp_path, "check", "--format", "toy", str(THREE))
    assert shown.stdout == out.read_text(encoding="utf-8")
    helped = toy_audit(tmp_path, "check", "--help")
    words = " ".join(helped.stdout.split())  # the help is wrapped to the terminal
    assert (
        "text, json, sarif, junit, github, gitlab, html or toy" in words
        and "one rule id per finding (.toy)" in words
    )


def test_a_registered_format_is_a_name_the_configuration_accepts(tmp_path):
    (tmp_path / "audit.toml").write_text(
        'reports = [{format = "toy", output = "night.toy"}]\n', encoding="utf-8"
    )
    done = toy_audit(tmp_path, "check", str(THREE))
    assert done.returncode == 1, done.stderr
    assert (tmp_path / "night.toy").read_text(
        encoding="utf-8"
    ) == "FR-LATE-BET\nFR-BURN-START\nFR-PAY-MAIN\n"


def test_a_format_nobody_registered_is_refused_by_the_command_line_and_the_configuration(tmp_path):
    done = toy_audit(tmp_path, "check", "--format", "toy", str(THREE), register_toy=False)
    assert (
        done.returncode == 2
        and f"'toy' is not one of {', '.join(repr(n) for n in REPORTERS)}" in done.stderr
    )
    (tmp_path / "audit.toml").write_text('reports = [{format = "toy"}]\n', encoding="utf-8")
    done = toy_audit(tmp_path, "check", str(THREE), register_toy=False)
    assert done.returncode == 2
    assert done.stderr == (
        f"audit: {tmp_path / 'audit.toml'}: reports.0.format: "
        f"Input should be {', '.join(repr(n) for n in names()[:-1])} or {names()[-1]!r}\n"
    )


def test_the_default_format_comes_first_and_alone_draws_on_a_terminal():
    assert names()[0] == "text" and len(set(names())) == len(REPORTERS) >= 7
    assert [name for name, r in REPORTERS.items() if r.show is not None] == ["text"]
    for r in REPORTERS.values():
        assert r.extension and "." not in r.extension and r.description, r.name


def test_no_test_writes_the_list_of_formats_by_hand():
    """Adding a format (docs/architecture.md) edits no test: they read the registry."""
    quoted = ["".join(rf"{q}{re.escape(n)}{q},\s*" for n in names()[:3]) for q in ("'", '"')]
    tests = Path(__file__).resolve().parent
    found = [
        p.relative_to(tests).as_posix()
        for p in sorted(tests.rglob("*.py"))
        if any(re.search(pattern, p.read_text(encoding="utf-8")) for pattern in quoted)
    ]
    assert found == []


def test_a_format_is_registered_once():
    with pytest.raises(ValueError, match="registered twice"):
        register(Reporter("json", "json", "again", lambda report: ""))
    assert REPORTERS["json"].description.startswith("the JSON report")


def test_every_severity_has_its_style_and_its_sarif_level():
    assert tuple(_STYLE) == SEVERITIES and tuple(LEVELS) == SEVERITIES
