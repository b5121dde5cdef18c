"""The line parser against the DEL v1 format contract (../shared/spec/del-format.md).

Every verb of the spec must parse into its pydantic event with the right field
values; every malformed line must become a ``Problem`` that points at the
offending word (1-based column) with a sentence a compliance officer can read.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pytest

from audit import events as ev
from audit.games.bataille import events as bat
from audit.games.chemin_de_fer import events as cdf
from audit.parse import Comment, Header, Problem, parse_line
from audit.parse.transform import ToEvent
from audit.values import Card, Owner

ROOT = Path(__file__).resolve().parent.parent

TS = "2026-11-20T21:03:12.345+01:00"
WHEN = datetime(2026, 11, 20, 21, 3, 12, 345000, tzinfo=timezone(timedelta(hours=1)))
PREFIX = f"{TS} BAT-01 "

SPEC = Path(__file__).resolve().parents[2] / "shared" / "spec" / "del-format.md"


def D(text: str) -> Decimal:
    return Decimal(text)


def card(rank: str, suit: str) -> Card:
    return Card(rank=rank, suit=suit)


def seat(n: int) -> Owner:
    return Owner(kind="seat", id=str(n))


def standing(ident: str) -> Owner:
    return Owner(kind="standing", id=ident)


def parse_event(rest: str, **kw):
    result = parse_line(PREFIX + rest, **kw)
    assert not isinstance(result, Problem), (
        f"{rest!r} did not parse: column {result.column}: {result.message}"
    )
    return result


# -- every verb of the spec ---------------------------------------------------------

#: (event text after the table id, model, expected field values)
VERBS = [
    # §3 events common to every game
    (
        "OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=500 egalite-min=5 egalite-max=50",
        ev.Open,
        dict(
            game="bataille",
            ruleset="fr-bataille-2007",
            seats=7,
            min=D("10"),
            max=D("500"),
            side_min=D("5"),
            side_max=D("50"),
        ),
    ),
    (
        "OPEN game=chemin-de-fer ruleset=be-ostende-cdf seats=10 min=60 max=100000",
        ev.Open,
        dict(
            game="chemin-de-fer",
            ruleset="be-ostende-cdf",
            seats=10,
            min=D("60"),
            max=D("100000"),
            side_min=None,
            side_max=None,
        ),
    ),
    (
        "LIMITS min=20 max=1000",
        ev.Limits,
        dict(min=D("20"), max=D("1000"), side_min=None, side_max=None),
    ),
    (
        "LIMITS min=20 max=1000 egalite-min=5 egalite-max=100",
        ev.Limits,
        dict(min=D("20"), max=D("1000"), side_min=D("5"), side_max=D("100")),
    ),
    ("DEALER id=D0412", ev.Dealer, dict(id="D0412")),
    ("SUPERVISOR present", ev.Supervisor, dict(present=True)),
    ("SUPERVISOR absent", ev.Supervisor, dict(present=False)),
    ("SEAT 2 in", ev.Seat, dict(seat=2, action="in", player=None)),
    ("SEAT 5 in player=P17", ev.Seat, dict(seat=5, action="in", player="P17")),
    ("SEAT 99 out", ev.Seat, dict(seat=99, action="out", player=None)),
    # an extension of DEL v1 (docs/log-format.md): a change of place
    ("MOVE seat=8 to=3", ev.Move, dict(seat=8, to_seat=3)),
    ("MOVE to=03 seat=8", ev.Move, dict(seat=8, to_seat=3)),
    ("ANNOUNCE last-shoe", ev.Announce, dict(what="last-shoe", n=None)),
    ("ANNOUNCE last-rounds n=3", ev.Announce, dict(what="last-rounds", n=3)),
    (
        'NOTE "player at seat 3 asks for the director"',
        ev.Note,
        dict(text="player at seat 3 asks for the director"),
    ),
    (
        r'NOTE "he said \"banco\" twice \\ then left"',
        ev.Note,
        dict(text='he said "banco" twice \\ then left'),
    ),
    ('NOTE ""', ev.Note, dict(text="")),
    ('NOTE "pourboire refusé — 5 €"', ev.Note, dict(text="pourboire refusé — 5 €")),
    ("CLOSE", ev.Close, {}),
    # §4 shoe events
    ("SHOE new decks=6 procedure=sabot", ev.Shoe, dict(decks=6, procedure="sabot")),
    ("SHOE new decks=6 procedure=shuffler", ev.Shoe, dict(decks=6, procedure="shuffler")),
    (
        "SHOE new decks=8 procedure=shuffler-dealer",
        ev.Shoe,
        dict(decks=8, procedure="shuffler-dealer"),
    ),
    ("SHUFFLE", ev.Shuffle, {}),
    ("CUT by=dealer", ev.Cut, dict(by="dealer", refused=False)),
    ("CUT by=seat:5", ev.Cut, dict(by=seat(5), refused=False)),
    ("CUT refused by=seat:7", ev.Cut, dict(by=seat(7), refused=True)),
    ("STOPCARD talon=60", ev.StopCard, dict(action="place", talon=60)),
    ("STOPCARD out", ev.StopCard, dict(action="out", talon=None)),
    ("BURN", ev.Burn, dict(card=None)),
    ("BURN 4D", ev.Burn, dict(card=card("4", "D"))),
    ("BURN 10S", ev.Burn, dict(card=card("10", "S"))),
    ("BURN TS", ev.Burn, dict(card=card("10", "S"))),
    ("PAUSE", ev.Pause, {}),
    ("RESUME", ev.Resume, {}),
    # §5 rounds, la bataille
    ("ROUND 42 begin", ev.Round, dict(n=42, action="begin")),
    ("ROUND 42 end", ev.Round, dict(n=42, action="end")),
    (
        "BET seat=2 spot=main amount=50",
        bat.Bet,
        dict(seat=2, spot="main", amount=D("50"), by=None, approved=False),
    ),
    (
        "BET seat=2 spot=egalite amount=12.50 by=standing:P17",
        bat.Bet,
        dict(seat=2, spot="egalite", amount=D("12.50"), by=standing("P17"), approved=False),
    ),
    (
        "BET seat=4 spot=main amount=20 by=seat:2 approved",
        bat.Bet,
        dict(seat=4, spot="main", amount=D("20"), by=seat(2), approved=True),
    ),
    ("BET seat=2 spot=war amount=50", bat.Bet, dict(seat=2, spot="war", amount=D("50"))),
    (
        "BET seat=2 spot=egalite-war amount=5.5",
        bat.Bet,
        dict(seat=2, spot="egalite-war", amount=D("5.5")),
    ),
    (
        "WITHDRAW seat=2 spot=main amount=10",
        bat.Withdraw,
        dict(seat=2, spot="main", amount=D("10"), by=None),
    ),
    (
        "WITHDRAW seat=2 spot=egalite amount=0.50 by=standing:P9",
        bat.Withdraw,
        dict(seat=2, spot="egalite", amount=D("0.50"), by=standing("P9")),
    ),
    ("NOMOREBETS", ev.NoMoreBets, {}),
    ("DEAL seat=2 QH", ev.Deal, dict(to="seat", seat=2, card=card("Q", "H"))),
    ("DEAL seat=5 TH", ev.Deal, dict(to="seat", seat=5, card=card("10", "H"))),
    ("DEAL dealer 10C", ev.Deal, dict(to="dealer", seat=None, card=card("10", "C"))),
    ("DEAL dealer AS", ev.Deal, dict(to="dealer", seat=None, card=card("A", "S"))),
    ("CHOICE seat=2 war", bat.Choice, dict(seat=2, choice="war")),
    ("CHOICE seat=3 surrender", bat.Choice, dict(seat=3, choice="surrender")),
    (
        "PAY seat=2 spot=egalite amount=50",
        ev.Pay,
        dict(seat=2, spot="egalite", amount=D("50"), by=None),
    ),
    (
        "COLLECT seat=5 spot=main amount=12.50",
        ev.Collect,
        dict(seat=5, spot="main", amount=D("12.50"), by=None),
    ),
    ("PUSH seat=2 spot=war", ev.Push, dict(seat=2, spot="war", by=None)),
    # §5.2 chemin de fer
    ("HAND seat=1 how=first", cdf.Hand, dict(seat=1, by=None, how="first")),
    (
        "HAND seat=4 by=standing:P3 how=auction",
        cdf.Hand,
        dict(seat=4, by=standing("P3"), how="auction"),
    ),
    ("HAND seat=4", cdf.Hand, dict(seat=4, by=None, how=None)),
    ("HAND seat=2 how=next", cdf.Hand, dict(seat=2, by=None, how="next")),
    ("BANK amount=200", cdf.Bank, dict(amount=D("200"))),
    ("ASSOCIATE by=seat:3 amount=100", cdf.Associate, dict(by=seat(3), amount=D("100"))),
    ("PASS", cdf.Pass, {}),
    ("BID by=seat:5 amount=300", cdf.Bid, dict(by=seat(5), amount=D("300"))),
    ("AWARD by=standing:P8 amount=350", cdf.Award, dict(by=standing("P8"), amount=D("350"))),
    ("BANCO by=seat:2 mode=solo", cdf.Banco, dict(by=seat(2), mode="solo")),
    ("BANCO by=seat:6 mode=table", cdf.Banco, dict(by=seat(6), mode="table")),
    ("BANCO by=seat:6 mode=suivi", cdf.Banco, dict(by=seat(6), mode="suivi")),
    ("STAKE by=seat:4 amount=60", cdf.Stake, dict(by=seat(4), amount=D("60"))),
    ("PONTE by=seat:2", cdf.Ponte, dict(by=seat(2))),
    ("DEAL ponte 4H", ev.Deal, dict(to="ponte", seat=None, card=card("4", "H"))),
    ("DEAL banker TC", ev.Deal, dict(to="banker", seat=None, card=card("10", "C"))),
    ("ABAT ponte 9", cdf.Abat, dict(side="ponte", point=9)),
    ("ABAT banker 8", cdf.Abat, dict(side="banker", point=8)),
    ("CALL ponte card", cdf.Call, dict(side="ponte", draw=True)),
    ("CALL ponte non", cdf.Call, dict(side="ponte", draw=False)),
    ("CALL banker card", cdf.Call, dict(side="banker", draw=True)),
    ("CALL banker non", cdf.Call, dict(side="banker", draw=False)),
    ("TABLEAU banker", cdf.Tableau, {}),
    ("ADVICE ponte card", cdf.Advice, dict(draw=True)),
    ("ADVICE ponte non", cdf.Advice, dict(draw=False)),
    ("POINT ponte=7 banker=6", cdf.Point, dict(ponte=7, banker=6)),
    ("PAY by=seat:2 amount=200", ev.Pay, dict(by=seat(2), amount=D("200"), seat=None, spot=None)),
    (
        "COLLECT by=standing:P9 amount=100",
        ev.Collect,
        dict(by=standing("P9"), amount=D("100"), seat=None, spot=None),
    ),
    ("PUSH by=seat:3", ev.Push, dict(by=seat(3), seat=None, spot=None)),
]


@pytest.mark.parametrize("rest, model, fields", VERBS, ids=[v[0] for v in VERBS])
def test_every_verb_parses_into_its_event(rest, model, fields):
    e = parse_event(rest)
    assert type(e) is model
    assert e.ts == WHEN and e.ts.utcoffset() == timedelta(hours=1)
    assert e.table == "BAT-01"
    assert e.verb == rest.split()[0]
    for name, want in fields.items():
        got = getattr(e, name)
        assert got == want, f"{name}: {got!r} != {want!r}"
        if isinstance(want, Decimal):
            assert type(got) is Decimal, f"{name} is a {type(got).__name__}, not a Decimal"


def test_every_verb_of_the_models_is_covered_here():
    assert {m.__name__ for _, m, _ in VERBS} == {m.__name__ for m in ev.MODELS.values()}


def test_amounts_are_exact_decimals():
    e = parse_event("BET seat=2 spot=main amount=12.50")
    assert type(e.amount) is Decimal
    assert e.amount == Decimal("12.5")
    assert e.amount * 3 == Decimal("37.50")  # no float rounding anywhere
    e = parse_event("PAY seat=2 spot=egalite amount=0.10")
    assert e.amount + e.amount + e.amount == Decimal("0.30")
    e = parse_event("OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=0.50 max=25000.75")
    assert (e.min, e.max) == (Decimal("0.50"), Decimal("25000.75"))
    assert type(e.min) is Decimal and type(e.max) is Decimal


@pytest.mark.parametrize(
    "text, rank, suit",
    [
        ("TH", "10", "H"),
        ("10H", "10", "H"),
        ("TC", "10", "C"),
        ("AS", "A", "S"),
        ("KD", "K", "D"),
        ("QC", "Q", "C"),
        ("JH", "J", "H"),
        ("9S", "9", "S"),
        ("2D", "2", "D"),
    ],
)
def test_cards_and_ten_written_t(text, rank, suit):
    e = parse_event(f"DEAL seat=3 {text}")
    assert e.card == Card(rank=rank, suit=suit)
    assert str(e.card) == f"{rank}{suit}"


def test_t_and_10_are_the_same_card():
    assert parse_event("BURN TD").card == parse_event("BURN 10D").card


@pytest.mark.parametrize(
    "text, owner, seat_no",
    [
        ("by=seat:3", Owner(kind="seat", id="3"), 3),
        ("by=seat:99", Owner(kind="seat", id="99"), 99),
        ("by=standing:P17", Owner(kind="standing", id="P17"), None),
        ("by=standing:guest-4.b_2", Owner(kind="standing", id="guest-4.b_2"), None),
    ],
)
def test_owners(text, owner, seat_no):
    e = parse_event(f"BET seat=3 spot=main amount=10 {text}")
    assert e.by == owner
    assert e.by.seat == seat_no


def test_an_owner_seat_means_the_seat_number():
    """`by=seat:07`, if accepted, is the player of seat 7 (the same owner as the seat's own bets)."""
    result = parse_line(PREFIX + "BET seat=3 spot=main amount=10 by=seat:07")
    assert isinstance(result, Problem) or result.by == Owner.seated(7)


@pytest.mark.parametrize(
    "rest",
    [
        "OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=500",
        "OPEN max=500 min=10 seats=7 ruleset=fr-bataille-2007 game=bataille",
        "OPEN seats=7 egalite-max=50 game=bataille max=500 egalite-min=5 ruleset=fr-bataille-2007 min=10",
    ],
)
def test_open_arguments_in_any_order(rest):
    e = parse_event(rest)
    assert (e.game, e.ruleset, e.seats, e.min, e.max) == (
        "bataille",
        "fr-bataille-2007",
        7,
        D("10"),
        D("500"),
    )


@pytest.mark.parametrize(
    "rest",
    [
        "BET seat=4 spot=main amount=20 by=seat:2 approved",
        "BET approved by=seat:2 amount=20 spot=main seat=4",
        "BET amount=20 seat=4 approved spot=main by=seat:2",
    ],
)
def test_bet_arguments_in_any_order(rest):
    e = parse_event(rest)
    assert (e.seat, e.spot, e.amount, e.by, e.approved) == (4, "main", D("20"), seat(2), True)


@pytest.mark.parametrize(
    "rest, fields",
    [
        ("SHOE new procedure=sabot decks=6", dict(decks=6, procedure="sabot")),
        (
            "WITHDRAW amount=10 by=standing:P9 spot=egalite seat=2",
            dict(seat=2, spot="egalite", amount=D("10"), by=standing("P9")),
        ),
        ("PAY amount=50 spot=main seat=2", dict(seat=2, spot="main", amount=D("50"))),
        ("COLLECT spot=war amount=50 seat=2", dict(seat=2, spot="war", amount=D("50"))),
        ("PUSH spot=main seat=6", dict(seat=6, spot="main")),
        ("HAND how=taux by=seat:8 seat=8", dict(seat=8, by=seat(8), how="taux")),
        ("BANCO mode=suivi by=seat:1", dict(by=seat(1), mode="suivi")),
        ("ASSOCIATE amount=100 by=seat:3", dict(by=seat(3), amount=D("100"))),
        ("POINT banker=6 ponte=7", dict(ponte=7, banker=6)),
        (
            "LIMITS egalite-max=100 max=1000 egalite-min=5 min=20",
            dict(min=D("20"), max=D("1000"), side_min=D("5"), side_max=D("100")),
        ),
    ],
)
def test_key_value_arguments_in_any_order(rest, fields):
    e = parse_event(rest)
    for name, want in fields.items():
        assert getattr(e, name) == want


# -- lines: separators, line ends, timestamps ----------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        f"{TS}\tBAT-01\tBET\tseat=2\tspot=main\tamount=50",
        f"{TS} \t BAT-01  BET \t\t seat=2   spot=main\t amount=50",
        f"{TS} BAT-01 BET seat=2 spot=main amount=50\r",
        f"{TS} BAT-01 BET seat=2 spot=main amount=50\r\n",
        f"{TS} BAT-01 BET seat=2 spot=main amount=50\n",
        f"{TS} BAT-01 BET seat=2 spot=main amount=50   \t",
        f"   {TS} BAT-01 BET seat=2 spot=main amount=50",
        f"\t{TS} BAT-01 BET seat=2 spot=main amount=50\r\n",
    ],
    ids=[
        "tabs",
        "mixed-blanks",
        "CR",
        "CRLF",
        "LF",
        "trailing-blanks",
        "leading-spaces",
        "leading-tab-CRLF",
    ],
)
def test_separators_and_line_ends(line):
    e = parse_line(line)
    assert isinstance(e, bat.Bet), e
    assert (e.ts, e.table, e.seat, e.spot, e.amount) == (WHEN, "BAT-01", 2, "main", D("50"))


def test_note_keeps_tabs_and_runs_of_blanks_inside_its_text():
    e = parse_event('NOTE "two  blanks\tand a tab"')
    assert e.text == "two  blanks\tand a tab"


@pytest.mark.parametrize(
    "stamp, when",
    [
        ("2026-11-20T21:03:12.345+01:00", WHEN),
        ("2026-11-20T20:03:12.345Z", WHEN),
        ("2026-11-20T20:03:12Z", datetime(2026, 11, 20, 20, 3, 12, tzinfo=UTC)),
        ("2026-11-20T15:33:12-04:30", datetime(2026, 11, 20, 20, 3, 12, tzinfo=UTC)),
        ("2026-11-20T20:03:12.123456+00:00", datetime(2026, 11, 20, 20, 3, 12, 123456, tzinfo=UTC)),
    ],
)
def test_timestamps_with_an_offset(stamp, when):
    e = parse_line(f"{stamp} BAT-01 CLOSE")
    assert isinstance(e, ev.Close), e
    assert e.ts == when and e.ts.tzinfo is not None


@pytest.mark.parametrize("table", ["BAT-01", "b", "7", "CDF_2.salon-A", "A" * 32])
def test_table_ids(table):
    e = parse_line(f"{TS} {table} CLOSE")
    assert isinstance(e, ev.Close), e
    assert e.table == table


def test_the_line_number_is_recorded():
    assert parse_line(PREFIX + "SHUFFLE", 17).line == 17


# -- blank lines, comments, headers ---------------------------------------------------


@pytest.mark.parametrize("line", ["", "   ", "\t", "\r", "\r\n", " \t \r\n"])
def test_blank_lines(line):
    assert parse_line(line) is None


@pytest.mark.parametrize(
    "line",
    [
        "# a comment",
        "#no blank after the hash",
        "   # indented comment",
        "\t# tab-indented comment\r\n",
        "#",
        "# expect: DEL-SYNTAX",
        "#DELTA is not a header",
        "#casinos are not a header either",
        "# 2026-11-20T21:00:00Z BAT-01 OPEN a commented-out event",
    ],
)
def test_comments(line):
    assert isinstance(parse_line(line), Comment)


@pytest.mark.parametrize(
    "line, key, value",
    [
        ("#DEL 1", "DEL", "1"),
        ("#DEL 1\r\n", "DEL", "1"),
        ("#DEL 2", "DEL", "2"),
        ("#DEL\t1", "DEL", "1"),
        ("#casino Casino-Exemple", "casino", "Casino-Exemple"),
        ("#casino Grand Casino de Paris", "casino", "Grand Casino de Paris"),
        ("#source Y", "source", "Y"),
        ("#source TMS-Vendor 4.2 (build 17)", "source", "TMS-Vendor 4.2 (build 17)"),
    ],
)
def test_headers(line, key, value):
    assert parse_line(line) == Header(key, value)


# -- malformed lines ----------------------------------------------------------------------

#: where a missing argument is reported: the verb that lacks it, or the end of the line
MISSING = "<missing>"
#: where a repeated argument is reported: its second occurrence
REPEATED = "<repeated>"

#: (id, line, the word the column must point at (or a column number, MISSING, REPEATED),
#: fragments the message must contain; a tuple means "one of these"; compared without case)
MALFORMED = [
    (
        "amount-3-decimals",
        PREFIX + "BET seat=2 spot=main amount=12.505",
        "amount=12.505",
        ["12.505", "amount"],
    ),
    (
        "amount-3-decimals-pay",
        PREFIX + "PAY seat=2 spot=main amount=50.125",
        "amount=50.125",
        ["50.125", "amount"],
    ),
    (
        "amount-3-decimals-open",
        PREFIX + "OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10.001 max=500",
        "min=10.001",
        ["10.001", "min"],
    ),
    ("amount-negative", PREFIX + "BET seat=2 spot=main amount=-5", "amount=-5", ["-5", "amount"]),
    (
        "amount-negative-withdraw",
        PREFIX + "WITHDRAW seat=2 spot=main amount=-10",
        "amount=-10",
        ["-10", "amount"],
    ),
    ("amount-plus-sign", PREFIX + "BANK amount=+200", "amount=+200", ["+200", "amount"]),
    ("unknown-verb", PREFIX + "SHUFFEL", "SHUFFEL", ["SHUFFEL", "verb"]),
    ("unknown-verb-with-args", PREFIX + "TIP seat=3 amount=5", "TIP", ["TIP", "verb"]),
    ("lower-case-verb", PREFIX + "bet seat=2 spot=main amount=50", "bet", ["bet", "verb"]),
    ("mixed-case-verb", PREFIX + "Close", "Close", ["Close", "verb"]),
    ("timestamp-without-offset", "2026-11-20T21:03:12.345 BAT-01 CLOSE", 1, ["offset"]),
    ("timestamp-without-offset-indented", "  2026-11-20T21:03:12 BAT-01 CLOSE", 3, ["offset"]),
    ("impossible-date", "2026-02-30T21:03:12+01:00 BAT-01 CLOSE", 1, ["2026-02-30"]),
    ("impossible-day", "2026-11-31T21:03:12+01:00 BAT-01 CLOSE", 1, ["2026-11-31"]),
    ("impossible-hour", "2026-11-20T25:03:12+01:00 BAT-01 CLOSE", 1, ["25:03:12"]),
    ("bad-card-suit", PREFIX + "DEAL seat=2 QX", "QX", ["QX", "card"]),
    ("bad-card-rank", PREFIX + "DEAL dealer 11S", "11S", ["11S", "card"]),
    ("bad-card-one", PREFIX + "BURN 1H", "1H", ["1H", "card"]),
    ("bad-card-lower-case", PREFIX + "DEAL seat=2 qh", "qh", ["qh", "card"]),
    ("seat-0", PREFIX + "SEAT 0 in", "0", ["0", "seat"]),
    ("seat-0-bet", PREFIX + "BET seat=0 spot=main amount=50", "seat=0", ["0", "seat"]),
    ("seat-0-deal", PREFIX + "DEAL seat=0 QH", "seat=0", ["0", "seat"]),
    (
        "seat-0-owner",
        PREFIX + "BET seat=2 spot=main amount=50 by=seat:0",
        "by=seat:0",
        ["0", "seat"],
    ),
    ("seat-0-cut", PREFIX + "CUT by=seat:0", "by=seat:0", ["0", "seat"]),
    ("seat-100", PREFIX + "SEAT 100 in", "100", ["100", "seat"]),
    ("move-to-0", PREFIX + "MOVE seat=2 to=0", "to=0", ["0", "seat"]),
    ("move-missing-to", PREFIX + "MOVE seat=2", MISSING, ["to"]),
    ("bad-how", PREFIX + "HAND seat=2 how=later", "how=later", ["later", "how"]),
    ("missing-amount", PREFIX + "BET seat=2 spot=main", MISSING, ["amount"]),
    ("missing-spot", PREFIX + "PAY seat=2 amount=50", MISSING, ["spot"]),
    ("missing-ruleset", PREFIX + "OPEN game=bataille seats=7 min=10 max=500", MISSING, ["ruleset"]),
    ("missing-id", PREFIX + "DEALER", MISSING, ["id"]),
    ("missing-choice", PREFIX + "CHOICE seat=2", MISSING, ["war"]),
    ("missing-card", PREFIX + "DEAL seat=2", MISSING, ["card"]),
    (
        "repeated-seat",
        PREFIX + "BET seat=2 seat=3 spot=main amount=50",
        REPEATED,
        ["seat", ("twice", "repeat", "more than once", "again", "duplicate")],
    ),
    (
        "repeated-amount",
        PREFIX + "PAY seat=2 spot=main amount=50 amount=50",
        REPEATED,
        ["amount", ("twice", "repeat", "more than once", "again", "duplicate")],
    ),
    (
        "repeated-approved",
        PREFIX + "BET seat=4 spot=main amount=20 by=seat:2 approved approved",
        REPEATED,
        ["approved", ("twice", "repeat", "more than once", "again", "duplicate")],
    ),
    (
        "unknown-argument",
        PREFIX + "BET seat=2 spot=main amount=50 color=red",
        "color=red",
        ["color"],
    ),
    (
        "unknown-argument-open",
        PREFIX + "OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=500 currency=EUR",
        "currency=EUR",
        ["currency"],
    ),
    ("argument-of-another-verb", PREFIX + "DEALER id=D1 seat=2", "seat=2", ["seat"]),
    ("trailing-garbage", PREFIX + "CLOSE now", "now", ["now"]),
    ("trailing-garbage-deal", PREFIX + "DEAL seat=2 QH extra", "extra", ["extra"]),
    ("trailing-garbage-round", PREFIX + "ROUND 1 end ok", "ok", ["ok"]),
    ("trailing-garbage-note", PREFIX + 'NOTE "done" !', "!", ["!"]),
    (
        "unterminated-string",
        PREFIX + 'NOTE "seat 6 asks for the director',
        '"seat',
        [("quot", "unterminated", "string", '"')],
    ),
    (
        "unterminated-escaped-quote",
        PREFIX + r'NOTE "he said \"banco\"\"',
        '"he',
        [("quot", "unterminated", "string", '"')],
    ),
    ("bad-spot", PREFIX + "BET seat=2 spot=hand amount=50", "spot=hand", ["hand", "spot"]),
    (
        "bad-owner-kind",
        PREFIX + "BET seat=2 spot=main amount=50 by=player:P1",
        "by=player:P1",
        ["player:P1"],
    ),
    (
        "empty-standing-id",
        PREFIX + "BET seat=2 spot=main amount=50 by=standing:",
        "by=standing:",
        ["standing:"],
    ),
    ("round-0", PREFIX + "ROUND 0 begin", "0", ["0", ("round", "number")]),
    ("table-id-too-long", f"{TS} {'T' * 33} CLOSE", "T" * 33, ["table"]),
    ("table-id-bad-start", f"{TS} -BAT-01 CLOSE", "-BAT-01", ["-BAT-01", "table"]),
    ("no-verb", f"{TS} BAT-01", len(f"{TS} BAT-01") + 1, [("verb", "CLOSE", "ends")]),
    ("no-timestamp", "BAT-01 CLOSE", 1, ["timestamp"]),
    ("stray-text", "-------- shift change --------", 1, ["timestamp"]),
]

_LARK_WORDING = re.compile(
    r"unexpected (token|character|eof)|expected one of|Token\(|\$END|<END-OF-FILE>|__ANON",
    re.IGNORECASE,
)


def _column(line: str, word: str) -> int:
    hits = [m.start() + 1 for m in re.finditer(r"\S+", line) if m.group() == word]
    assert len(hits) == 1, f"test bug: {word!r} must be one word of {line!r}"
    return hits[0]


@pytest.mark.parametrize(
    "line, where, fragments", [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED]
)
def test_malformed_lines_give_a_readable_problem(line, where, fragments):
    result = parse_line(line)
    assert isinstance(result, Problem), f"{line!r} parsed as {result!r}"
    body = line.rstrip()
    assert 1 <= result.column <= len(body) + 1
    message = result.message
    assert message and message[0] != " " and len(message) < 400
    assert not _LARK_WORDING.search(message), f"Lark's wording leaks into the message: {message!r}"
    for frag in fragments:
        options = frag if isinstance(frag, tuple) else (frag,)
        assert any(o.lower() in message.lower() for o in options), (
            f"{message!r} does not mention {options}"
        )
    words = list(re.finditer(r"\S+", body))
    if where == REPEATED:
        # a repeated argument: the column is the second occurrence of the key
        key = fragments[0]
        starts = [m.start() + 1 for m in words if m.group().split("=")[0] == key]
        assert len(starts) == 2, "test bug"
        assert result.column == starts[1], (
            f"column {result.column}, expected {starts[1]}: {message}"
        )
    elif where == MISSING:
        # a missing argument: the column of the verb that lacks it, or the end of the line
        verb_column = words[2].start() + 1
        assert result.column in (verb_column, len(body) + 1), f"column {result.column}: {message}"
    else:
        want = where if isinstance(where, int) else _column(body, where)
        assert result.column == want, (
            f"column {result.column}, expected {want} ({where!r}): {message}"
        )


def test_a_malformed_line_with_tabs_points_at_the_offending_word():
    line = f"{TS}\tBAT-01\tBET\tseat=2\tspot=main\tamount=1.999"
    result = parse_line(line)
    assert isinstance(result, Problem)
    assert result.column == line.index("amount=") + 1


@pytest.mark.parametrize(
    "line",
    [
        "#DEL one",
        "#DEL 1.0",
    ],
)
def test_a_malformed_version_header_is_a_problem(line):
    result = parse_line(line)
    assert isinstance(result, Problem)
    assert not _LARK_WORDING.search(result.message)
    assert result.column == len("#DEL ") + 1


# -- the spec's own examples ------------------------------------------------------------


def _spec_blocks() -> list[tuple[int, str]]:
    """The ``` blocks of del-format.md, with the line number where each starts."""
    text = SPEC.read_text(encoding="utf-8")
    blocks = []
    for m in re.finditer(r"^```[^\n]*\n(.*?)^```", text, re.M | re.S):
        blocks.append((text.count("\n", 0, m.start(1)) + 1, m.group(1)))
    return blocks


_BLOCKS = _spec_blocks() if SPEC.is_file() else []


def test_the_spec_has_example_blocks():
    if not SPEC.is_file():
        pytest.skip(f"the shared spec is not here ({SPEC}); the example checks need ../shared")
    assert len(_BLOCKS) >= 2


@pytest.mark.parametrize(
    "index",
    range(max(len(_BLOCKS), 1)),
    ids=[f"del-format.md:{start}" for start, _ in _BLOCKS] or ["no-spec"],
)
def test_every_example_of_the_spec_parses(index):
    if not _BLOCKS:
        pytest.skip(f"the shared spec is not here ({SPEC}); the example checks need ../shared")
    start, block = _BLOCKS[index]
    problems, events = [], 0
    for offset, line in enumerate(block.splitlines()):
        result = parse_line(line, start + offset)
        if isinstance(result, Problem):
            problems.append(
                f"del-format.md:{start + offset}: column {result.column}: {result.message}\n    {line}"
            )
        elif result is not None and not isinstance(result, (Comment, Header)):
            events += 1
    assert not problems, "spec examples that do not parse:\n" + "\n".join(problems)
    assert events, "the example holds no event"


def _outcome(parser, line: str):
    """What a parser makes of a line: its event, or where and how it fails (the expected terminals
    as a set: their order is the parser's own)."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError

    try:
        return ("event", parser.parse(line))
    except UnexpectedToken as err:
        return ("token", err.line, err.column, str(err.token), sorted(err.expected))
    except UnexpectedCharacters as err:
        return ("characters", err.line, err.column, sorted(err.allowed or ()))
    except UnexpectedInput as err:
        return ("input", type(err).__name__, err.line, err.column)
    except VisitError as err:
        return ("value", type(err.orig_exc).__name__, str(err.orig_exc))
    except Exception as err:  # the transformer's own refusal of a value (DelSyntaxError)
        return ("refused", type(err).__name__, str(err))


def test_the_shipped_compiled_grammar_is_current_and_reads_every_line_as_the_grammar_does(
    tmp_path,
):
    """``grammars/del.compiled.json`` is made from today's grammar text by this Lark (else every
    run compiles it: ``python -m audit.compile_grammar``), the audit uses it, and its parser gives
    every line of every fixture, and those lines cut and garbled, the event or the error that the
    grammar compiled anew gives."""
    import importlib
    import random

    from lark import __version__ as lark_version

    from audit import compile_grammar
    from audit.parse import shipped

    module = importlib.import_module("audit.parse.grammar")
    assert compile_grammar.current(), f"run {compile_grammar.REGENERATE}"
    kept = json.loads(shipped.shipped_path().read_text(encoding="utf-8"))
    if kept["lark"] != lark_version:  # pragma: no cover - another Lark: the grammar is compiled
        pytest.skip(f"the file is of Lark {kept['lark']}, this is {lark_version}")
    text = module.grammar_text()
    loaded = shipped.load(text, transformer=ToEvent())
    assert loaded is not None
    assert shipped.load(text + "\n// another grammar\n", transformer=ToEvent()) is None
    damaged = {**kept, "parser": {"data": {}, "memo": {}}}  # of this grammar, but no parser in it
    real = shipped.shipped_path
    try:
        shipped.shipped_path = lambda: tmp_path / "del.compiled.json"  # type: ignore[assignment]
        (tmp_path / "del.compiled.json").write_text(json.dumps(damaged), encoding="utf-8")
        assert shipped.load(text, transformer=ToEvent()) is None  # compiled instead
    finally:
        shipped.shipped_path = real  # type: ignore[assignment]
    fresh = module.compile_text(text)
    rng = random.Random(7)
    lines = set()
    for path in sorted(ROOT.glob("fixtures/**/*.del")):
        lines.update(path.read_text(encoding="utf-8", errors="replace").splitlines())
    assert len(lines) > 2_000
    lines = set(rng.sample(sorted(lines), 2_000))  # (every line: 14 s, for no more verbs or errors)
    garbled = []
    for line in sorted(lines):
        cut = rng.randrange(len(line) + 1)
        garbled += [
            line[:cut],
            line[:cut] + rng.choice(["=", " ", "#", "x", "é", "\t"]) + line[cut:],
        ]
    for line in sorted(lines) + garbled:
        assert _outcome(loaded, line) == _outcome(fresh, line), line
    module.grammar.cache_clear()
    try:
        assert module.grammar().source_path == "<deserialized>"  # the audit's is the shipped one
    finally:
        module.grammar.cache_clear()


def test_the_shipped_grammars_encoding_gives_back_integer_keys_and_tuples():
    """JSON keeps only text keys and lists: the shipped file tags the rest (Lark's parse table is
    keyed by state numbers), and reading it gives back the very values written."""
    from audit.parse import shipped

    value = {
        "states": {0: {"A": (1, {"@": 3}), "B": (0, 7)}, 12: {}},
        "text keys": {"a": [1, (2, 3), None, True]},
        "\u0000pairs": "a key like a tag",
        "empty": (),
    }
    written = json.dumps(shipped._encoded(value))
    assert json.loads(written, object_hook=shipped._decoded) == value
