"""Ctrl-C and SIGTERM: the run stops, says so in one line, and exits with status 130.

Python's own Ctrl-C is a ``KeyboardInterrupt``, which typer turns into a
silent ``Exit(130)`` before the command line can say anything, and SIGTERM
would end the process at once, leaving its worker processes running. Here
both signals raise ``Interrupted`` in the main process instead: it unwinds
through the audit (the worker pool is terminated on the way out, no report is
replaced) to the command line, which prints ``audit: interrupted``. A worker
process (forked, so it inherits the handler) that gets either signal (Ctrl-C
reaches the whole process group; the pool sends SIGTERM when it is
terminated) ends at once and quietly: the main process does the talking.
"""

from __future__ import annotations

import os
import signal

#: the exit status of an interrupted run: 128 + SIGINT, the shells' convention
EXIT_STATUS = 130
SIGNALS = (signal.SIGINT, signal.SIGTERM)

_main_pid: int | None = None
_raised = False


class Interrupted(BaseException):
    """The run was stopped by a signal. A ``BaseException``, as ``KeyboardInterrupt`` is, so that
    no ``except Exception`` takes it for a failure of the work; not a ``KeyboardInterrupt``, which
    typer would swallow."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _handler(signum: int, _frame: object) -> None:
    global _raised
    if os.getpid() != _main_pid:  # a worker process
        os._exit(EXIT_STATUS)
    if not _raised:  # a second signal while the first unwinds does not cut the clean-up short
        _raised = True
        raise Interrupted(signum)


def install() -> None:
    """Make SIGINT and SIGTERM raise ``Interrupted`` in this process, and end its forked workers."""
    global _main_pid, _raised
    _main_pid, _raised = os.getpid(), False
    for signum in SIGNALS:
        signal.signal(signum, _handler)
