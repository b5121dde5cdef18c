"""Run ``python -m MODULE ARG...`` in this process, then write its peak resident memory to the file
named by ``BENCH_PEAK_FILE``: the ``VmHWM`` of /proc/self/status, this process's own since it began
(at exit, a hard ``os._exit`` included).

Why not the ``ru_maxrss`` that ``wait4`` returns: on Linux a child's figure starts at the high-water
mark of the process that spawned it (the kernel carries it over when the child executes another
program), so once the benchmark itself has held 300 MB (the naive parse of a night runs in it),
every audit it starts afterwards "peaks" at 300 MB at least."""

from __future__ import annotations

import atexit
import os
import runpy
import sys


def _write_peak() -> None:
    where = os.environ.get("BENCH_PEAK_FILE")
    if not where:
        return
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    with open(where, "w", encoding="ascii") as out:
                        out.write(str(int(line.split()[1]) * 1024))
                    return
    except OSError:  # no /proc: the caller keeps wait4's figure
        return


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] != "-m":
        sys.exit("usage: peak.py -m MODULE [ARG...]")
    atexit.register(_write_peak)
    hard_exit = os._exit  # the audit ends with a hard exit once its reports are written

    def _exit(status: int) -> None:
        _write_peak()
        hard_exit(status)

    os._exit = _exit
    module = sys.argv[2]
    sys.argv = [module, *sys.argv[3:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)
