"""Every report format of pinned logs, and the simulator's pinned logs, byte for byte (tests/golden/golden.py)."""

from __future__ import annotations

import json

import pytest
from golden import golden


@pytest.mark.parametrize("case", golden.CASES, ids=lambda c: c.name)
def test_reports_are_as_recorded(case):
    assert golden.differences(case) == []


@pytest.mark.parametrize("name", sorted(golden.SIMULATIONS))
def test_simulated_logs_are_as_recorded(name):
    pinned = json.loads(golden.SIMULATED.read_text(encoding="utf-8"))
    assert golden.simulate(golden.SIMULATIONS[name]) == pinned[name]


def test_a_changed_report_is_caught(tmp_path, monkeypatch):
    """The comparison can fail: a recorded report altered by one byte is reported."""
    case = golden.CASES[0]
    recorded = tmp_path / "reports"
    recorded.mkdir()
    for fmt in (*golden.FORMATS, "exit"):
        src = golden.report_path(case, fmt)
        (recorded / src.name).write_bytes(src.read_bytes())
    target = recorded / f"{case.name}.json"
    target.write_bytes(target.read_bytes().replace(b'"version": 1', b'"version": 2', 1))
    monkeypatch.setattr(golden, "REPORTS", recorded)
    assert golden.differences(case) == [f"{case.name}: the json report differs from {target}"]
