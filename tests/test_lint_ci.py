"""CI runs the checks before a commit (ruff's lint and format, mypy) after the README's set-up
commands, with versions the test extra pins; the checks themselves are not run here (slow)."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
CI = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _lint_checks() -> list[str]:
    """The commands of .ci/run's lint_checks array, as bash reads it."""
    line = re.search(r"^lint_checks=\(.*\)$", CI, re.M)
    assert line, "no lint_checks=(...) line in .ci/run"
    done = subprocess.run(
        ["bash", "-c", line.group(0) + '\nprintf "%s\\n" "${lint_checks[@]}"'],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.splitlines()


def test_ci_runs_ruff_lint_ruff_format_and_mypy():
    checks = _lint_checks()
    assert len(checks) == 3, checks
    assert checks[0].split()[:2] == ["ruff", "check"]
    assert checks[1].split()[:2] == ["ruff", "format"]
    assert checks[2].split()[0] == "mypy"
    assert checks[0].endswith(" .") and checks[1].endswith(" .")  # the whole tree, not a part
    assert "--check" in checks[1].split()  # never rewrites files in CI
    for command in checks:  # quiet on success: nothing that would hide a finding
        assert not {"--exit-zero", "--fix", "--ignore-missing-imports"} & set(command.split())


def test_ci_runs_the_checks_after_the_readme_commands_and_fails_on_any():
    setup_ran = CI.index('bash -euo pipefail -c "$command"')
    loop = CI.index('for command in "${lint_checks[@]}"; do')
    assert setup_ran < loop  # after the README's two commands, in the same environment
    body = CI[loop:].split("\ndone", 1)[0]
    assert 'bash -euo pipefail -c "$command"' in body
    assert CI.startswith("#!/usr/bin/env bash") and "set -euo pipefail" in CI


def _test_extra() -> dict[str, Requirement]:
    reqs = (Requirement(r) for r in PYPROJECT["project"]["optional-dependencies"]["test"])
    return {r.name.lower(): r for r in reqs}


def test_the_test_extra_pins_the_checkers_to_a_compatible_range():
    extra = _test_extra()
    for name in ("ruff", "mypy"):
        assert name in extra, f"{name} is not in the test extra"
        bounds = {spec.operator for spec in extra[name].specifier}
        assert {">=", "<"} <= bounds, f"{name}: {extra[name]} has no lower and upper bound"
    assert "types-pyyaml" in extra  # audit/ imports yaml; mypy needs its stubs


def test_mypy_is_configured_for_the_package():
    mypy = PYPROJECT["tool"]["mypy"]
    assert mypy["packages"] == ["audit"]
    assert "pydantic.mypy" in mypy["plugins"]
    assert mypy["warn_unused_ignores"] is True
    assert "ignore_missing_imports" not in mypy  # only per module, for untyped packages


def test_mypy_disables_no_error_code_for_a_whole_module():
    """An exception is for one line (``# type: ignore[code]``), never a module's: neither an
    override in pyproject.toml nor an inline ``# mypy:`` setting turns an error code off."""
    for override in PYPROJECT["tool"]["mypy"].get("overrides", []):
        assert "disable_error_code" not in override, override["module"]
    assert "disable_error_code" not in PYPROJECT["tool"]["mypy"]
    inline = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted((ROOT / "audit").rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.match(r"\s*#\s*mypy:", line)
    ]
    assert not inline, inline
