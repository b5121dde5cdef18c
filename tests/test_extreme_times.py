"""Extreme but valid times (year 0001, year 9999, a night whose clock jumps decades, offsets of
+14:00 and -12:00) give findings or a clean report in every format and in the history store,
never an internal error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_history import cli

from audit.reporters import REPORTERS

ROOT = Path(__file__).resolve().parent.parent
THREE = ROOT / "fixtures" / "acceptance" / "three-breaches.del"
#: every registered report format (the first two, text and json, are asked for again below)
FORMATS = tuple(REPORTERS)
VIEWS = ("nights", "tables", "dealers", "rules", "compare")


def shifted(date: str, offset: str, jump: str | None = None) -> str:
    """The three-breaches night on ``date`` at ``offset``; with ``jump``, its second half on that date."""
    lines = THREE.read_text().splitlines()
    out = []
    for i, line in enumerate(lines):
        if line[:1].isdigit():
            stamp, rest = line.split(" ", 1)
            day = date if jump is None or i < len(lines) // 2 else jump
            line = f"{day}{stamp[10:23]}{offset} {rest}"
        out.append(line)
    return "\n".join(out) + "\n"


NIGHTS = {
    "year-1-plus-14": shifted("0001-01-01", "+14:00"),
    "year-1-early": shifted("0001-01-01", "+14:00").replace("T21:", "T03:"),
    "year-9999-minus-12": shifted("9999-12-31", "-12:00"),
    "decades-forward": shifted("1970-01-01", "Z", jump="2069-12-31"),
    "millennia-back": shifted("9999-12-31", "+14:00", jump="0001-01-01"),
}


@pytest.mark.parametrize("name", list(NIGHTS))
def test_every_format_and_the_store_take_extreme_times(name, tmp_path):
    log = tmp_path / f"{name}.del"
    log.write_text(NIGHTS[name])
    store = tmp_path / "history.sqlite"
    outputs = []
    for fmt in FORMATS:
        outputs += ["-f", fmt, "-o", str(tmp_path / f"report.{fmt}")]
    done = cli("check", str(log), "--statistics", "--store", str(store), "--no-progress", *outputs)
    assert done.returncode in (0, 1), done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    for fmt in FORMATS:
        assert (tmp_path / f"report.{fmt}").stat().st_size > 0, fmt
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["findings"], "the three breaches are still found"
    again = cli("check", str(log), "--statistics", "--no-progress", *outputs[:4])
    assert again.returncode == done.returncode
    for view in VIEWS:
        for period in ("day", "month", "year"):
            extra = [] if view == "nights" else ["--period", period]
            shown = cli("history", view, "--store", str(store), *extra)  # in this process: faster
            assert shown.returncode == 0, (view, period, shown.stderr)
            assert "internal error" not in shown.stderr
    (night,) = json.loads(
        cli("history", "nights", "--store", str(store), "--format", "json").stdout
    )
    assert night["gaming_day"][:4] in {"0000", "0001", "1969", "1970", "2069", "9999"}


def test_the_history_from_the_first_day_there_is():
    from datetime import date

    from audit.history import periods

    assert periods.before(date(1, 1, 1), "day") is None
    assert periods.before(date(1, 1, 31), "month") is None
    assert periods.before(date(1, 6, 1), "year") is None
    assert periods.before(date(1, 1, 2), "day") == date(1, 1, 1)
    from datetime import time

    from audit.history.gaming_day import of_stamp

    assert of_stamp("0001-01-01T03:00:00+14:00", time(6, 0)) == date(1, 1, 1)
    assert of_stamp("9999-12-31T23:59:59-12:00", time(6, 0)) == date(9999, 12, 31)
