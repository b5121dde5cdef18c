"""``MOVE seat=N to=M``, an extension of DEL v1: a change of place at any table, the player going with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.rulesets import Library
from audit.run import run_audit

HEAD = """#DEL 1
2026-11-20T21:00:00+01:00 BAT-01 OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=500 egalite-min=5 egalite-max=50
2026-11-20T21:00:01+01:00 BAT-01 DEALER id=D1
2026-11-20T21:00:02+01:00 BAT-01 SEAT 2 in player=P1
2026-11-20T21:00:03+01:00 BAT-01 SEAT 5 in
"""


def _findings(tmp_path: Path, lines: str) -> list[tuple[str, str]]:
    log = tmp_path / "moves.del"
    log.write_text(HEAD + lines + "2026-11-20T21:09:00+01:00 BAT-01 CLOSE\n", encoding="utf-8")
    return [(f.rule, f.message) for f in run_audit(Library.load(), [str(log)]).findings]


def test_a_move_to_a_free_seat_is_no_finding_at_a_bataille_table(tmp_path):
    assert _findings(tmp_path, "2026-11-20T21:00:04+01:00 BAT-01 MOVE seat=2 to=3\n") == []


def test_the_player_who_moved_bets_on_his_new_seat_as_its_seated_player(tmp_path):
    """The seat he left is vacant: a bet there needs the dealer's approval; his new seat is his."""
    got = _findings(
        tmp_path,
        "2026-11-20T21:00:04+01:00 BAT-01 MOVE seat=2 to=3\n"
        "2026-11-20T21:01:00+01:00 BAT-01 ROUND 1 begin\n"
        "2026-11-20T21:01:01+01:00 BAT-01 BET seat=3 spot=main amount=50\n"
        "2026-11-20T21:01:02+01:00 BAT-01 BET seat=2 spot=main amount=50\n"
        "2026-11-20T21:01:03+01:00 BAT-01 ROUND 1 end\n",
    )
    vacant = [message for rule, message in got if rule == "FR-VACANT-SEAT"]
    assert len(vacant) == 1 and "vacant seat 2" in vacant[0], got


@pytest.mark.parametrize(
    "move, rule, words",
    [
        ("MOVE seat=3 to=4", "DEL-CONTEXT", "seat 3, which is vacant"),
        ("MOVE seat=2 to=5", "DEL-CONTEXT", "seat 5, which is occupied"),
        ("MOVE seat=2 to=9", "FR-SEAT-RANGE", "table of 7 places"),
    ],
)
def test_a_move_from_a_vacant_seat_or_to_a_taken_or_missing_one_is_reported(
    tmp_path, move, rule, words
):
    got = _findings(tmp_path, f"2026-11-20T21:00:04+01:00 BAT-01 {move}\n")
    assert len(got) == 1 and got[0][0] == rule and words in got[0][1], got
