"""``time``, ``dealer`` and ``shoe`` of every finding, recomputed from the fixture's own lines.

The contract: ``time`` is the stamp of the line of the finding as written, ``dealer`` the last
``DEALER`` of that table up to and including that line, ``shoe`` the number of that table's
``SHOE new`` lines up to and including it. The test reads them off the text with its own
patterns, not the auditor's, and checks every format's report with ``--jobs 2`` too.
"""

from __future__ import annotations

import re
from datetime import datetime

import pytest

from audit.reporters.json_report import render
from audit.rulesets import Library
from audit.run import run_audit
from fixtures import RULE_FIXTURES, read_fixture, rule_fixtures

STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)")
DEALER = re.compile(r"^\S+ (\S+) DEALER id=(\S+)\s*$")
SHOE = re.compile(r"^\S+ (\S+) SHOE new ")
WITH_TABLE = [p for p in rule_fixtures() if re.search(r"^\S+\s+\S+\s+OPEN\b", p.read_text(encoding="utf-8"), re.M)]


def expected_fields(lines: list[str], line: int, table: str | None) -> tuple[str | None, str | None, int | None]:
    words = lines[line - 1].split(None, 1) if 0 < line <= len(lines) else []
    time = words[0] if words and STAMP.fullmatch(words[0]) and real(words[0]) else None
    dealer, shoes = None, 0
    for text in lines[:line] if table is not None else ():
        if (m := DEALER.match(text)) and m.group(1) == table:
            dealer = m.group(2)
        elif (m := SHOE.match(text)) and m.group(1) == table:
            shoes += 1
    return time, dealer, shoes or None


def real(stamp: str) -> bool:
    """A stamp of a real date and time (not the 31st of November): a readable one."""
    try:
        datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("path", WITH_TABLE, ids=lambda p: p.relative_to(RULE_FIXTURES).as_posix())
def test_every_finding_carries_its_time_dealer_and_shoe(path):
    fx = read_fixture(path)
    library = Library.load(overlays=fx.house)
    report = run_audit(library, [str(path)])
    lines = path.read_text(encoding="utf-8").splitlines()
    assert report.findings
    for f in report.findings:
        want = expected_fields(lines, f.line, f.table)
        assert (f.time, f.dealer, f.shoe) == want, f"line {f.line} {f.rule}: {f.message}"
    assert render(run_audit(library, [str(path)], jobs=2)) == render(report)


def test_the_fields_follow_citation_in_the_json_report():
    path = next(p for p in WITH_TABLE if p.name == "FR-PAY-MAIN.del")
    finding = run_audit(Library.load(), [str(path)]).findings[0].model_dump()
    keys = list(finding)
    assert keys[keys.index("citation") + 1:] == ["time", "dealer", "shoe"]
    assert finding["time"] and finding["dealer"] and finding["shoe"] == 1


def test_a_table_reopened_keeps_its_dealer_and_counts_its_shoes_on(tmp_path):
    log = tmp_path / "reopen.del"
    log.write_text("""#DEL 1
2026-11-20T21:00:00.100+01:00 BAT-01 OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=1000
2026-11-20T21:00:01.100+01:00 BAT-01 DEALER id=D07
2026-11-20T21:00:02.100+01:00 BAT-01 SHOE new decks=6 procedure=sabot
2026-11-20T21:00:03.100+01:00 BAT-01 CLOSE
2026-11-20T21:00:04.100+01:00 BAT-01 OPEN game=bataille ruleset=fr-bataille-2007 seats=9 min=10 max=1000
2026-11-20T21:00:05.100+01:00 BAT-01 SHOE new decks=6 procedure=sabot
2026-11-20T21:00:06.100+01:00 BAT-01 ROUND 1 begin
""", encoding="utf-8")
    report = run_audit(Library.load(), [str(log)])
    by_line = {f.line: f for f in report.findings}
    assert (by_line[6].time, by_line[6].dealer, by_line[6].shoe) == ("2026-11-20T21:00:04.100+01:00", "D07", 1)
    end = [f for f in report.findings if f.line == 8]
    assert end and all((f.time, f.dealer, f.shoe) == ("2026-11-20T21:00:06.100+01:00", "D07", 2) for f in end)
