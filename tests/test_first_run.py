"""What a newcomer meets first: the help (-h everywhere, whole at 80 columns), usage errors in one
line, Ctrl-C while the command loads."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from audit import cli

ROOT = Path(__file__).resolve().parent.parent


def _command_paths(command, path=()) -> list[tuple[str, ...]]:
    paths = [path]
    for name, sub in getattr(command, "commands", {}).items():
        paths += _command_paths(sub, (*path, name))
    return paths


COMMAND = cli._readable(typer.main.get_command(cli.app))
PATHS = _command_paths(COMMAND)


def _help(args: list[str], capsys) -> str:
    with contextlib.suppress(SystemExit):
        cli._readable(typer.main.get_command(cli.app)).main(
            args, prog_name="audit", standalone_mode=False
        )
    return capsys.readouterr().out


def test_every_command_and_group_is_listed():
    assert {
        ("check",),
        ("simulate",),
        ("baseline", "create"),
        ("history", "nights"),
        ("history", "compare"),
    } <= set(PATHS)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "audit")
def test_h_is_help_and_the_help_is_whole_at_80_columns(path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    long = _help([*path, "--help"], capsys)
    short = _help([*path, "-h"], capsys)
    assert long == short and long.startswith(f"Usage: {' '.join(('audit', *path))} ")
    assert "-h, --help" in long
    for line in long.splitlines():
        assert len(line) <= 80, line
        assert not line.rstrip().endswith(("...", "…")) or line.startswith("Usage:"), (
            line
        )  # nothing cut short
    assert (
        "<list[" not in long and "<str>" not in long
    )  # values named for a person, not Python's types


@pytest.mark.parametrize(
    "args, message",
    [
        (["check", "--bogus", "x.del"], "audit: No such option: --bogus"),
        (["check"], "audit: Missing argument 'PATHS'."),
        (
            ["check", "--format", "xml", "x.del"],
            "audit: Invalid value for '--format' / '-f': 'xml' is not one of",
        ),
        (["nosuch"], "audit: No such command 'nosuch'."),
        (
            ["history", "tables", "--period", "week"],
            "audit: Invalid value for '--period': 'week' is not one of",
        ),
        (["simulate", "--rounds", "many"], "audit: Invalid value for '--rounds'"),
    ],
)
def test_a_usage_error_is_one_line_and_exit_2(args, message):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color"}
    done = subprocess.run(
        [sys.executable, "-m", "audit", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(message) and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.endswith(" --help)\n") and "\x1b" not in done.stderr


@pytest.mark.parametrize("group", [[], ["history"], ["baseline"]])
def test_a_group_without_its_command_shows_its_help(group):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "audit", *group],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stderr == ""
    assert (
        done.stdout.startswith(f"Usage: {' '.join(['audit', *group])} [OPTIONS] COMMAND")
        and "Commands:" in done.stdout
    )


# a module imported first thing makes the command wait, while it loads, on the module named by
# the environment: it says so on standard output, and the test interrupts it then
HOOK = """
import os, sys, time
class Hook:
    def find_spec(self, name, path=None, target=None):
        if name == os.environ.get("WAIT_WHILE_LOADING"):
            sys.meta_path.remove(self)
            os.write(1, b"loading\\n")
            time.sleep(60)
        return None
sys.meta_path.insert(0, Hook())
"""


@pytest.mark.parametrize("module", ["audit.cli", "typer", "audit.rulesets"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_while_loading_says_so_in_one_line_and_exits_130(tmp_path, module, signum):
    (tmp_path / "sitecustomize.py").write_text(HOOK, encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}",
        "WAIT_WHILE_LOADING": module,
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "audit", "check", "x.del"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline() == "loading\n"
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert (proc.returncode, err, out) == (130, "audit: interrupted\n", "")
