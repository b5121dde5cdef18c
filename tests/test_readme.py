"""The README's two set-up commands are the project's promise to a new machine."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import venvs

ROOT = Path(__file__).resolve().parent.parent


def _commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = text.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", setup, re.S)


def test_readme_has_exactly_two_setup_commands():
    cmds = _commands()
    assert len(cmds) == 2
    assert "audit check fixtures/" in cmds[0]
    assert "pytest" in cmds[1]


def test_ci_runs_both_readme_setup_commands_as_written_in_a_fresh_virtual_environment():
    """.ci/run takes the commands from the README itself (they cannot drift apart), runs each one
    as written, in a virtual environment of its own made before them."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    function = re.search(r"^setup_commands\(\) \{\n.*?^\}\n", ci, re.S | re.M)
    assert function, "no setup_commands function in .ci/run"
    done = subprocess.run(["bash", "-c", function.group(0) + "setup_commands"], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == _commands()
    made = ci.index("python3 -m venv ")
    activated = ci.index("source \"$venv_dir/bin/activate\"")
    ran = ci.index('bash -euo pipefail -c "$command"')
    assert made < activated < ran
    assert "mapfile -t commands < <(setup_commands)" in ci
    assert "pip install" not in ci[made:ran]  # nothing installed into it but by the README's commands


@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed to copy the tracked files")
def test_first_readme_command_installs_and_audits_the_example(tmp_path):
    """Run the first command in a fresh virtual environment, on a copy of the tracked files."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    src = tmp_path / "src"
    for name in files:
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    bindir = venvs.create(tmp_path / "venv")
    env = venvs.environment(bindir)
    cmd = _commands()[0]
    done = subprocess.run(cmd, shell=True, cwd=src, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "no finding" in done.stdout
    # the installed command finds its grammar and rulesets from any directory
    elsewhere = subprocess.run([str(bindir / "audit"), "check", "--format", "json",
                                str(src / "fixtures" / "nights" / "example-night.del")],
                               cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert elsewhere.returncode == 0, elsewhere.stderr
