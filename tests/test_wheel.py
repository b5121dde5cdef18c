"""What the README's ``pip install .`` gives, tested from the installed wheel, never the checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import venvs
from test_readme import readme_setup_commands

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent


def _python(bindir: Path) -> str:
    return str(bindir / ("python.exe" if os.name == "nt" else "python"))


def test_a_nested_environment_sees_the_packages_of_the_virtual_environment_running_the_tests(
    tmp_path,
):
    """The README's set-up installs the dependencies in a virtual environment, not in the system's
    Python: the environment the wheel goes into must see them there."""
    import venv

    venv.EnvBuilder(with_pip=False).create(tmp_path / "outer")
    outer = _python(tmp_path / "outer" / ("Scripts" if os.name == "nt" else "bin"))
    purelib = subprocess.run(
        [outer, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "only_in_the_outer_environment.py").write_text(
        "WHERE = 'outer'\n", encoding="utf-8"
    )
    make = (
        f"import sys; sys.path.insert(0, {str(TESTS)!r}); from pathlib import Path; import venvs; "
        f"print(venvs.create(Path({str(tmp_path / 'inner')!r}), with_pip=False))"
    )
    made = subprocess.run([outer, "-c", make], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    inner = _python(Path(made.stdout.strip()))
    seen = subprocess.run(
        [inner, "-c", "import only_in_the_outer_environment as m, sys; print(m.WHERE, sys.prefix)"],
        capture_output=True,
        text=True,
    )
    assert seen.returncode == 0, seen.stderr
    assert seen.stdout.split() == ["outer", str(tmp_path / "inner")]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, dict, subprocess.CompletedProcess]:
    """The README's first set-up command, run as written in a fresh virtual environment on a copy
    of the tracked files: ``pip install .`` builds the wheel and installs it (dependencies: those
    of the interpreter running the tests, a virtual environment's included). Returns the
    environment's programs, its environment variables and what the command did."""
    where = tmp_path_factory.mktemp("wheel")
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    src = where / "src"
    for name in files:
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    bindir = venvs.create(where / "venv")
    env = venvs.environment(bindir)
    done = subprocess.run(
        readme_setup_commands()[0],
        shell=True,
        cwd=src,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    (where / "elsewhere").mkdir()
    return bindir, env, done


@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed to copy the tracked files")
def test_first_readme_command_installs_and_audits_the_example(installed):
    bindir, env, done = installed
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "no finding" in done.stdout
    # the installed command finds its grammar and rulesets from any directory
    night = bindir.parent.parent / "src" / "fixtures" / "nights" / "example-night.del"
    elsewhere = subprocess.run(
        [str(bindir / "audit"), "check", "--format", "json", str(night)],
        cwd=bindir.parent.parent / "elsewhere",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert elsewhere.returncode == 0, elsewhere.stderr


def test_the_installed_audit_is_the_wheel_not_the_checkout(installed):
    bindir, env, _ = installed
    done = subprocess.run(
        [str(bindir / "python"), "-c", "import audit; print(audit.__file__)"],
        cwd=bindir.parent.parent / "elsewhere",
        env=env,
        capture_output=True,
        text=True,
    )
    assert Path(done.stdout.strip()).is_relative_to(bindir.parent), done.stdout


def test_explain_shows_its_examples_from_an_installed_wheel(installed):
    bindir, env, _ = installed
    done = subprocess.run(
        [str(bindir / "audit"), "explain", "FR-PAY-MAIN"],
        cwd=bindir.parent.parent / "elsewhere",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "the rule fixtures are not here" not in done.stdout
    assert (
        "A log that breaks it (fixtures/rules/fr-bataille-2007/FR-PAY-MAIN.del, table FR-FAIL"
        in done.stdout
    )
    assert (
        "A log that keeps it (fixtures/rules/fr-bataille-2007/FR-PAY-MAIN.del, table FR-PASS"
        in done.stdout
    )
    assert (
        ">>   47  2026-11-20T21:01:17.000+01:00 FR-FAIL COLLECT seat=5 spot=main amount=25"
        in done.stdout
    )
