"""The README's two set-up commands are the project's promise to a new machine (the first one is
run in tests/test_wheel.py, the second is this suite)."""

from __future__ import annotations

import re
import subprocess
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
    done = subprocess.run(["bash", "-c", function.group(0) + "setup_commands"], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == readme_setup_commands()
    made = ci.index("python3 -m venv ")
    activated = ci.index("source \"$venv_dir/bin/activate\"")
    ran = ci.index('bash -euo pipefail -c "$command"')
    assert made < activated < ran
    assert "mapfile -t commands < <(setup_commands)" in ci
    assert "pip install" not in ci[made:ran]  # nothing installed into it but by the README's commands
