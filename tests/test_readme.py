"""The README's two set-up commands are the project's promise to a new machine (the first one is
run in tests/test_wheel.py, the second is this suite)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_setup_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = text.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", setup, re.S)


def test_readme_has_exactly_two_setup_commands():
    cmds = readme_setup_commands()
    assert len(cmds) == 2
    assert "audit check fixtures/" in cmds[0]
    assert "pytest" in cmds[1]


def test_ci_runs_both_readme_setup_commands_as_written_in_a_fresh_virtual_environment():
    """.ci/run takes the commands from the README itself (they cannot drift apart), runs each one
    as written, in a virtual environment of its own made before them."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    function = re.search(r"^setup_commands\(\) \{\n.*?^\}\n", ci, re.S | re.M)
    assert function, "no setup_commands function in .ci/run"
    done = subprocess.run(
        ["bash", "-c", function.group(0) + "setup_commands"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.splitlines() == readme_setup_commands()
    made = ci.index("python3 -m venv ")
    activated = ci.index('source "$venv_dir/bin/activate"')
    ran = ci.index('bash -euo pipefail -c "$command"')
    assert made < activated < ran
    assert "mapfile -t commands < <(setup_commands)" in ci
    assert (
        "pip install" not in ci[made:ran]
    )  # nothing installed into it but by the README's commands


#: the lines of the README's Use block that need what a test machine has not: each with the reason
SKIPPED = {
    "audit check --cluster tcp://scheduler:8786 s3://bucket/2026/": "needs a Dask scheduler and an S3 bucket",
    "audit --install-completion": "changes the user's shell start-up files",
}


def readme_use_lines() -> list[str]:
    """The command lines of the README's Use block (its first), in their order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    use = text.split("\n## Use\n", 1)[1].split("\n## ", 1)[0]
    block = re.findall(r"```sh\n(.+?)\n```", use, re.S)[
        0
    ]  # the first; then a crontab line, the benchmark
    return [line for line in block.splitlines() if line.strip() and not line.startswith("#")]


def _skipped(line: str) -> str | None:
    return next((why for start, why in SKIPPED.items() if line.startswith(start)), None)


def test_the_skipped_use_lines_are_in_the_readme():
    lines = readme_use_lines()
    for start in SKIPPED:
        assert any(line.startswith(start) for line in lines), start


def test_the_use_lines_run_as_written_in_the_order_a_newcomer_meets_them(tmp_path):
    """Every line of the README's Use block, in order, in a folder holding what the lines name
    from the project (rulesets/house, docs/), with ``audit`` this checkout's command: exit 0, no
    traceback."""
    work = tmp_path / "project"
    for folder in ("rulesets", "docs"):
        shutil.copytree(ROOT / folder, work / folder)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "audit"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m audit "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
    }
    env.pop("NO_COLOR", None)
    ran = []
    for line in readme_use_lines():
        if _skipped(line):
            continue
        done = subprocess.run(
            ["bash", "-c", line], cwd=work, env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, f"{line}\n{done.stdout[-1500:]}\n{done.stderr[-1500:]}"
        assert "Traceback" not in done.stdout + done.stderr, line
        ran.append(line)
    assert len(ran) == len(readme_use_lines()) - len(SKIPPED)
    assert (work / "night.del").is_file() and len(list((work / "logs").glob("*.del"))) == 40
    assert (work / "audit-history.sqlite").is_file() and (work / "night.html").is_file()
