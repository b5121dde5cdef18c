"""An overlay cannot loosen the law.

The casino writes its house overlays, and the casino is the audited party. A
ruleset says, rule by rule, whose each rule is (``authority``) and which way an
overlay may move each parameter of a regulation rule (``overlay``). An overlay
may turn a house rule on, tighten a regulation rule and set what the text
leaves to the house; one that turns a regulation rule off, lowers its severity,
loosens a parameter or changes one the regulation fixes is refused with exit 2,
naming file, line and key. ``LoadedOverlay.changes`` records what it did.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from in_process import audit as audit_here

from audit.engine.checks import DECLARED
from audit.rulesets import (
    DIRECTIONS,
    Library,
    OverlayChanges,
    RulesetError,
    house_reading,
    load_ruleset,
)

ROOT = Path(__file__).resolve().parent.parent
UNDERPAID = ROOT / "fixtures" / "rules" / "fr-bataille-2007" / "FR-PAY-MAIN.del"
FR, MC, CDF, DEL = "fr-bataille-2007", "mc-sun-war-2006", "be-ostende-cdf", "del-v1"


def audit(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """The auditor of this checkout, run from ``cwd`` (where it looks for audit.toml), in this
    process (tests/in_process.py)."""
    return audit_here(*args, cwd=cwd)


def house(tmp_path: Path, rules: str, ruleset: str = FR, name: str = "house.yaml") -> Path:
    """An overlay whose ``rules:`` mapping starts on line 5 (its first rule id on line 5)."""
    path = tmp_path / name
    path.write_text(
        f"overlay: test-house\nruleset: {ruleset}\ntitle: t\nrules:\n{rules}", encoding="utf-8"
    )
    return path


def changes(path: Path) -> OverlayChanges:
    library = Library.load(overlays=[path])
    (overlay,) = [r.overlay for r in library.rulesets.values() if r.overlay is not None]
    return overlay.changes


def assert_refused(done: subprocess.CompletedProcess, where: str, *words: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    assert done.stderr.startswith(f"audit: {where}: ") and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr
    for word in words:
        assert word in done.stderr, done.stderr


# -- refused: what would hide a breach of the regulation -------------------------------------


def test_an_overlay_disabling_a_regulation_rule_is_refused_with_file_line_and_key(tmp_path):
    bad = house(tmp_path, "  FR-PAY-MAIN:\n    enabled: false\n")
    done = audit("check", "--house", str(bad), str(UNDERPAID))
    assert_refused(
        done, f"{bad}, line 6: rules.FR-PAY-MAIN.enabled", "encodes the regulation", "--ignore"
    )


def test_an_overlay_downgrading_a_regulation_rule_is_refused(tmp_path):
    bad = house(
        tmp_path,
        "  FR-STOPCARD-TALON: {params: {min_talon: 52}}\n  FR-PAY-MAIN:\n    severity: warning\n",
    )
    done = audit("check", "--house", str(bad), str(UNDERPAID))
    assert_refused(done, f"{bad}, line 7: rules.FR-PAY-MAIN.severity", "from error to warning")
    info = house(tmp_path, "  FR-STOPCARD-APPROX: {severity: info}\n", name="info.yaml")
    assert_refused(
        audit("check", "--house", str(info), str(UNDERPAID)),
        f"{info}, line 5: rules.FR-STOPCARD-APPROX.severity",
        "from warning to info",
    )


@pytest.mark.parametrize(
    ("rules", "key", "words"),
    [
        (
            "  FR-STOPCARD-TALON:\n    params: {min_talon: 40}\n",
            "FR-STOPCARD-TALON.params.min_talon",
            ["min_talon may only be raised from 45", "40"],
        ),
        (
            "  FR-SEATS-MAX:\n    params: {max_seats: 9}\n",
            "FR-SEATS-MAX.params.max_seats",
            ["max_seats may only be lowered from 7"],
        ),
        (
            "  FR-PAY-MAIN:\n    params: {odds: 0.9}\n",
            "FR-PAY-MAIN.params.odds",
            ["odds is fixed by the regulation (1)"],
        ),
        (
            "  FR-PAY-MAIN:\n    params: {odds: 2}\n",
            "FR-PAY-MAIN.params.odds",
            ["odds is fixed by the regulation (1)"],
        ),
        (
            "  FR-BURN-START:\n    params: {count: 3}\n",
            "FR-BURN-START.params.count",
            ["count is fixed"],
        ),
    ],
    ids=["raise-only", "lower-only", "fixed-down", "fixed-up", "fixed-burns"],
)
def test_an_overlay_loosening_or_changing_a_numeric_parameter_is_refused(
    tmp_path, rules, key, words
):
    bad = house(tmp_path, rules)
    assert_refused(
        audit("check", "--house", str(bad), str(UNDERPAID)), f"{bad}, line 6: rules.{key}", *words
    )


@pytest.mark.parametrize(
    ("ruleset", "rules", "key", "words"),
    [
        (
            FR,
            "  FR-LIMITS-MAX:\n    params: {multiples: [10, 20, 30, 50, 100]}\n",
            "FR-LIMITS-MAX.params.multiples",
            ["multiples may only lose values of [10, 20, 30, 50]"],
        ),
        (
            FR,
            "  FR-LIMITS-MAX:\n    params: {multiples: [10, 40]}\n",
            "FR-LIMITS-MAX.params.multiples",
            ["[10, 40]"],
        ),
        (
            FR,
            "  FR-LATE-BET:\n    params: {at_bataille: [war, egalite-war]}\n",
            "FR-LATE-BET.params.at_bataille",
            ["at_bataille may only lose values"],
        ),
        (
            MC,
            "  MC-SHOE-SHUFFLE:\n    params: {procedures: [sabot]}\n",
            "MC-SHOE-SHUFFLE.params.procedures",
            ["procedures may only gain values beside [sabot, shuffler]"],
        ),
        (
            FR,
            "  FR-SHOE-CUT:\n    params: {pattern: last-by-player}\n",
            "FR-SHOE-CUT.params.pattern",
            [
                "towards the strict end of last-by-player, dealer-then-player-last, dealer-then-player"
            ],
        ),
        (
            CDF,
            "  CDF-LATE-STAKE:\n    params: {follower_until: any-time}\n",
            "CDF-LATE-STAKE.params.follower_until",
            ["follower_until may only move from cards-taken"],
        ),
    ],
    ids=[
        "widened-list",
        "changed-list",
        "late-bets",
        "dropped-from-a-widen-list",
        "ladder-down",
        "ladder-cdf",
    ],
)
def test_an_overlay_widening_a_list_or_stepping_down_a_ladder_is_refused(
    tmp_path, ruleset, rules, key, words
):
    bad = house(tmp_path, rules, ruleset)
    done = audit("rules", ruleset, "--house", str(bad))
    assert_refused(done, f"{bad}, line 6: rules.{key}", *words)


def test_the_format_rules_cannot_be_loosened_either(tmp_path):
    bad = house(tmp_path, "  DEL-TIME-ORDER:\n    params: {tolerance_seconds: 60}\n", DEL)
    assert_refused(
        audit("check", "--house", str(bad), str(UNDERPAID)),
        f"{bad}, line 6: rules.DEL-TIME-ORDER.params.tolerance_seconds",
        "lowered from 5",
    )
    good = house(
        tmp_path, "  DEL-TIME-ORDER:\n    params: {tolerance_seconds: 2}\n", DEL, name="good.yaml"
    )
    assert changes(good) == OverlayChanges(tightened=["DEL-TIME-ORDER"], added=[], parameters=[])


def test_a_per_table_overlay_of_the_configuration_is_refused_the_same_way(tmp_path):
    bad = house(tmp_path, "  FR-PAY-MAIN:\n    enabled: false\n", name="bad.yaml")
    (tmp_path / "audit.toml").write_text('[house]\n"FR-*" = "bad.yaml"\n', encoding="utf-8")
    done = audit("check", str(UNDERPAID), cwd=tmp_path)
    assert_refused(done, f"{bad}, line 6: rules.FR-PAY-MAIN.enabled", "cannot turn it off")
    assert_refused(
        audit("check", "--config", str(tmp_path / "audit.toml"), str(UNDERPAID)),
        f"{bad}, line 6: rules.FR-PAY-MAIN.enabled",
        "cannot turn it off",
    )
    with pytest.raises(
        RulesetError, match=r"bad.yaml, line 6: rules.FR-PAY-MAIN.enabled: FR-PAY-MAIN encodes"
    ):
        Library.load(table_overlays=[("FR-FAIL", bad)])


# -- accepted: tightening, house rules, house parameters, words ------------------------------


def test_tightening_is_accepted_and_recorded(tmp_path):
    path = house(
        tmp_path,
        """\
  FR-STOPCARD-APPROX: {severity: error}
  FR-STOPCARD-TALON: {params: {min_talon: 52}}
  FR-SHOE-PROCEDURE: {params: {allowed: [shuffler, sabot]}}
  FR-LIMITS-MAX: {params: {multiples: [20, 10]}}
  FR-SHOE-CUT: {params: {pattern: dealer-then-player}}
  FR-SEATS-MAX: {params: {max_seats: 5}}
""",
    )
    assert changes(path) == OverlayChanges(
        tightened=[
            "FR-LIMITS-MAX",
            "FR-SEATS-MAX",
            "FR-SHOE-CUT",
            "FR-SHOE-PROCEDURE",
            "FR-STOPCARD-APPROX",
            "FR-STOPCARD-TALON",
        ],
        added=[],
        parameters=[],
    )
    fr = Library.load(overlays=[path]).get(FR)
    rules = {r.id: r for r in fr.model.rules}
    assert (
        rules["FR-STOPCARD-APPROX"].severity == "error"
        and rules["FR-STOPCARD-TALON"].settings.min_talon == 52
    )
    # a regulation rule the ruleset leaves off, turned on: stricter too
    on = house(tmp_path, "  MC-PAY-ORDER: {enabled: true}\n", MC, name="on.yaml")
    assert changes(on) == OverlayChanges(tightened=["MC-PAY-ORDER"], added=[], parameters=[])


def test_house_rules_and_house_parameters_are_accepted_and_recorded(tmp_path):
    path = house(
        tmp_path,
        """\
  FR-HOUSE-BOXES: {enabled: true, params: {max_boxes: 4}, severity: warning}
  FR-HOUSE-NO-STANDING: {enabled: true}
  FR-HOUSE-LONE-PLAYER: {params: {}}
  FR-EGALITE-OFFERED: {params: {offered: false}}
""",
    )
    assert changes(path) == OverlayChanges(
        tightened=[],
        added=["FR-HOUSE-BOXES", "FR-HOUSE-NO-STANDING"],
        parameters=["FR-EGALITE-OFFERED", "FR-HOUSE-BOXES"],
    )
    grid = house(
        tmp_path,
        "  CDF-AUCTION: {params: {grid: landing-bracket}}\n"
        "  CDF-PLAYERS-MIN: {params: {min_players: 5, at: round-begin}}\n",
        CDF,
        name="grid.yaml",
    )
    assert changes(grid) == OverlayChanges(
        tightened=["CDF-PLAYERS-MIN"], added=[], parameters=["CDF-AUCTION", "CDF-PLAYERS-MIN"]
    )
    # a house rule's parameters set while it stays off change nothing the audit does
    off = house(tmp_path, "  FR-HOUSE-BOXES: {params: {max_boxes: 1}}\n", name="off.yaml")
    assert changes(off) == OverlayChanges()


def test_restating_the_ruleset_changes_nothing_and_a_reading_is_the_houses_beside_ours(tmp_path):
    """A reading changes nothing the audit checks, but the audited party wrote it: the report lists
    the rules it reads, and the rule keeps the ruleset's reading (the house's is shown beside it)."""
    path = house(
        tmp_path,
        """\
  FR-PAY-MAIN: {enabled: true, severity: error, params: {odds: 1.0}, reading: The house pays even money.}
  FR-SHOE-PROCEDURE: {params: {allowed: [shuffler-dealer, sabot, shuffler]}}
  FR-HOUSE-LIMITS: {enabled: false}
""",
    )
    assert changes(path) == OverlayChanges(readings=["FR-PAY-MAIN"])
    plain = next(r for r in Library.load().get(FR).model.rules if r.id == "FR-PAY-MAIN")
    loaded = Library.load(overlays=[path]).get(FR)
    rule = next(r for r in loaded.model.rules if r.id == "FR-PAY-MAIN")
    assert rule.reading == plain.reading and rule.enabled
    assert house_reading(loaded, rule) == ("test-house", "The house pays even money.")
    restated = house(tmp_path, "  FR-PAY-MAIN: {enabled: true, severity: error}\n", name="r.yaml")
    assert changes(restated) == OverlayChanges()


def test_a_houses_reading_shows_in_every_format_beside_the_rulesets(tmp_path):
    path = house(tmp_path, "  FR-STOPCARD-TALON: {reading: The croupier leaves what he likes.}\n")
    plain = next(r for r in Library.load().get(FR).model.rules if r.id == "FR-STOPCARD-TALON")
    assert plain.reading
    shown = {}
    for fmt in ("json", "sarif", "text", "junit", "html"):
        done = audit("check", "--format", fmt, "--house", str(path), str(UNDERPAID))
        assert done.returncode == 1, done.stderr
        shown[fmt] = done.stdout
    (overlay,) = json.loads(shown["json"])["configuration"]["overlays"]
    assert overlay["readings"] == ["FR-STOPCARD-TALON"]
    assert "gives its own reading of FR-STOPCARD-TALON" in shown["text"]
    assert 'configuration.overlays.1.readings" value="FR-STOPCARD-TALON"' in shown["junit"]
    assert "its own reading of" in shown["html"]
    sarif = json.loads(shown["sarif"])
    (descriptor,) = [
        r
        for run in sarif["runs"]
        for r in run["tool"]["driver"]["rules"]
        if r["id"] == "FR-STOPCARD-TALON"
    ]
    assert descriptor["properties"]["reading"] == plain.reading
    assert descriptor["properties"]["house_reading"] == {
        "overlay": "test-house",
        "text": "The croupier leaves what he likes.",
    }
    full = descriptor["fullDescription"]["text"]
    ours = full.index(f"Reading: {plain.reading}")
    theirs = full.index(
        "Reading of the house overlay test-house (changes nothing checked): The croupier"
    )
    assert ours < theirs


def test_the_record_is_the_same_however_often_the_overlay_is_applied(tmp_path):
    path = house(
        tmp_path,
        "  FR-HOUSE-BOXES: {enabled: true}\n  FR-STOPCARD-TALON: {params: {min_talon: 50}}\n",
    )
    library = Library.load(table_overlays=[("FR-*", path)])
    ((_, overlay),) = library.overlays()
    first = overlay.changes
    library.for_table(FR, "FR-FAIL")
    library.for_table(FR, "FR-PASS")
    assert overlay.changes == first == OverlayChanges(["FR-STOPCARD-TALON"], ["FR-HOUSE-BOXES"], [])


ACCEPTED = {
    "shipped-example": ROOT / "rulesets" / "house" / "casino-exemple-fr.yaml",
    "every-house-rule": ROOT / "rulesets" / "house" / "fixture-fr-all-house-rules.yaml",
    "no-egalite": ROOT / "rulesets" / "house" / "fixture-fr-no-egalite.yaml",
    "no-machine": ROOT / "rulesets" / "house" / "fixture-fr-no-dealing-machine.yaml",
    "restated": "  FR-PAY-MAIN: {enabled: true, severity: error, params: {odds: 1}}\n",
    "reading": "  FR-PAY-MAIN: {reading: The croupier pays what he likes.}\n",
    "strictest": (
        "  FR-PAY-MAIN: {severity: error}\n  FR-SETTLE-ONCE: {severity: error}\n"
        "  FR-STOPCARD-TALON: {params: {min_talon: 60}}\n"
    ),
}


@pytest.mark.parametrize("attempt", ACCEPTED, ids=list(ACCEPTED))
def test_the_underpayment_still_fails_under_every_accepted_overlay(tmp_path, attempt):
    given = ACCEPTED[attempt]
    path = given if isinstance(given, Path) else house(tmp_path, given)
    done = audit("check", "--format", "json", "--house", str(path), str(UNDERPAID))
    assert done.returncode == 1, done.stderr
    found = [(f["rule"], f["severity"]) for f in json.loads(done.stdout)["findings"]]
    assert ("FR-PAY-MAIN", "error") in found


@pytest.mark.parametrize(
    "rules",
    [
        "  FR-PAY-MAIN: {enabled: false}\n",
        "  FR-PAY-MAIN: {severity: info}\n",
        "  FR-PAY-MAIN: {params: {odds: 0.5}}\n",
        "  FR-SETTLE-ONCE: {enabled: false}\n  FR-PAY-MAIN: {severity: warning}\n",
    ],
    ids=["off", "info", "odds", "two"],
)
def test_no_overlay_makes_the_underpayment_pass(tmp_path, rules):
    done = audit("check", "--house", str(house(tmp_path, rules)), str(UNDERPAID))
    assert done.returncode == 2 and "encodes the regulation" in done.stderr


# -- the data: every shipped rule says whose it is, consistently -----------------------------


def test_every_shipped_rule_declares_its_authority_consistently():
    library = Library.load()
    seen_house = 0
    for ruleset in library.rulesets.values():
        for rule in ruleset.model.rules:
            fields = DECLARED[rule.check].params.model_fields
            assert (rule.authority == "house") == ("-HOUSE-" in rule.id), rule.id
            if rule.authority == "house":
                seen_house += 1
                assert not rule.enabled, (
                    f"{rule.id}: a house rule is off until an overlay turns it on"
                )
                assert not rule.overlay, f"{rule.id}: a house rule's parameters are all the house's"
                assert (
                    rule.citation.article == "art. 55-19-2" or "55-19-1" in rule.citation.article
                ), rule.id
            elif not rule.enabled:
                assert rule.reading and rule.reading.startswith("Off by default"), rule.id
            for key, how in rule.overlay.items():
                assert key in fields, f"{rule.id}: overlay.{key} names no parameter of {rule.check}"
                assert isinstance(how, list) or how in DIRECTIONS, rule.id
    assert seen_house == 4


def test_what_the_shipped_rulesets_leave_to_an_overlay():
    """The parameters an overlay may move, ruleset by ruleset: a change here is a change of what
    the house may do, to be made on purpose."""
    library = Library.load()
    movable = {
        r.id: dict(r.overlay)
        for rs in library.rulesets.values()
        for r in rs.model.rules
        if r.overlay
    }
    assert movable["FR-EGALITE-OFFERED"] == {"offered": "house"}
    assert movable["FR-STOPCARD-TALON"] == {"min_talon": "raise"}
    assert movable["FR-SHOE-PROCEDURE"] == {"allowed": "narrow"}
    assert not {
        "FR-PAY-MAIN",
        "FR-PAY-BATAILLE",
        "FR-PAY-EGALITE",
        "FR-SURRENDER",
        "FR-SHOE-DECKS",
        "FR-BURN-START",
        "MC-PAY-MAIN",
        "CDF-TABLEAU",
        "CDF-DRAW-BANKER",
        "CDF-STAKES-BANK",
    } & set(movable)
    assert sorted(movable) == sorted(
        [
            "CDF-ASSOCIATE",
            "CDF-AUCTION",
            "CDF-CARDS-LEFT",
            "CDF-LATE-STAKE",
            "CDF-PLAYERS-MIN",
            "CDF-SHOE-SHUFFLE",
            "DEL-TIME-ORDER",
            "FR-EGALITE-OFFERED",
            "FR-LATE-BET",
            "FR-LIMITS-MAX",
            "FR-SEATS-MAX",
            "FR-SHOE-CUT",
            "FR-SHOE-PROCEDURE",
            "FR-SHOE-SHUFFLE",
            "FR-STOPCARD-APPROX",
            "FR-STOPCARD-TALON",
            "MC-LATE-BET",
            "MC-SHOE-CUT",
            "MC-SHOE-PROCEDURE",
            "MC-SHOE-SHUFFLE",
            "MC-STOPCARD-TALON",
        ]
    )


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (
            "    overlay: {min_talons: raise}\n",
            "overlay.min_talons: check stopcard-talon has no parameter 'min_talons'",
        ),
        ("    overlay: {min_talon: upwards}\n", "overlay.min_talon: unknown direction 'upwards'"),
        (
            "    overlay: {min_talon: narrow}\n",
            "overlay.min_talon: narrow needs a list of plain values",
        ),
        (
            "    overlay: {min_talon: [52, 45]}\n",
            "overlay.min_talon: the rule's own value 44 is not on its ladder",
        ),
        (
            "    overlay: {min_talon: [44]}\n",
            "overlay.min_talon: a ladder lists at least two different values",
        ),
        (
            "    overlay: {min_talon: [44, nope]}\n",
            "overlay.min_talon: 'nope' is not a value min_talon accepts",
        ),
        (
            "    authority: house\n    overlay: {min_talon: raise}\n",
            "overlay: a house rule's parameters are all the house's",
        ),
        ("    authority: law\n", "authority"),
    ],
)
def test_a_ruleset_whose_declarations_do_not_fit_its_check_is_refused(tmp_path, line, why):
    path = tmp_path / "own.yaml"
    path.write_text(
        "id: own\ngame: bataille\ntitle: t\nregulation: {name: n, source: [x]}\nrules:\n"
        "  - id: OWN-TALON\n    check: stopcard-talon\n    category: shoe\n    severity: error\n"
        "    message: m\n    citation: {article: a, text: t}\n    params: {min_talon: 44}\n" + line,
        encoding="utf-8",
    )
    with pytest.raises(RulesetError, match=r"own.yaml, line \d+: rules\[0\]") as err:
        load_ruleset(path)
    assert why in str(err.value)


def test_an_overlay_cannot_rewrite_whose_rule_it_is(tmp_path):
    for key in ("authority: house", "overlay: {odds: house}"):
        bad = house(tmp_path, f"  FR-PAY-MAIN:\n    {key}\n")
        done = audit("check", "--house", str(bad), str(UNDERPAID))
        assert_refused(done, f"{bad}, line 6: rules.FR-PAY-MAIN.{key.split(':')[0]}", "unknown key")


def test_explain_says_what_an_overlay_may_do_and_whose_reading_it_shows(tmp_path):
    shown = {
        rule: audit("explain", rule).stdout
        for rule in (
            "FR-PAY-MAIN",
            "FR-STOPCARD-TALON",
            "FR-HOUSE-BOXES",
            "FR-SHOE-CUT",
            "MC-PAY-ORDER",
        )
    }
    assert (
        "  authority the regulation's: a house overlay may only raise its severity; odds fixed\n"
        in shown["FR-PAY-MAIN"]
    )
    assert "may only raise its severity, raise min_talon\n" in shown["FR-STOPCARD-TALON"]
    assert (
        "  authority a house rule: a house overlay turns it on and sets its parameters\n"
        in shown["FR-HOUSE-BOXES"]
    )
    assert "move pattern towards dealer-then-player\n" in shown["FR-SHOE-CUT"]
    assert "raise its severity, turn it on; order fixed\n" in shown["MC-PAY-ORDER"]
    assert "Reading (where the text is silent or ambiguous)" in shown["FR-STOPCARD-TALON"]
    path = ROOT / "rulesets" / "house" / "casino-exemple-fr.yaml"
    text = audit("explain", "FR-STOPCARD-TALON", "--house", str(path)).stdout
    ours = text.index("Reading (where the text is silent or ambiguous)")
    theirs = text.index("Reading of the house overlay casino-exemple-fr (the house's words, beside")
    assert ours < theirs
    assert "a talon under 52 cards is an error here" in text[theirs:]
    assert "min_talon: 52" in text
    # a rule the overlay gives no reading keeps the ruleset's, under its own heading
    text = audit("explain", "FR-SHOE-PROCEDURE", "--house", str(path)).stdout
    assert (
        "Reading (where the text is silent or ambiguous)" in text
        and "Reading of the house" not in text
    )
