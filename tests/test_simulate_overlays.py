"""The simulator plays the loaded ruleset: its parameters, and a house overlay's, reach the night it writes.

A night simulated under a regulation of one's own (a rulesets folder with
other parameters) audits clean under it, and the same night audited under the
shipped ruleset breaks exactly the rules whose parameters changed: the proof
that the simulator read them. A house overlay may only tighten the
regulation; the night simulated under one audits clean under it and shows
the tighter figures.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from in_process import audit as audit_here

from audit.games.bataille.params import bataille_params
from audit.games.chemin_de_fer.params import cdf_params
from audit.rulesets import Library
from audit.simulate import EXAMPLE_START, SimulationError, cli_tables, simulate
from audit.simulate.faults import applicable, faulty_night
from audit.simulate.params import default_library
from fixtures import own_rulesets, read_fixture

ROOT = Path(__file__).resolve().parent.parent
FR, MC, CDF = "fr-bataille-2007", "mc-sun-war-2006", "be-ostende-cdf"

#: ruleset -> (rules changed, what the night must show, rules the night breaks under the shipped ruleset)
CHANGED = {
    FR: (
        {
            "FR-SHOE-DECKS": {"params": {"decks": 8}},
            "FR-STOPCARD-TALON": {"params": {"min_talon": 70}},
            "FR-BURN-START": {"params": {"count": 3}},
            "FR-BURN-START-EXTRA": {"params": {"count": 3}},
            "FR-BURN-BATAILLE": {
                "params": {"before_players": 2, "before_each_player": 0, "before_dealer": 2}
            },
            "FR-BURN-BATAILLE-EXTRA": {
                "params": {"before_players": 2, "before_each_player": 0, "before_dealer": 2}
            },
            "FR-PAY-EGALITE": {"params": {"odds": 8}},
            "FR-LIMITS-MAX": {"params": {"multiples": [10, 20, 40]}},
        },
        [r"SHOE new decks=8 ", r"STOPCARD talon=(7\d|8\d|9[0-8])\b", r"max=400 "],
        {"FR-SHOE-DECKS", "FR-BURN-START", "FR-BURN-BATAILLE", "FR-PAY-EGALITE", "FR-LIMITS-MAX"},
    ),
    MC: (
        {
            "MC-SHOE-DECKS": {"params": {"decks": 4}},
            "MC-BURN-START": {"params": {"count": 7}},
            "MC-BURN-START-EXTRA": {"params": {"count": 7}},
            "MC-BURN-RESUME": {"params": {"count": 2}},
            "MC-BURN-RESUME-EXTRA": {"params": {"count": 2}},
            "MC-PAY-EGALITE": {"params": {"odds": 12}},
            "MC-END-ANNOUNCED": {"params": {"last_rounds": 5}},
        },
        [r"SHOE new decks=4 ", r"ANNOUNCE last-rounds n=5$", r"RESUME$"],
        {"MC-SHOE-DECKS", "MC-BURN-START-EXTRA", "MC-BURN-RESUME", "MC-PAY-EGALITE"},
    ),
    CDF: (
        {
            "CDF-SHOE-DECKS": {"params": {"decks": 4}},
            **{
                rule: {
                    "params": {
                        "rows": {
                            3: list("TTTTTTTTROT"),
                            4: list("RRTTTTTTRRT"),
                            5: list("RRRROTTTRRT"),
                            6: list("RRRRRRTTRRT"),
                        }
                    }
                }
                for rule in ("CDF-DRAW-BANKER", "CDF-TABLEAU")
            },
        },
        [r"SHOE new decks=4 "],
        {"CDF-SHOE-DECKS", "CDF-DRAW-BANKER"},
    ),
}


def overlay(tmp_path: Path, ruleset: str, rules: str) -> Path:
    path = tmp_path / f"house-{ruleset}.yaml"
    path.write_text(
        f"overlay: sim-test\nruleset: {ruleset}\ntitle: a house that changes parameters\nrules:{rules}",
        encoding="utf-8",
    )
    return path


def check(log: Path, *house: Path, rulesets: Path | None = None) -> tuple[int, list[dict]]:
    args = [a for h in house for a in ("--house", str(h))] + (
        ["--rulesets", str(rulesets)] if rulesets else []
    )
    done = audit_here("check", "--format", "json", *args, str(log), cwd=ROOT)  # in this process
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)["findings"]


def night(tmp_path: Path, ruleset: str, library: Library, rounds: int = 120) -> Path:
    log = tmp_path / f"{ruleset}.del"
    lines = simulate(
        tables=cli_tables([ruleset], 2, rounds, library),
        seed=4,
        start=EXAMPLE_START,
        library=library,
    )
    log.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return log


@pytest.mark.parametrize("ruleset", [FR, MC, CDF], ids=["fr", "mc", "cdf"])
def test_a_rulesets_parameters_reach_the_simulator_and_its_night_audits_clean_under_it(
    tmp_path, ruleset
):
    rules, shows, broken = CHANGED[ruleset]
    folder = own_rulesets(tmp_path / "regs", rules)
    log = night(tmp_path, ruleset, Library.load(folder))
    text = log.read_text(encoding="utf-8")
    for pattern in shows:
        assert re.search(pattern, text, re.MULTILINE), pattern
    assert "decks=6" not in text
    assert check(log, rulesets=folder) == (0, [])
    code, findings = check(log)
    assert code == 1 and broken <= {f["rule"] for f in findings}


def test_an_overlays_tightenings_reach_the_simulator_and_its_night_audits_clean_under_it(tmp_path):
    house = overlay(
        tmp_path,
        FR,
        """
  FR-STOPCARD-TALON: {params: {min_talon: 70}}
  FR-LIMITS-MAX: {params: {multiples: [10]}}
  FR-SHOE-PROCEDURE: {params: {allowed: [sabot]}}
""",
    )
    library = Library.load(overlays=[house])
    assert library.get(FR).overlay.changes.tightened == [
        "FR-LIMITS-MAX",
        "FR-SHOE-PROCEDURE",
        "FR-STOPCARD-TALON",
    ]
    log = night(tmp_path, FR, library)
    text = log.read_text(encoding="utf-8")
    talons = [int(t) for t in re.findall(r"STOPCARD talon=(\d+)", text)]
    limits = [(int(a), int(b)) for a, b in re.findall(r" min=(\d+) max=(\d+)", text)]
    assert talons and min(talons) >= 70
    assert limits and all(high == 10 * low for low, high in limits)
    assert "procedure=shuffler" not in text
    assert check(log, house) == (0, [])


#: every house overlay the project ships (its own, and those of the rule fixtures)
SHIPPED_OVERLAYS = sorted(
    [*ROOT.glob("rulesets/house/*.yaml"), *ROOT.glob("fixtures/rules/*/*.yaml")]
)


@pytest.mark.parametrize("house", SHIPPED_OVERLAYS, ids=lambda p: p.stem)
def test_a_night_under_each_shipped_overlay_audits_clean_under_it(tmp_path, house):
    """The house's options (limits, boxes, a lone player's two boxes, no standing players,
    no égalité, the shoe procedures) shape the night the simulator writes."""
    library = Library.load(overlays=[house])
    ruleset = library.rulesets[
        next(r for r in (FR, MC, CDF) if library.rulesets[r].overlay is not None)
    ]
    log = tmp_path / "house.del"
    specs = cli_tables([ruleset.id], 4, 150, library)
    lines = simulate(tables=specs, seed=2, start=EXAMPLE_START, library=library)
    log.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    assert check(log, house) == (0, [])


def test_without_an_overlay_the_night_is_the_shipped_rulesets(tmp_path):
    library = default_library()
    log = night(tmp_path, FR, library, rounds=30)
    assert "SHOE new decks=6 " in log.read_text(encoding="utf-8")
    assert bataille_params(library.get(FR)).start_burns == 5
    assert cdf_params(library.get(CDF)).banker_rows[6] == "RRRRRRTTRRR"


def test_faults_break_the_rules_the_ruleset_keeps(tmp_path):
    """A rule turned off takes no fault: its category is not applicable, and the fault of a
    category with another rule on breaks that one; the ids come from the loaded ruleset."""
    folder = own_rulesets(
        tmp_path / "regs",
        {
            "FR-PAY-ORDER": {"enabled": False},
            "FR-VACANT-SEAT": {"enabled": False},
            "FR-PAY-EGALITE": {"params": {"odds": 9}},
        },
    )
    library = Library.load(folder)
    specs = cli_tables([FR], 2, 80, library)
    categories = applicable(specs, library)
    assert "pay-order" not in categories and "table" in categories
    assert "pay-order" in applicable(specs)  # the shipped ruleset has the rule
    lines, expected, chosen = faulty_night(
        tables=specs,
        seed=3,
        start=EXAMPLE_START,
        casino="Casino-Simulation",
        categories=categories,
        library=library,
    )
    log = tmp_path / "faulty.del"
    log.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    assert all(f.placed for f in chosen.faults)
    rules = {e.rule for e in expected}
    assert "FR-SEAT-RANGE" in rules and not rules & {"FR-PAY-ORDER", "FR-VACANT-SEAT"}
    code, findings = check(log, rulesets=folder)
    assert code == 1
    assert sorted((f["rule"], f["line"], f["category"]) for f in findings) == sorted(
        (e.rule, e.line, e.category) for e in expected
    )
    assert read_fixture(log).expected == sorted((f["rule"], f["line"]) for f in findings)


def test_a_table_its_ruleset_does_not_allow_is_refused(tmp_path):
    house = overlay(tmp_path, FR, "\n  FR-SEATS-MAX: {params: {max_seats: 5}}\n")
    library = Library.load(overlays=[house])
    assert {s.seats for s in cli_tables([FR], 2, 10, library)} == {5}
    with pytest.raises(ValueError, match="at most 5 seats"):
        simulate(tables=cli_tables([FR], 2, 10), seed=1, start=EXAMPLE_START, library=library)


def test_a_ruleset_without_a_parameter_the_simulator_needs_is_refused(tmp_path):
    """Rules turned off still give their parameters; a ruleset with no rule of a needed check says which."""
    for path in (ROOT / "rulesets").glob("*.yaml"):
        shutil.copy(path, tmp_path / path.name)
    fr = tmp_path / f"{FR}.yaml"
    data = yaml.safe_load(fr.read_text(encoding="utf-8"))
    data["rules"] = [r for r in data["rules"] if r["check"] != "shoe-decks"]
    fr.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    library = Library.load(tmp_path)
    with pytest.raises(SimulationError, match="no rule with check 'shoe-decks'"):
        simulate(
            tables=cli_tables([FR], 1, 5, library), seed=1, start=EXAMPLE_START, library=library
        )
    off = own_rulesets(tmp_path / "off", {"FR-SHOE-DECKS": {"enabled": False}})
    lines = list(
        simulate(
            tables=cli_tables([FR], 1, 5), seed=1, start=EXAMPLE_START, library=Library.load(off)
        )
    )
    assert any(line.endswith(" SHOE new decks=6 procedure=sabot") for line in lines)
