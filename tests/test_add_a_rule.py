"""The "add a rule" recipe, followed for a toy check: its declaration beside its logic, one YAML entry.

Nothing else changes: not the catalogue (derived from the declarations), not
the engine, not the ruleset loader. The toy's logic extends the bataille
round's ``verify_bet``, as an edit of ``audit/games/bataille/round.py`` would;
it is registered for the game by replacing the bataille's round class in the
registry for the length of the test.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import ClassVar

import pytest
from pydantic import Field

from audit.engine.checks import DECLARED, Params, declare
from audit.games.bataille import events as bat
from audit.games.bataille.round import BatailleRound
from audit.registry import GAMES
from audit.resources import rulesets_dir
from audit.rulesets import Library, RulesetError
from audit.stream.inputs import audit_input

TOY_RULESET = """\
id: toy-bataille
game: bataille
title: A toy regulation with one rule
regulation:
  name: Toy regulation
  source: [tests/test_add_a_rule.py]
rules:
  - id: TOY-MAX-BET
    check: toy-max-bet
    category: bet-limit
    severity: error
    message: No single bet above the cap.
    citation:
      article: "art. 1"
      text: "A bet never exceeds the cap."
    params: {at_most: 100}
"""

LOG = """\
#DEL 1
2026-11-20T21:00:00.000+01:00 T1 OPEN game=bataille ruleset=toy-bataille seats=7 min=10 max=500
2026-11-20T21:00:01.000+01:00 T1 SEAT 2 in player=P1
2026-11-20T21:00:02.000+01:00 T1 SHOE new decks=6 procedure=sabot
2026-11-20T21:00:03.000+01:00 T1 ROUND 1 begin
2026-11-20T21:00:04.000+01:00 T1 BET seat=2 spot=main amount={amount}
2026-11-20T21:00:05.000+01:00 T1 NOMOREBETS
2026-11-20T21:00:06.000+01:00 T1 ROUND 1 end
2026-11-20T21:00:07.000+01:00 T1 CLOSE
"""


# -- the recipe's code: the check's parameters, its declaration, its logic beside it -------------


class Cap(Params):
    at_most: Decimal = Field(gt=0)


@pytest.fixture
def toy_check(monkeypatch):
    toy = declare("toy-max-bet", Cap, "bataille")

    class ToyRound(BatailleRound):
        def verify_bet(self, e: bat.Bet) -> None:
            super().verify_bet(e)
            cap = self.flagger.settings(toy)
            if cap is not None and e.amount > cap.at_most:
                self.flag(toy, f"a bet of {e.amount} above the cap of {cap.at_most}")

        # the events it plays: the round's, BET verified by this class's own function
        EVENTS: ClassVar = {**BatailleRound.EVENTS, "BET": (verify_bet, BatailleRound.apply_bet)}

    monkeypatch.setitem(GAMES, "bataille", replace(GAMES["bataille"], round=ToyRound))
    yield toy
    del DECLARED[toy.name]


# -- the recipe's data: one YAML entry (here a whole toy ruleset) ----------------------------------


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "rulesets"
    folder.mkdir()
    shutil.copy(rulesets_dir() / "del-v1.yaml", folder)
    (folder / "toy-bataille.yaml").write_text(TOY_RULESET, encoding="utf-8")
    return folder


def _toy_findings(tmp_path: Path, amount: int) -> list:
    log = tmp_path / f"bet-{amount}.del"
    log.write_text(LOG.format(amount=amount), encoding="utf-8")
    run, _ = audit_input(Library.load(_folder(tmp_path)), str(log))
    return [f for f in run.findings if f.rule == "TOY-MAX-BET"]


def test_a_declared_check_bound_by_a_ruleset_fires(tmp_path, toy_check):
    found = _toy_findings(tmp_path, 150)
    assert [(f.line, f.round, f.severity, f.message) for f in found] == [
        (6, 1, "error", "a bet of 150 above the cap of 100")
    ]
    assert found[0].actual == "BET seat=2 spot=main amount=150"
    assert found[0].citation == "art. 1: A bet never exceeds the cap."


def test_a_declared_check_bound_by_a_ruleset_stays_silent_when_kept(tmp_path, toy_check):
    assert _toy_findings(tmp_path, 50) == []


def test_the_yaml_entry_alone_is_not_enough(tmp_path):
    with pytest.raises(
        RulesetError, match=r"toy-bataille.yaml, line 9: rules\[0\]\.check: unknown check"
    ):
        Library.load(_folder(tmp_path))
