"""The command line run in the test's own process, as ``python -m audit`` runs it, for the tests
that check what a command says and writes rather than the process itself (signals, start-up, the
interpreter's handling of its arguments and streams): each child paid about half a second of
start-up, most of the suite's time.

``audit.cli.run`` is what ``python -m audit`` runs before it flushes and exits: the same one-line
usage errors, "internal error" lines and exit statuses. Its standard streams are bytes buffers (not
a terminal, as a child's pipes are not), its folder ``cwd``, its environment ``os.environ`` with
``env`` over it; the signal handlers it installs and the colour choice it makes are put back
after it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from contextlib import chdir
from pathlib import Path

from typer.testing import CliRunner

from audit import cli, terminal

SIGNALS = (signal.SIGINT, signal.SIGTERM)


def audit(
    *args: str,
    cwd: Path | str | None = None,
    input: str | bytes | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    """``audit ARGS`` in this process: its exit status, standard output and error (text)."""
    handlers = {signum: signal.getsignal(signum) for signum in SIGNALS}
    color = terminal._choice  # set by ``check --color``: a process's for the rest of its life
    runner = CliRunner()
    try:
        with (
            chdir(cwd if cwd is not None else os.getcwd()),
            runner.isolation(input=input, env=env) as (out, err, _),
        ):
            try:
                code = cli.run([str(a) for a in args])
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
            stdout, stderr = out.getvalue(), err.getvalue()
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        terminal.choose_color(color)
    return subprocess.CompletedProcess(
        list(args), code, stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace")
    )
