"""A group's sums (``engine.surveillance.Acc``): the one-pass additions against the plain ones, and
the sums written out and read back unchanged."""

from __future__ import annotations

import pickle
import random
from decimal import Decimal

from audit.engine.surveillance import (
    NO_DEALERS,
    Acc,
    Surveillance,
    add_bet,
    as_listed,
    plain_record_order,
    record_order,
)

KINDS = ["main bataille", "main surrender", "egalite", "egalite-war alone"]


def _state(acc: Acc) -> tuple:
    return (
        acc.rounds,
        acc.result,
        {k: list(v) for k, v in acc.kinds.items()},
        acc.cross,
        acc.first,
        acc.last,
        acc.shoes,
        acc.dealers,
    )


def _round(rng: random.Random) -> list:
    """A player's round of several bets, as ``add_bet`` sums it: [stakes, result, results]."""
    players: dict = {}
    for _ in range(rng.randrange(2, 5)):
        kind = rng.choice(KINDS + [None])
        counted = rng.choice(KINDS) if kind is None else kind
        amount = Decimal(rng.choice([0, 5, 10, 25, 50, 125])) / rng.choice([1, 2, 4])
        result = amount * rng.choice([-2, -1, Decimal("-0.5"), 0, 1, 10])
        add_bet(players, "P1", kind, amount, result, counted)
    return as_listed(players["P1"])  # tuples after all: as add_bets would take them


def test_add_bets_is_add_then_add_units():
    rng = random.Random(11)
    one, plain = Acc(), Acc()
    for _ in range(5000):
        stakes, result, results = _round(rng)
        one.add_bets(stakes, result, results)
        plain.add(stakes, result)
        plain.add_units(stakes, results)
        assert _state(one) == _state(plain)
    assert one.cross and any(v[2] for v in one.kinds.values())  # both halves were exercised


def test_sums_written_out_and_read_back_are_the_same():
    rng = random.Random(12)
    acc = Acc((3, "2026-11-27T21:00:00"))
    for n in range(200):
        acc.add_bets(*_round(rng))
        acc.shoes.add(n % 4)
    acc.last, acc.dealers = (99, None), {"D1", "D2"}
    back = pickle.loads(pickle.dumps(acc, pickle.HIGHEST_PROTOCOL))
    assert type(back) is Acc and _state(back) == _state(acc)
    merged = Acc()
    merged.merge(back)
    assert _state(merged)[:4] == _state(acc)[:4]


def test_record_order_is_the_plain_one():
    """The records' key, an ``itemgetter``, orders them as the plain slice does (a test sorts both)."""
    rng = random.Random(13)
    records = [
        (
            rng.randrange(5),
            rng.choice(["P1", "P2", "D1+P1", "T#3"]),
            rng.choice(["result", "order", "ranks"]),
            rng.choice(["T1", "T2"]),
            rng.randrange(-1, 50),
            Acc(),  # the payload: never compared
        )
        for _ in range(3000)
    ]
    assert [record_order(r) for r in records] == [plain_record_order(r) for r in records]
    assert sorted(records, key=record_order) == sorted(records, key=plain_record_order)


def test_a_group_learns_its_dealers_without_touching_another_s():
    """Sums start with the one shared empty set of dealers: adding a dealer or merging makes the
    group its own set, and the shared one stays empty."""
    one, two, whole = Acc(), Acc(), Acc()
    assert one.dealers is two.dealers is NO_DEALERS
    one.with_dealer("D1")
    one.with_dealer("D1")
    two.with_dealer("D2")
    whole.merge(one)
    whole.merge(two)
    assert one.dealers == {"D1"} and two.dealers == {"D2"} and whole.dealers == {"D1", "D2"}
    assert not NO_DEALERS and not Acc().dealers
    back = pickle.loads(pickle.dumps(one, pickle.HIGHEST_PROTOCOL))
    back.with_dealer("D3")
    assert back.dealers == {"D1", "D3"} and one.dealers == {"D1"}


def _plain_round(bets: list[tuple]) -> list:
    """A player's bets of one round as the plain form: [stakes by kind, result, results by kind counted]."""
    stakes: dict = {}
    results: dict = {}
    total = Decimal(0)
    for kind, amount, result, counted in bets:
        total += result
        if kind is not None:
            stakes[kind] = stakes.get(kind, Decimal(0)) + amount
        if counted is not None:
            results[counted] = results.get(counted, Decimal(0)) + result
    return [stakes, total, results]


def test_a_round_in_tuple_form_sums_as_its_plain_form():
    """``add_bet`` keeps a round of one kind, or of two, in tuples (another bet of the same kind and
    the war's stake added in): ``add_round`` on them gives the sums of ``add_bets`` on the plain form,
    whatever the bets' number and order."""
    rng = random.Random(14)
    table = Surveillance("T1", house_banked=True)
    plain = Acc()
    forms = set()
    for _ in range(6000):
        bets = []
        for _ in range(rng.choice([1, 1, 2, 2, 2, 3, 4])):
            kind = rng.choice(KINDS[:3] + [None])
            counted = rng.choice(KINDS[:2] + [None]) if kind is None else kind
            amount = Decimal(rng.choice([0, 5, 10, 25, 125])) / rng.choice([1, 2])
            result = amount * rng.choice([-2, -1, Decimal("-0.5"), 0, 1, 10])
            bets.append((kind, amount, result, counted))
        players: dict = {}
        for kind, amount, result, counted in bets:
            add_bet(players, "P1", kind, amount, result, counted)
        entry = players["P1"]
        forms.add(len(entry) if type(entry) is tuple else "list")
        assert as_listed(entry) == _plain_round(bets)
        table.add_round("D1", players, None)
        plain.add_bets(*_plain_round(bets))
        assert _state(table.players["D1"]["P1"])[:4] == _state(plain)[:4]
    assert forms == {3, 6, "list"}  # every form was exercised
