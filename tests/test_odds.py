"""``audit odds``: the contract's figures, and every figure against an independent computation.

The independent computations are written plainly here: brute force over every ordered deal
of a small shoe (each card a distinct object), with the regulations' payouts and drawing table
written out by hand, and closed forms for the full shoe.
"""

from __future__ import annotations

import json
import subprocess
from fractions import Fraction
from itertools import permutations
from pathlib import Path

import pytest
from in_process import audit as audit_here

from audit.odds import OddsError, bataille, chemin_de_fer, compute
from audit.rulesets import Library
from fixtures import own_rulesets

ROOT = Path(__file__).resolve().parent.parent
ACE = 14

CONTRACT = {
    "format": "del-audit-odds",
    "version": 1,
    "ruleset": "fr-bataille-2007",
    "decks": 6,
    "bets": [
        {
            "bet": "main",
            "strategy": "bataille",
            "house_edge": "170016/4965115",
            "house_edge_pct": 3.4242,
            "sd": 1.0469,
        },
        {
            "bet": "main",
            "strategy": "surrender",
            "house_edge": "23/622",
            "house_edge_pct": 3.6977,
            "sd": 0.9712,
        },
        {
            "bet": "egalite",
            "strategy": None,
            "house_edge": "58/311",
            "house_edge_pct": 18.6495,
            "sd": 2.8787,
        },
    ],
}


@pytest.fixture(scope="module")
def library() -> Library:
    return Library.load()


def audit(*args: str) -> subprocess.CompletedProcess:
    """The command line in this process (tests/in_process.py)."""
    return audit_here(*args, cwd=ROOT)


def edges(odds) -> dict[tuple[str, str | None], Fraction]:
    return {(f.bet, f.strategy): f.edge for f in odds.figures}


# -- the contract ---------------------------------------------------------------------------


def test_contract_figures_exactly(library):
    from audit.odds.render import as_json

    assert as_json(compute(library.get("fr-bataille-2007"))) == CONTRACT


def test_cli_json_is_the_contract():
    done = audit("odds", "fr-bataille-2007", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == CONTRACT


def test_cli_text_is_a_table():
    done = audit("odds", "mc-sun-war-2006")
    assert done.returncode == 0, done.stderr
    assert "mc-sun-war-2006 — 6 decks" in done.stdout
    assert "142853/4965115" in done.stdout and "2.8771" in done.stdout


def test_cli_chemin_de_fer_rows_name_every_choice():
    done = audit("odds", "be-ostende-cdf", "-f", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["format"], out["version"], out["ruleset"], out["decks"]) == (
        "del-audit-odds",
        1,
        "be-ostende-cdf",
        6,
    )
    rows = out["bets"]
    assert len(rows) == 8  # the ponte's 5 (draw, stand) x the table's two O cells (draw, stand)
    assert {tuple(sorted(r)) for r in rows} == {
        ("banker_edge", "banker_edge_pct", "bet", "sd", "strategy")
    }
    assert len({r["strategy"] for r in rows}) == 8
    for r in rows:
        p, q = map(int, r["banker_edge"].split("/"))
        assert r["banker_edge_pct"] == float(round(Fraction(p, q) * 100, 4))
    first = rows[0]["strategy"]
    assert (
        "ponte draws on 5" in first and "on 3 against a 9" in first and "on 5 against a 4" in first
    )
    # the printed table with the ponte drawing on 5 and the banker drawing at both O cells is
    # punto banco's rule: its published banker advantage before commission, six decks, is 1.2374 %
    assert rows[0]["banker_edge_pct"] == 1.2374


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("odds", "no-such-ruleset"), "no ruleset 'no-such-ruleset'"),
        (("odds", "del-v1"), "no bet to compute"),
    ],
)
def test_cli_refuses_with_exit_2(args, words):
    done = audit(*args)
    assert done.returncode == 2
    assert words in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_cli_refuses_a_ruleset_whose_bets_are_all_off(tmp_path):
    folder = own_rulesets(
        tmp_path / "regs",
        {"FR-PAY-MAIN": {"enabled": False}, "FR-EGALITE-OFFERED": {"params": {"offered": False}}},
    )
    done = audit("odds", "fr-bataille-2007", "--rulesets", str(folder))
    assert done.returncode == 2
    assert "offers no bet" in done.stderr and "Traceback" not in done.stderr


# -- la bataille: brute force over a small shoe ------------------------------------------

SMALL = [ACE] * 3 + [13] * 3 + [5] * 3 + [2] * 3  # 12 cards: every ordered deal of 4 is enumerated


def brute_bataille(
    cards: list[int], war_equal_wins: bool, ace_wins_alone: bool
) -> dict[str, Fraction]:
    """The house's mean result per unit, by enumeration of every ordered deal of four cards.

    French text: bataille won pays the initial stake 1 to 1, equal is a push, lost loses both
    stakes. Monaco: won or equal, the house's matching stake is paid (the initial stake is
    returned); lost loses both. Surrender: the house keeps half. Égalité pays 10 to 1.
    """
    sums = {"bataille": Fraction(0), "surrender": Fraction(0), "egalite": Fraction(0)}
    deals = ties = 0
    rebet = Fraction(0)
    for a, b, c, d in permutations(range(len(cards)), 4):
        player, dealer, war_player, war_dealer = cards[a], cards[b], cards[c], cards[d]
        deals += 1
        if player != dealer:
            result = 1 if player < dealer else -1
            sums["bataille"] += result
            sums["surrender"] += result
            sums["egalite"] += 1
            continue
        ties += 1
        sums["surrender"] += Fraction(1, 2)
        sums["egalite"] -= 10
        ace = ace_wins_alone and war_player == ACE
        if war_player > war_dealer or ace:
            sums["bataille"] += -1
        elif war_player == war_dealer:
            sums["bataille"] += -1 if war_equal_wins else 0
        else:
            sums["bataille"] += 2
        rebet += -10 if war_player == war_dealer and not ace else 1
    out = {name: total / deals for name, total in sums.items()}
    out["egalite-war"] = rebet / ties
    return out


def small_counts(cards: list[int]) -> dict[int, int]:
    return {v: cards.count(v) for v in sorted(set(cards))}


def test_french_bataille_matches_brute_force(library):
    rules = bataille.rules_of(library.get("fr-bataille-2007"))
    got = edges_of(bataille.figures(rules, small_counts(SMALL)))
    want = brute_bataille(SMALL, war_equal_wins=False, ace_wins_alone=False)
    assert got == {
        ("main", "bataille"): want["bataille"],
        ("main", "surrender"): want["surrender"],
        ("egalite", None): want["egalite"],
    }


def test_monaco_bataille_matches_brute_force(library):
    rules = bataille.rules_of(library.get("mc-sun-war-2006"))
    got = edges_of(bataille.figures(rules, small_counts(SMALL)))
    alone = brute_bataille(SMALL, war_equal_wins=True, ace_wins_alone=True)
    others = brute_bataille(SMALL, war_equal_wins=True, ace_wins_alone=False)
    assert (
        alone["bataille"] == others["bataille"]
    )  # tie at the bataille wins too: the Ace changes nothing
    assert got == {
        ("main", "bataille"): alone["bataille"],
        ("main", "surrender"): alone["surrender"],
        ("egalite", None): alone["egalite"],
        ("egalite-war", "alone at bataille"): alone["egalite-war"],
        ("egalite-war", "others at bataille"): others["egalite-war"],
    }


def edges_of(figures) -> dict[tuple[str, str | None], Fraction]:
    return {(f.bet, f.strategy): f.edge for f in figures}


def test_second_moments_match_brute_force(library):
    """The sd: the surrender's outcomes are +1, -1 and +1/2, so its second moment is plain."""
    rules = bataille.rules_of(library.get("fr-bataille-2007"))
    (surrender,) = [
        f for f in bataille.figures(rules, small_counts(SMALL)) if f.strategy == "surrender"
    ]
    n = len(SMALL)
    tie = Fraction(sum(c * (c - 1) for c in small_counts(SMALL).values()), n * (n - 1))
    assert surrender.second_moment == (1 - tie) + tie / 4


# -- la bataille: closed forms for full shoes, and parameters changed by an overlay -------


def french_closed_form(decks: int) -> tuple[Fraction, Fraction]:
    """(main with bataille, égalité at 10 to 1) for a shoe of ``decks`` 52-card decks."""
    per_rank, cards = 4 * decks, 52 * decks
    tie = Fraction(per_rank - 1, cards - 1)
    rest = cards - 2  # the war cards come from the shoe less the two tied cards
    war_equal = Fraction(
        (per_rank - 2) * (per_rank - 3) + 12 * per_rank * (per_rank - 1), rest * (rest - 1)
    )
    lower = (1 - war_equal) / 2  # the house gains 2 when lower, loses 1 when higher: 2l - h = l
    return tie * lower, 1 - 11 * tie


def test_six_decks_closed_form(library):
    main, egalite = french_closed_form(6)
    got = edges(compute(library.get("fr-bataille-2007")))
    assert got[("main", "bataille")] == main == Fraction(170016, 4965115)
    assert got[("egalite", None)] == egalite == Fraction(58, 311)


@pytest.mark.parametrize("decks", [1, 2, 8])
def test_the_rulesets_decks_change_the_figures(library, tmp_path, decks):
    folder = own_rulesets(tmp_path / "regs", {"FR-SHOE-DECKS": {"params": {"decks": decks}}})
    odds = compute(Library.load(folder).get("fr-bataille-2007"))
    main, egalite = french_closed_form(decks)
    got = edges(odds)
    assert odds.decks == decks and odds.house is None
    assert got[("main", "bataille")] == main
    assert got[("egalite", None)] == egalite
    assert got[("main", "surrender")] == Fraction(4 * decks - 1, 52 * decks - 1) / 2


def test_the_rulesets_egalite_odds_change_the_figure(tmp_path):
    folder = own_rulesets(tmp_path / "regs", {"FR-PAY-EGALITE": {"params": {"odds": 8}}})
    got = edges(compute(Library.load(folder).get("fr-bataille-2007")))
    assert got[("egalite", None)] == 1 - 9 * Fraction(23, 311) == Fraction(104, 311)


def test_overlay_without_egalite_drops_the_bet():
    house = ROOT / "rulesets" / "house" / "fixture-fr-no-egalite.yaml"
    odds = compute(Library.load(overlays=[house]).get("fr-bataille-2007"))
    assert odds.house == "fixture-fr-no-egalite"
    assert set(edges(odds)) == {("main", "bataille"), ("main", "surrender")}


def test_monaco_full_shoe_closed_form(library):
    got = edges(compute(library.get("mc-sun-war-2006")))
    tie = Fraction(23, 311)
    war_equal = Fraction(22 * 21 + 12 * 24 * 23, 310 * 309)
    lower = (1 - war_equal) / 2
    assert got[("main", "bataille")] == tie * (2 * lower - (1 - lower))
    ace_pair = Fraction(22 * 21 + 12 * 24 * 23, 13 * 310 * 309)  # both bataille cards Aces
    assert got[("egalite-war", "others at bataille")] == 1 - 11 * war_equal
    assert got[("egalite-war", "alone at bataille")] == 1 - 11 * (war_equal - ace_pair)


# -- chemin de fer: brute force over a small shoe -----------------------------------------

#: the Ostende drawing table, copied from the regulation: rows by the banker's point, columns
#: the ponte's third card 0-9 then none; 0-2 always draw, 7 always stands
TABLEAU = {3: "TTTTTTTTROT", 4: "RRTTTTTTRRT", 5: "RRRROTTTRRT", 6: "RRRRRRTTRRR"}
POINTS = [0, 0, 1, 2, 3, 4, 5, 6, 9]


def coup(cards: list[int], ponte_draws_5: bool, o_cells: dict[tuple[int, int], bool]) -> int:
    """The banker's result (+1, 0, -1) for six cards in dealing order."""
    ponte, banker = (cards[0] + cards[2]) % 10, (cards[1] + cards[3]) % 10
    if ponte >= 8 or banker >= 8:
        return (banker > ponte) - (ponte > banker)
    column, nxt = 10, 4
    if ponte <= 4 or (ponte == 5 and ponte_draws_5):
        column, nxt = cards[4], 5
        ponte = (ponte + cards[4]) % 10
    if banker <= 2:
        draw = True
    elif banker == 7:
        draw = False
    else:
        cell = TABLEAU[banker][column]
        draw = cell == "T" or (cell == "O" and o_cells[(banker, column)])
    if draw:
        banker = (banker + cards[nxt]) % 10
    return (banker > ponte) - (ponte > banker)


def test_chemin_de_fer_matches_brute_force(library):
    rules = chemin_de_fer.CoupRules(library.get("be-ostende-cdf"))
    figures = chemin_de_fer.figures(rules, {v: POINTS.count(v) for v in set(POINTS)})
    want = []
    for ponte_5 in (True, False):
        for o39 in (True, False):
            for o54 in (True, False):
                choice = {(3, 9): o39, (5, 4): o54}
                results = [
                    coup([POINTS[i] for i in deal], ponte_5, choice)
                    for deal in permutations(range(len(POINTS)), 6)
                ]
                want.append(
                    (
                        Fraction(sum(results), len(results)),
                        Fraction(sum(r * r for r in results), len(results)),
                    )
                )
    assert [(f.edge, f.second_moment) for f in figures] == want
    assert len({e for e, _ in want}) == 8  # in this shoe every choice changes the figure


def test_the_rulesets_decks_change_chemin_de_fer(library, tmp_path):
    folder = own_rulesets(tmp_path / "regs", {"CDF-SHOE-DECKS": {"params": {"decks": 1}}})
    one = compute(Library.load(folder).get("be-ostende-cdf"))
    six = compute(library.get("be-ostende-cdf"))
    assert one.decks == 1 and six.decks == 6
    assert all(a.edge != b.edge for a, b in zip(one.figures, six.figures))


def test_a_drawing_table_that_leaves_a_point_out_is_refused(tmp_path):
    folder = own_rulesets(
        tmp_path / "regs", {"CDF-DRAW-PONTE": {"params": {"draw_on": [0, 1, 2, 3]}}}
    )
    with pytest.raises(OddsError, match="missing 4"):
        compute(Library.load(folder).get("be-ostende-cdf"))


def test_the_banker_s_draws_by_running_sums_are_the_card_by_card_count():
    """``_banker_draws`` (every ponte point at once) against ``_banker_third`` (card by card), for the
    shoe as it is and with one card fewer (the ponte's third), as ``outcome_weights`` uses them."""
    import random

    from audit.games.chemin_de_fer.odds import _banker_draws, _banker_third

    rng = random.Random(21)
    for _ in range(300):
        left = [rng.choice([0, 0, 1, 2, 5, 24, 31]) for _ in range(10)]
        for banker in range(10):
            above, below = _banker_draws(left, banker)
            for ponte in range(10):
                assert (above[ponte], below[ponte]) == _banker_third(left, ponte, banker)
            for card in range(10):
                if not left[card]:
                    continue
                fewer = list(left)
                fewer[card] -= 1
                given = (banker + card) % 10
                for ponte in range(10):
                    derived = (above[ponte] - (given > ponte), below[ponte] - (given < ponte))
                    assert derived == _banker_third(fewer, ponte, banker)
