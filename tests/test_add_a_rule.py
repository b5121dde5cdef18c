"""The "add a rule" recipe, followed for a toy check: its declaration beside its logic, one YAML entry.

Nothing else changes: not the catalogue (derived from the declarations), not
the engine, not the ruleset loader. The toy's logic extends the bataille
round's ``verify_bet``, as an edit of ``audit/games/bataille/round.py`` would;
it is registered for the game by replacing the bataille's round class in the
registry for the length of the test.
"""

from __future__ import annotations

import re
import shutil
import subprocess
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


# -- the recipe's own list of files (docs/architecture.md) ------------------------------------

ROOT = Path(__file__).resolve().parent.parent
_PATH = re.compile(r"(?<![\w/.<>-])((?:[\w.<>-]+/)+[\w.<>-]*)")
_RULE_WORD = re.compile(r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+")


def _recipe() -> str:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    start = text.index("## Recipe: add a rule")
    return text[start : text.index("\n## ", start + 1)]


def _recipe_paths() -> list[str]:
    return sorted(set(_PATH.findall(_recipe())))


def _covers(pattern: str, path: str) -> bool:
    """A recipe path (``<…>`` any one name, a trailing ``/`` any file below) covers ``path``."""
    regex = re.escape(pattern).replace(re.escape("<"), "<").replace(re.escape(">"), ">")
    regex = re.sub(r"<[^>]+>", r"[^/]+", regex)
    return re.fullmatch(regex + (".*" if pattern.endswith("/") else ""), path) is not None


def _files_every_rule_is_in() -> set[str]:
    """The tracked files that name every shipped rule (by its id, in their text or their path),
    each path with the rule's id and ruleset's id put back as ``<RULE-ID>`` and ``<ruleset>``."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    words: dict[str, set[str]] = {}
    for name in tracked:
        try:
            words[name] = set(_RULE_WORD.findall((ROOT / name).read_text(encoding="utf-8")))
        except (UnicodeDecodeError, OSError):
            continue
    common: set[str] | None = None
    for loaded in Library.load().rulesets.values():
        for rule in loaded.model.rules:
            named = {
                name.replace(rule.id, "<RULE-ID>").replace(loaded.id, "<ruleset>")
                for name, found in words.items()
                if rule.id in found or rule.id in name
            }
            common = named if common is None else common & named
    return common or set()


def test_every_file_a_rule_is_written_in_is_named_by_the_recipe():
    everywhere = _files_every_rule_is_in()
    assert "rulesets/<ruleset>.yaml" in everywhere  # the scan sees the rulesets themselves
    patterns = _recipe_paths()
    missing = sorted(p for p in everywhere if not any(_covers(r, p) for r in patterns))
    assert missing == [], f"files every rule is written in that the recipe does not name: {missing}"


def test_every_file_the_recipe_names_exists():
    names = {"<ruleset>": "fr-bataille-2007", "<RULE-ID>": "FR-PAY-MAIN", "<game>": "bataille"}
    absent = []
    for pattern in _recipe_paths():
        if "NAME" in pattern:
            continue  # a preamble's name is the fixture writer's
        path = pattern
        for placeholder, value in names.items():
            path = path.replace(placeholder, value)
        if not list(ROOT.glob(re.sub(r"<[^>]+>", "*", path).rstrip("/") or ".")):
            absent.append(pattern)
    assert absent == []


def test_the_recipe_gives_the_commands_that_regenerate():
    from audit.docs_gen import REGENERATE as DOCS
    from audit.rules_markdown import REGENERATE as RULES

    recipe = " ".join(_recipe().split())
    for command in (
        RULES,
        DOCS,
        "audit trace --output docs/traceability.md",
        "python3 tests/golden/golden.py --update",
    ):
        assert f"`{command}`" in recipe, command
