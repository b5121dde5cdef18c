"""Bad values in a readable log: each is a finding in the right category, never an exception."""

from __future__ import annotations

import pytest

from audit.rulesets import Library
from audit.run import run_audit

HEAD = (
    """#DEL 1
2026-11-20T21:00:00.000+01:00 T1 OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=500
2026-11-20T21:00:01.000+01:00 T1 DEALER id=D1
2026-11-20T21:00:02.000+01:00 T1 SEAT 2 in
2026-11-20T21:00:03.000+01:00 T1 SHOE new decks=6 procedure=sabot
2026-11-20T21:00:03.500+01:00 T1 SHUFFLE
2026-11-20T21:00:04.000+01:00 T1 CUT by=dealer
2026-11-20T21:00:05.000+01:00 T1 CUT by=seat:2
2026-11-20T21:00:06.000+01:00 T1 STOPCARD talon=60
"""
    + "".join(
        f"2026-11-20T21:00:07.000+01:00 T1 BURN {c}\n" for c in ("2C", "3C", "4C", "5C", "6C")
    )
    + """\
2026-11-20T21:00:10.000+01:00 T1 ROUND 1 begin
"""
)
TAIL = """2026-11-20T21:00:20.000+01:00 T1 NOMOREBETS
2026-11-20T21:00:21.000+01:00 T1 DEAL seat=2 KH
2026-11-20T21:00:22.000+01:00 T1 DEAL dealer 9C
2026-11-20T21:00:23.000+01:00 T1 PAY seat=2 spot=main amount=50
2026-11-20T21:00:30.000+01:00 T1 ROUND 1 end
2026-11-20T21:05:00.000+01:00 T1 CLOSE
"""
BET = "2026-11-20T21:00:11.000+01:00 T1 BET seat=2 spot=main amount=50\n"


@pytest.mark.parametrize(
    "name, middle, after, category",
    [
        (
            "three decimals",
            "2026-11-20T21:00:11.000+01:00 T1 BET seat=2 spot=main amount=50.001\n" + BET,
            "",
            "syntax",
        ),
        (
            "absurdly large",
            "2026-11-20T21:00:11.000+01:00 T1 BET seat=2 spot=main amount=99999999999999\n" + BET,
            "",
            "syntax",
        ),
        (
            "negative",
            "2026-11-20T21:00:11.000+01:00 T1 BET seat=2 spot=main amount=-5\n" + BET,
            "",
            "syntax",
        ),
        (
            "zero stake",
            BET + "2026-11-20T21:00:12.000+01:00 T1 BET seat=2 spot=egalite amount=0\n",
            "",
            "bet-limit",
        ),
        (
            "seat 0",
            "2026-11-20T21:00:11.000+01:00 T1 BET seat=0 spot=main amount=50\n" + BET,
            "",
            "syntax",
        ),
        (
            "seat 100",
            "2026-11-20T21:00:11.000+01:00 T1 BET seat=100 spot=main amount=50\n" + BET,
            "",
            "syntax",
        ),
        (
            "card that does not exist",
            BET + "2026-11-20T21:00:12.000+01:00 T1 BURN 1Z\n",
            "",
            "syntax",
        ),
        (
            "no offset",
            "2026-11-20T21:00:11.000 T1 BET seat=2 spot=main amount=50\n" + BET,
            "",
            "syntax",
        ),
        (
            "time goes back",
            BET + '2026-11-20T20:59:00.000+01:00 T1 NOTE "late clock"\n',
            "",
            "log-integrity",
        ),
        (
            "round repeats",
            BET,
            "2026-11-20T21:06:00.000+01:00 T1 OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=500\n"
            "2026-11-20T21:06:01.000+01:00 T1 SHOE new decks=6 procedure=sabot\n"
            "2026-11-20T21:06:02.000+01:00 T1 ROUND 1 begin\n2026-11-20T21:06:03.000+01:00 T1 ROUND 1 end\n"
            "2026-11-20T21:06:04.000+01:00 T1 ROUND 1 begin\n2026-11-20T21:06:05.000+01:00 T1 ROUND 1 end\n"
            "2026-11-20T21:07:00.000+01:00 T1 CLOSE\n",
            "log-integrity",
        ),
        ("never opened", BET + "2026-11-20T21:00:12.000+01:00 T9 SHUFFLE\n", "", "log-integrity"),
        ("after close", BET, "2026-11-20T21:06:00.000+01:00 T1 SHUFFLE\n", "log-integrity"),
        (
            "two opens",
            BET
            + "2026-11-20T21:00:12.000+01:00 T1 OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=500\n",
            "",
            "log-integrity",
        ),
    ],
)
def test_bad_value_is_a_finding_in_its_category(tmp_path, name, middle, after, category):
    log = tmp_path / "bad.del"
    log.write_text(HEAD + middle + TAIL + after, encoding="utf-8")
    report = run_audit(Library.load(), [str(log)])
    assert report.findings, name
    assert {f.category for f in report.findings} == {category}, [
        (f.rule, f.message) for f in report.findings
    ]
    (inp,) = report.inputs
    assert sum(inp.accounting.values()) == inp.lines


def test_the_clean_version_is_clean(tmp_path):
    log = tmp_path / "ok.del"
    log.write_text(HEAD + BET + TAIL, encoding="utf-8")
    assert run_audit(Library.load(), [str(log)]).findings == []
