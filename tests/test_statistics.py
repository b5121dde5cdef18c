"""The surveillance statistics: the null moments of the card tests, Holm's correction, and the
anomalies of simulated collusion and stacked shoes found end to end, the same whatever --jobs."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

from audit.engine import card_tests as cards
from audit.statistics import Group, Statistics

ROOT = Path(__file__).resolve().parents[1]


def audit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "audit", *args], cwd=ROOT, capture_output=True, text=True
    )


def test_repeats_null_moments_match_shuffles():
    """The exact mean and variance of equal-rank neighbours against 4000 shuffles of one deck."""
    rng = random.Random(7)
    deck = [r for r in range(13) for _ in range(4)]
    seen = 30
    counts = []
    for _ in range(4000):
        rng.shuffle(deck)
        counts.append(sum(deck[i] == deck[i + 1] for i in range(seen - 1)))
    mean, var = cards.repeats_null(1, seen)
    sample_mean = sum(counts) / len(counts)
    sample_var = sum((c - sample_mean) ** 2 for c in counts) / (len(counts) - 1)
    assert abs(sample_mean - mean) < 4 * math.sqrt(var / len(counts))
    assert abs(sample_var / var - 1) < 0.1


def test_chi_square_tail_is_exact_for_even_degrees():
    assert math.isclose(cards.chi_square_p(3.0, 2), math.exp(-1.5))
    assert math.isclose(cards.chi_square_p(21.026, 12), 0.05, rel_tol=1e-3)  # the table's 5 % point


def test_holm_steps_down_and_stops():
    groups = [
        Group("player", f"P{i}", "x.del", "result", "T", "r", 50, p_exact=p)
        for i, p in enumerate([1e-6, 4e-4, 0.0004, 0.5])
    ]
    found = Statistics(alpha=0.001, groups=groups).anomalies()
    # 4 × 1e-6, then 3 × 4e-4 = 1.2e-3 is not below alpha: the step-down stops there
    assert [a.group.id for a in found] == ["P0"] and found[0].p_adjusted == 4e-6


def _night(
    tmp_path: Path, kind: str, rulesets: list[str], rounds: int, seed: int
) -> tuple[dict, dict]:
    log, expected = tmp_path / "night.del", tmp_path / "expected.json"
    chosen = [arg for r in rulesets for arg in ("-r", r)]
    done = audit(
        "simulate",
        *chosen,
        "--tables",
        str(len(rulesets)),
        "--rounds",
        str(rounds),
        "--seed",
        str(seed),
        "--anomaly",
        kind,
        "-o",
        str(log),
        "--expected",
        str(expected),
    )
    assert done.returncode == 0, done.stderr
    report = tmp_path / "report.json"
    done = audit("check", "-f", "json", "-o", str(report), str(log))
    assert done.returncode == 0, (
        done.stderr
    )  # an anomaly is not a finding, and every round is legal
    return json.loads(expected.read_text()), json.loads(report.read_text())


def test_collusion_names_the_pair(tmp_path):
    """One dealer of the table's three favours one player: the pair is named, with where its rounds
    were; the player's pairs (one per dealer who dealt him) add up to his group."""
    expected, report = _night(tmp_path, "collusion", ["fr-bataille-2007"], 900, 3)
    assert report["summary"]["findings"] == {"error": 0, "warning": 0, "info": 0}
    assert expected["scope"] == "pair" and expected["id"] == "DX777+PX777"
    named = [(a["scope"], a["id"]) for a in report["statistics"]["anomalies"]]
    assert ("pair", expected["id"]) in named
    anomaly = next(a for a in report["statistics"]["anomalies"] if a["id"] == expected["id"])
    assert anomaly["dealer"] == "DX777" and anomaly["player"] == "PX777"
    assert (
        anomaly["table"] == expected["table"]
        and anomaly["z"] < 0
        and "player PX777 with dealer DX777 won" in anomaly["message"]
    )
    log = tmp_path / "night.del"
    _where_and_pairs(report, anomaly, log)
    failing = audit("check", "-q", "--fail-on-anomaly", str(log))
    assert failing.returncode == 1
    assert audit("check", "-q", "--alpha", "1e-300", "--fail-on-anomaly", str(log)).returncode == 0


def _where_and_pairs(report: dict, anomaly: dict, log: Path) -> None:
    """The anomaly says where its rounds were (checked against the log's lines), and the player's
    pairs, one per dealer who dealt him, add up to his rounds, result and handle."""
    lines = log.read_text().splitlines()
    first, last = lines[anomaly["first_line"] - 1].split(), lines[anomaly["last_line"] - 1].split()
    assert first[0] == anomaly["first_time"] and last[0] == anomaly["last_time"]
    assert first[1:3] == [anomaly["table"], "ROUND"] and "begin" in first
    assert last[1:3] == [anomaly["table"], "ROUND"] and "end" in last
    assert anomaly["dealers"] == [anomaly["dealer"]]
    assert anomaly["shoes"] and all(s.startswith(anomaly["table"] + "#") for s in anomaly["shoes"])
    assert anomaly["rounds"] > 30 and anomaly["handle"] and anomaly["expected"] and anomaly["sd"]
    groups = report["statistics"]["groups"]

    def mine(scope: str, test: str) -> list[dict]:
        return [
            g
            for g in groups
            if g["scope"] == scope and g["test"] == test and anomaly["player"] in g["id"]
        ]

    (player,) = mine("player", "result")
    pairs = mine("pair", "result")
    assert len(pairs) == 3 and all(g["id"] == f"{g['dealer']}+{g['player']}" for g in pairs)
    assert sum(g["rounds"] for g in pairs) == player["rounds"] > anomaly["rounds"]
    assert sum(Decimal(g["result"]) for g in pairs) == Decimal(player["result"])
    assert sum(Decimal(g["handle"]) for g in pairs) == Decimal(player["handle"])
    units = mine("pair", "units")
    assert [g["id"] for g in units] == [g["id"] for g in pairs]
    assert sum(g["bets"] for g in units) == mine("player", "units")[0]["bets"]
    total = Decimal(mine("player", "units")[0]["units"])  # each written to four decimals
    assert abs(sum(Decimal(g["units"]) for g in units) - total) <= Decimal("0.0001") * len(units)
    (same,) = mine("player", anomaly["test"])
    assert abs(same["z"]) < abs(anomaly["z"])  # the other dealers' fair rounds dilute the player


def test_a_player_anomaly_is_linked_to_a_clumped_shoe_of_his_table():
    """Victim or beneficiary: where his rounds were, against the shoes whose cards are an anomaly."""

    def player(ident: str, p: float, z: float, shoes: tuple[str, ...]) -> Group:
        return Group("player", ident, "n.del", "result", "T", "r", 90, z=z, p_exact=p, shoes=shoes)

    groups = [
        player("WINNER", 1e-9, -6.1, ("T#1", "T#2")),
        player("LOSER", 1e-8, 5.7, ("T#2",)),
        player("ELSEWHERE", 1e-8, 5.8, ("T#1",)),
        Group("shoe", "T#2", "n.del", "order", "T", "r", 60, z=6.0, p_exact=1e-9),
        Group("player", "OTHER-TABLE", "n.del", "result", "U", "r", 90, z=-6, p_exact=1e-9),
    ]
    found = {a.group.id: a for a in Statistics(alpha=0.001, groups=groups).anomalies()}
    assert (
        "include shoe T#2" in found["WINNER"].message and "beneficiary" in found["WINNER"].message
    )
    assert "victim" in found["LOSER"].message and found["LOSER"].linked == ("T#2",)
    assert "none of his rounds were at the anomalous shoe T#2" in found["ELSEWHERE"].message
    assert found["OTHER-TABLE"].linked == () and found["OTHER-TABLE"].message == ""


def test_stacked_shoe_names_the_shoe_the_same_whatever_jobs(tmp_path):
    expected, report = _night(
        tmp_path, "stacked-shoe", ["mc-sun-war-2006", "be-ostende-cdf"], 200, 4
    )
    named = {(a["scope"], a["id"]) for a in report["statistics"]["anomalies"]}
    assert ("shoe", expected["id"]) in named and ("table", expected["table"]) in named
    two = tmp_path / "two.json"
    assert (
        audit(
            "check",
            "--statistics",
            "-j",
            "2",
            "-f",
            "json",
            "-o",
            str(two),
            str(tmp_path / "night.del"),
        ).returncode
        == 0
    )
    assert json.loads(two.read_text())["statistics"] == report["statistics"]


def test_the_statistics_are_on_unless_turned_off(tmp_path):
    """On by default, with the correction and the counts; ``--no-statistics`` or ``statistics = false``
    in the configuration leaves them out, and ``--statistics`` wins over the configuration."""
    night = Path(__file__).resolve().parent.parent / "fixtures" / "nights" / "example-night.del"
    report = tmp_path / "r.json"
    assert audit("check", "-f", "json", "-o", str(report), str(night)).returncode == 0
    made = json.loads(report.read_text())
    stats = made["statistics"]
    assert made["configuration"]["statistics"] is True
    assert stats["correction"] == "holm" and stats["listed"] == len(stats["groups"])
    tested = [g for g in stats["groups"] if g["p"] is not None]
    assert 0 < stats["tested"] == len(tested) < stats["listed"]
    assert (
        audit("check", "--no-statistics", "-f", "json", "-o", str(report), str(night)).returncode
        == 0
    )
    made = json.loads(report.read_text())
    assert "statistics" not in made and made["configuration"]["statistics"] is False
    config = tmp_path / "audit.toml"
    config.write_text("statistics = false\n")
    done = audit("check", "--config", str(config), "-f", "json", "-o", str(report), str(night))
    assert done.returncode == 0, done.stderr
    assert "statistics" not in json.loads(report.read_text())
    done = audit(
        "check",
        "--config",
        str(config),
        "--statistics",
        "-f",
        "json",
        "-o",
        str(report),
        str(night),
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(report.read_text())["statistics"]["groups"]  # the command line wins


def test_a_groups_expectation_is_the_sum_of_its_stakes_times_their_edges():
    """Stakes in whole units, in cents and finer, of several kinds, at one or two tables: the
    expectation ``MoneyGroup`` sums in integers by denominator is the plain sum of fractions."""
    from decimal import Decimal
    from fractions import Fraction

    from audit.engine.surveillance import Acc
    from audit.statistics.money import Figures, MoneyGroup

    units = {
        "main": (Fraction(-3, 1000), Fraction(1)),
        "side": (Fraction(-7, 97), Fraction(9)),
        "other": (Fraction(1, 3), Fraction(2)),
    }
    rng = random.Random(4)
    for _ in range(300):
        m, plain = MoneyGroup(), Fraction(0)
        for _table in range(rng.randrange(1, 3)):
            acc = Acc()
            for kind in rng.sample(sorted(units), rng.randrange(1, 4)):
                stake = Decimal(rng.randrange(1, 10**6)).scaleb(-rng.choice([0, 0, 1, 2, 3]))
                acc.add({kind: stake}, Decimal(0))
                plain += Fraction(stake) * units[kind][0]
            m.add(acc, Figures(units), "T", "r")
        assert Fraction(*m.ratio()) == plain == m.expected


def test_cents_and_the_expectation_in_integers_equal_the_fractions():
    """``cents``, ``rounded``, ``MoneyGroup.ratio`` and ``units_ratio`` (integers) against
    ``round(Fraction * 10**places)`` and the sums of fractions."""
    from decimal import Decimal
    from fractions import Fraction

    from audit.statistics.money import MoneyGroup, cents, rounded

    rng = random.Random(8)
    for _ in range(5000):
        d = rng.choice([1, 2, 4, 200, 311, 622, 4965115, rng.randrange(1, 10**9)])
        n = (
            rng.randrange(-(10**12), 10**12)
            if rng.random() < 0.5
            else rng.choice([-3, -1, 0, 1, 3]) * d // 200
        )
        assert cents(n, d) == Decimal(round(Fraction(n, d) * 100)).scaleb(-2)
        m = MoneyGroup()
        m.parts = {
            rng.randrange(1, 10**6): rng.randrange(-(10**9), 10**9)
            for _ in range(rng.randrange(0, 4))
        }
        numerator, denominator = m.ratio()
        assert Fraction(numerator, denominator) == m.expected
        assert rounded(n, d, 4) == Decimal(round(Fraction(n, d) * 10**4)).scaleb(-4)
        m.units_parts = {
            rng.randrange(1, 10**6): rng.randrange(-(10**9), 10**9)
            for _ in range(rng.randrange(0, 4))
        }
        assert Fraction(*m.units_ratio()) == m.units_mean
    assert (
        cents(1, 200) == Decimal("0.00")
        and cents(3, 200) == Decimal("0.02")
        and cents(-1, 200) == Decimal("-0.00")
    )


def test_an_sd_written_from_its_float_is_its_exact_value_rounded():
    """``float_places`` (the float's text) against ``rounded`` on the float's exact ratio, and the
    sd's text as the report had it (``Decimal(float).quantize``), halves included."""
    import math
    from decimal import Decimal

    from audit.statistics.money import float_places, rounded

    rng = random.Random(9)
    halves = [0.125, 2.5e-05, 0.375, 1.005, 2.675, 1e-9, 0.0]
    floats = halves + [rng.random() * 10 ** rng.randrange(-6, 12) for _ in range(20000)]
    floats += [math.sqrt(rng.randrange(1, 10**10)) for _ in range(5000)]
    for x in floats:
        for places in (2, 4):
            assert float_places(x, places) == rounded(*x.as_integer_ratio(), places)
            assert str(float_places(x, places)) == str(
                Decimal(x).quantize(Decimal(1).scaleb(-places))
            )


def test_the_units_test_weighs_every_main_bet_alike_whatever_its_stake():
    """A bettor's main bets, of stakes 5 and 50, some with a war stake (its result counted in the
    main bet's) and some with an égalité won 10 to 1 (a side bet, left out): the units test is the
    sum of the main results per unit staked against the exact mean and variance per unit."""
    from fractions import Fraction

    from audit.engine.surveillance import Surveillance, add_bet
    from audit.resources import rulesets_dir
    from audit.rulesets import Library
    from audit.statistics import _money_group, _units_group
    from audit.statistics.money import Figures, MoneyGroup, units

    ruleset = Library.load(rulesets_dir()).for_table("fr-bataille-2007", "T")
    figures = Figures(units(ruleset))
    rng = random.Random(3)
    table = Surveillance("T", True)
    per_unit = []
    for k in range(120):
        players: dict = {}
        stake = Decimal(rng.choice([5, 50]))
        house = rng.choice([Decimal(1), Decimal(-1), Decimal(-1), Decimal(0)])  # per unit
        add_bet(players, "P1", "main bataille", stake, house * stake)
        if k % 3 == 0:
            add_bet(players, "P1", "egalite", Decimal(10), Decimal(-100))
        if k % 7 == 0:  # a war: the war stake's result is the main bet's
            add_bet(players, "P1", None, stake, house * stake, "main bataille")
        per_unit.append(house * (2 if k % 7 == 0 else 1))
        table.add_round("D1", players, None)
    (acc,) = [r[5] for r in table.records_in_order() if r[:3] == (2, "P1", "result")]
    money = MoneyGroup()
    money.add(acc, figures, "T", "fr-bataille-2007")
    group = _units_group(_money_group("night.del", "player", "P1", money), money)
    edge, variance = units(ruleset)["main bataille"]
    gap = Fraction(sum(per_unit)) - 120 * edge
    z = float(gap) / math.sqrt(120 * variance)
    assert (group.test, group.bets, group.units) == ("units", 120, sum(per_unit))
    assert group.units_expected == Decimal(float(120 * edge)).quantize(Decimal("0.0001"))
    assert group.z == round(z, 2) and group.p == float(f"{math.erfc(abs(z) / math.sqrt(2)):.3g}")
    assert ("won" if gap < 0 else "lost") in group.message
    # the same bets with every stake made tenfold: the money figures move, the units do not
    big = Surveillance("T", True)
    rng = random.Random(3)
    for k in range(120):
        players = {}
        stake = Decimal(rng.choice([5, 50])) * 10
        house = rng.choice([Decimal(1), Decimal(-1), Decimal(-1), Decimal(0)])
        add_bet(players, "P1", "main bataille", stake, house * stake)
        if k % 3 == 0:
            add_bet(players, "P1", "egalite", Decimal(10), Decimal(-100))
        if k % 7 == 0:
            add_bet(players, "P1", None, stake, house * stake, "main bataille")
        big.add_round("D1", players, None)
    (acc,) = [r[5] for r in big.records_in_order() if r[:3] == (2, "P1", "result")]
    tenfold = MoneyGroup()
    tenfold.add(acc, figures, "T", "fr-bataille-2007")
    again = _units_group(_money_group("night.del", "player", "P1", tenfold), tenfold)
    assert (again.units, again.z) == (group.units, group.z) and tenfold.handle != money.handle


def test_a_units_group_carries_its_money_group_s_fields(tmp_path):
    """The build makes its groups by position (``_money_group``, ``_units_group``): a units group
    carries the figures and places of its money group, and nothing of a card test's, field by field."""
    from dataclasses import fields

    from audit.rulesets import Library
    from audit.run import run_audit

    names = [f.name for f in fields(Group)]
    assert names[:11] == [
        "scope", "id", "path", "test", "table", "ruleset", "rounds", "handle", "result", "expected", "sd",
    ]  # fmt: skip
    night = tmp_path / "night.del"
    made = subprocess.run(
        [sys.executable, "-m", "audit.simulate", "--tables", "2", "--rounds", "400", "--seed", "5"]
        + ["-o", str(night)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    library = Library.load()
    library.statistics = True
    report = run_audit(library, [str(night)])
    groups = list(report.statistics.groups)
    money = {(g.scope, g.id): g for g in groups if g.test == "result"}
    units = [g for g in groups if g.test == "units"]
    assert units and any(g.scope == "pair" for g in units) and any(g.z is not None for g in units)
    shared = [n for n in names if n not in ("test", "z", "p", "p_exact", "message")]
    shared = [n for n in shared if n not in ("bets", "units", "units_expected", "units_sd")]
    for g in units:
        m = money[(g.scope, g.id)]
        for name in shared:
            # an untested money group is not placed: its units test places itself
            placing = name in (
                "dealers",
                "shoes",
                "first_line",
                "last_line",
                "first_time",
                "last_time",
            )
            if placing and m.z is None:
                continue
            assert getattr(g, name) == getattr(m, name), (g.scope, g.id, name)
        assert g.cards is None and g.statistic is None and g.bets and g.units is not None
