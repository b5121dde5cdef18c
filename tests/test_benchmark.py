"""The benchmark of issue 5 runs and prints every figure: CI proves it works, never how fast.

No assertion here is about timing: the figures are only checked to be there
and to be numbers, so a slow or busy CI machine cannot fail this test.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "bench.py"

NUMBER = r"[0-9][0-9,]*(?:\.[0-9]+)?"


def test_quick_benchmark_prints_every_figure_and_ratio(tmp_path):
    figures_path = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, str(BENCH), "--quick", "--json", str(figures_path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout

    # the machine and the exact command
    for label in ("machine:", "python:", "audit:", "command:", "log:"):
        assert re.search(rf"^{label} +\S", out, re.M), f"no {label} line:\n{out}"
    assert "bench.py --quick" in out

    # (a), (b), (c): seconds and event lines per second each
    for row in (r"\(a\) naive", r"\(b\) audit check", r"\(c\) floor"):
        assert re.search(rf"^{row}.* {NUMBER} +{NUMBER}$", out, re.M), f"no figures for {row}:\n{out}"
    assert "event lines/s" in out

    # the ratios, the peak memory of (b), the memory check and --jobs (measured or skipped)
    assert re.search(rf"b/a: audit is {NUMBER}x faster than the naive parse", out), out
    assert re.search(rf"b/c: audit takes {NUMBER}x the floor's time", out), out
    assert re.search(rf"peak memory of \(b\): {NUMBER} MB", out), out
    assert re.search(rf"memory check: 10x longer log {NUMBER} MB .* ratio {NUMBER}", out), out
    assert re.search(rf"--jobs 2 vs --jobs 1: .*{NUMBER}x faster; JSON reports byte-identical", out) \
        or "--jobs: skipped" in out, out
    assert "not judged: --quick" in out  # tiny sizes: the targets are shown, never judged

    # the same figures as JSON
    figures = json.loads(figures_path.read_text(encoding="utf-8"))
    assert figures["quick"] is True and figures["problems"] == []
    assert figures["machine"]["cpu"] and figures["machine"]["python"]
    assert figures["log"]["event_lines"] >= 20_000
    assert figures["audit"]["report_events"] == figures["log"]["event_lines"]
    for part in ("naive", "audit", "floor"):
        assert figures[part]["seconds"] > 0 and figures[part]["event_lines_per_second"] > 0
    assert figures["ratios"]["naive_over_audit"] > 0 and figures["ratios"]["audit_over_floor"] > 0
    assert figures["audit"]["peak_rss_bytes"] > 0
    memory = figures["memory"]
    assert memory["long_event_lines"] > 5 * memory["short_event_lines"]
    assert memory["ratio"] > 0
    if figures["jobs"]["available"]:
        assert figures["jobs"]["reports_identical"] is True
        assert figures["jobs"]["speedup"] > 0


def test_benchmark_refuses_nonsense_sizes(tmp_path):
    done = subprocess.run([sys.executable, str(BENCH), "--lines", "0"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--lines" in done.stderr
