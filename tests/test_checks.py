"""Checks are declared beside their code: a ruleset may bind only what its game declares.

A misspelt check, or a check of another game, is refused when the rulesets
load: the command exits 2 naming the file, the line and the key. The same for
a house overlay that tries to change what a rule checks.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from in_process import audit as audit_here

from audit.engine.checks import DECLARED, EVERY_GAME, FORMAT, NoParams, declare
from audit.registry import GAMES, checks_for
from audit.resources import rulesets_dir
from audit.rulesets import Library

ROOT = Path(__file__).resolve().parent.parent
THREE = ROOT / "fixtures" / "acceptance" / "three-breaches.del"


def audit(*args: str) -> subprocess.CompletedProcess:
    """The command line in this process (tests/in_process.py)."""
    return audit_here(*args, cwd=ROOT)


def _rulesets_with(tmp_path: Path, old: str, new: str) -> tuple[Path, int]:
    """A copy of the shipped rulesets with one line of the French ruleset changed, and that line's number."""
    folder = tmp_path / "rulesets"
    shutil.copytree(rulesets_dir(), folder, ignore=shutil.ignore_patterns("house"))
    path = folder / "fr-bataille-2007.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.count(old + "\n") == 1
    path.write_text(text.replace(old + "\n", new + "\n"), encoding="utf-8")
    line = next(
        i for i, t in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1) if t == new
    )
    return folder, line


@pytest.mark.parametrize(
    "bound, why",
    [
        ("burn-strat", "unknown check 'burn-strat'; did you mean burn-start?"),
        (
            "cdf-advice",
            "check 'cdf-advice' is a chemin-de-fer check, not one a bataille ruleset can bind",
        ),
    ],
)
def test_a_ruleset_binding_a_check_its_game_does_not_declare_exits_2_with_file_line_and_key(
    tmp_path, bound, why
):
    folder, line = _rulesets_with(tmp_path, "    check: burn-start", f"    check: {bound}")
    done = audit("check", "--rulesets", str(folder), str(THREE))
    assert done.returncode == 2, done.stderr
    index = next(
        i
        for i, rule in enumerate(Library.load().get("fr-bataille-2007").model.rules)
        if rule.check == "burn-start"
    )
    assert f"{folder / 'fr-bataille-2007.yaml'}, line {line}: rules[{index}].check" in done.stderr
    assert why in done.stderr
    assert "Traceback" not in done.stderr


def test_a_house_overlay_cannot_rebind_a_rule_to_another_check(tmp_path):
    overlay = tmp_path / "house.yaml"
    overlay.write_text(
        "overlay: t\nruleset: fr-bataille-2007\ntitle: t\nrules:\n  FR-BURN-START:\n"
        "    check: cdf-advice\n",
        encoding="utf-8",
    )
    done = audit("check", "--house", str(overlay), str(THREE))
    assert done.returncode == 2, done.stderr
    assert f"{overlay}, line 6: rules.FR-BURN-START.check: unknown key" in done.stderr


def test_a_house_overlay_naming_a_misspelt_rule_exits_2_with_file_line_and_key(tmp_path):
    overlay = tmp_path / "house.yaml"
    overlay.write_text(
        "overlay: t\nruleset: fr-bataille-2007\ntitle: t\nrules:\n  FR-BURN-STRAT:\n"
        "    enabled: false\n",
        encoding="utf-8",
    )
    done = audit("check", "--house", str(overlay), str(THREE))
    assert done.returncode == 2, done.stderr
    assert f"{overlay}, line 5: rules.FR-BURN-START" not in done.stderr
    assert (
        f"{overlay}, line 5: rules.FR-BURN-STRAT: no such rule in fr-bataille-2007" in done.stderr
    )


def test_every_shipped_rule_binds_a_check_of_its_game():
    for ruleset in Library.load().rulesets.values():
        allowed = checks_for(ruleset.game)
        assert allowed is not None
        assert {rule.check for rule in ruleset.model.rules} <= set(allowed)


def test_the_catalogue_is_the_declarations_and_each_game_answers_for_its_own_and_the_shared_ones():
    bataille, cdf = GAMES["bataille"].checks(), GAMES["chemin-de-fer"].checks()
    assert "pay-main" in bataille and "pay-main" not in cdf
    assert "cdf-advice" in cdf and "cdf-advice" not in bataille
    shared = {name for name, check in DECLARED.items() if check.scope in (FORMAT, EVERY_GAME)}
    assert {"syntax", "out-of-context", "shoe-decks", "no-more-bets", "seat-range"} <= shared
    assert shared <= set(bataille) & set(cdf)
    assert set(checks_for("any") or {}) == shared


def test_a_check_is_declared_once():
    with pytest.raises(ValueError, match="declared twice"):
        declare("pay-main", NoParams, "bataille")
    assert DECLARED["pay-main"].params.__name__ == "Odds"


def test_settings_are_typed_by_the_declaration():
    from audit.games.bataille.settle import PAY_MAIN, Odds

    fr = Library.load().get("fr-bataille-2007")
    odds = fr.settings(PAY_MAIN)
    assert isinstance(odds, Odds) and odds.odds == 1
    from audit.games.chemin_de_fer.drawing import CDF_ADVICE

    assert fr.settings(CDF_ADVICE) is None


def test_a_verb_of_the_other_game_is_named_as_such():
    assert GAMES["bataille"].foreign["HAND"] == "chemin de fer"
    assert GAMES["chemin-de-fer"].foreign["BET"] == "bataille"
    assert not GAMES["bataille"].verbs() & GAMES["bataille"].foreign.keys()
