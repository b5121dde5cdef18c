"""What the surveillance statistics need from one table, accumulated per round and per shoe.

Per round, not per event: a game's round hands its settled bets over once, at its
end (``add_round``). Sums are exact (Decimal); the odds are applied once, when the
report is built (``audit.statistics``), so no fraction is computed on the replay's path.
A group's variance is bounded by treating the bets of one round as perfectly
correlated (they share the dealer's card or the coup): the figures are per round
sums of stakes by bet kind, and their products (docs/statistics.md).

Memory does not grow with the log. When a shoe ends, its figures are final: its money
group and its two card tests become *records*, and its rounds are added to the table's
and to each dealer's sums. Past ``THRESHOLD`` records and live sums in this process, each
table writes what it holds (the shoes' records, and its players' and dealers' sums so far
as partial records) to a sorted run of the spill folder (``findings_store.folder()``).
The report reads every table's records back merged (``records``); the partial sums of one
group at one table are added exactly, so the figures do not depend on when, or whether,
anything was written out.
"""

from __future__ import annotations

import heapq
import itertools
import operator
import os
import weakref
from collections.abc import Iterable, Iterator
from decimal import Decimal

from .. import findings_store
from . import card_tests

ZERO = Decimal(0)
#: the dealers of a group that has none yet (``Acc.with_dealer``)
NO_DEALERS: frozenset[str] = frozenset()
#: the scopes of the statistics' groups, in report order
SCOPES = ["table", "dealer", "player", "pair", "shoe"]
_SCOPE = {scope: i for i, scope in enumerate(SCOPES)}


def add_scopes(scopes: tuple[str, ...]) -> None:
    """A game's own scopes (``Game.scopes``), before the shoe's: the registry adds them."""
    for scope in scopes:
        if scope not in SCOPES:
            SCOPES.insert(SCOPES.index("shoe"), scope)
    _SCOPE.update({scope: i for i, scope in enumerate(SCOPES)})


#: records and live sums a process holds before its tables write theirs out (a player's sums: some 1.6 KB
#: of objects, 2 to 2.5 KB of the process's memory): a night of a million lines never writes, the
#: benchmark's realistic one (about 28,000) included; what it costs is in docs/statistics.md
THRESHOLD = 40_000

#: a table's runs merged into one when they reach this many, and the records pickled together in a
#: run: a merge of every table's runs holds at most MAX_RUNS * CHUNK records of each table (a long
#: log's build has every run of every table open at once: 25 records of about 1.3 KB a run, where a
#: hundred held 8 MB more on a log of ten million lines, for no time saved)
MAX_RUNS = 4
CHUNK = 25

#: a bet kind: "bet" or "bet strategy", as ``audit odds`` names its rows (a string: its hash is cached)
Kind = str
#: (scope index, id, test, table, sequence, payload): a group's figures at one table, in report order;
#: the payload is an ``Acc`` (test "result"), a ``ShoeCards`` or a table's ``CardSums``
Record = tuple

#: what the process's tables hold, in records and sums (each table's own count is its ``held`` cell)
_held = 0
#: the tables of this process that hold any: those that write theirs out when the process holds too much
_live: weakref.WeakSet = weakref.WeakSet()


def _count(cell: list[int], n: int) -> None:
    global _held
    cell[0] += n
    _held += n


def _forget(cell: list[int]) -> None:
    """A table let go (read, sent to the main process, or dropped): what it held no longer counts."""
    _count(cell, -cell[0])


def arrived(tables: Iterable[Surveillance]) -> None:
    """Worker tables taken by the main thread: they count in what this process holds from now on,
    and may make every table write out."""
    for sums in tables:
        held = sums.__dict__.pop("_arriving", None)
        if held is not None:
            sums._register(sums.held)
            _count(sums.held, held)
    _crowded()


def _crowded() -> None:
    """Past the threshold, while a spill folder is open, every table writes out what it holds."""
    if _held > THRESHOLD and findings_store.folder() is not None:
        for table in list(_live):
            table.spill()


#: where a round was: (line, timestamp as written or None)
Mark = tuple


class Acc:
    """One group's sums: rounds and results, and by bet kind (``kinds``) the sum of its stakes, of each
    round's stake squared, and the units test's bets and results per unit staked; the per-round
    products of two kinds of one round (``cross``, the pair in sorted order; None until a round has
    two kinds).

    And where they were, for whoever pulls the footage: the first round's beginning and the last
    round's end (``Mark``), the shoes (numbers at the table) and the dealers on duty (a few fields a
    group, never one a round)."""

    __slots__ = ("cross", "dealers", "first", "kinds", "last", "result", "rounds", "shoes")

    def __init__(self, first: Mark | None = None) -> None:
        self.rounds = 0
        self.result = ZERO
        #: by kind: [sum of stakes, sum of squares, bets counted, sum of their results per unit]: one
        #: small list a kind (a player's usual group has one kind), where three dictionaries were
        self.kinds: dict[Kind, list] = {}
        self.cross: dict[tuple[Kind, Kind], Decimal] | None = None
        self.first = first
        self.last: Mark | None = None
        self.shoes: set[int] = set()
        #: a player's sums learn their dealer when they are written (``with_dealer``): until then, the
        #: one empty set every group shares (a set each was an eighth of the memory a player's sums hold)
        self.dealers: set[str] | frozenset[str] = NO_DEALERS

    def __reduce__(self) -> tuple:
        """Written out (a spill, a worker's tables sent home) as a plain tuple of its fields: a
        fraction of what pickling the slots one by one costs."""
        return _acc, (
            self.rounds,
            self.result,
            self.kinds,
            self.cross,
            self.first,
            self.last,
            self.shoes,
            self.dealers,
        )

    def add_units(self, stakes: dict, results: dict) -> None:
        """A round's results per unit staked, by kind: the units test (``audit.statistics.units``).
        ``add`` took the round's stakes first. (The plain version of ``add_bets``'s second half.)"""
        kinds = self.kinds
        for kind, result in results.items():
            stake = stakes.get(kind)
            if stake:
                mine = kinds[kind]
                mine[2] += 1
                mine[3] += result / stake

    def add_bets(self, stakes: dict, result: Decimal, results: dict) -> None:
        """``add(stakes, result)`` then ``add_units(stakes, results)`` in one pass over the stakes (a
        player's round of two bets or more): each kind counted in the units test is a staked one, so
        the same sums (a test compares the two)."""
        self.rounds += 1
        self.result += result
        kinds = self.kinds
        for kind, amount in stakes.items():
            mine = kinds.get(kind)
            if mine is None:
                mine = kinds[kind] = [amount, amount * amount, 0, ZERO]
            else:
                mine[0] += amount
                mine[1] += amount * amount
            if amount and kind in results:
                mine[2] += 1
                mine[3] += results[kind] / amount
        if len(stakes) > 1:
            self._cross(stakes)

    def add(self, stakes: dict, result: Decimal) -> None:
        self.rounds += 1
        self.result += result
        kinds = self.kinds
        for kind, amount in stakes.items():
            mine = kinds.get(kind)
            if mine is None:
                kinds[kind] = [amount, amount * amount, 0, ZERO]
            else:
                mine[0] += amount
                mine[1] += amount * amount
        if len(stakes) > 1:
            self._cross(stakes)

    def add_two(self, entry: tuple) -> None:
        """A round of two kinds in ``add_bet``'s tuple form (kind, stake, result, kind, stake, result):
        ``add_bets`` on the round as listed (``as_listed``), without its dictionaries (a test
        compares the two)."""
        kind, amount, result, other, second, more = entry
        self.rounds += 1
        self.result += result + more
        kinds = self.kinds
        _add_bet_sums(kinds, kind, amount, result)
        _add_bet_sums(kinds, other, second, more)
        cross = self.cross
        if cross is None:
            cross = self.cross = {}
        key = (kind, other) if kind < other else (other, kind)
        cross[key] = cross.get(key, ZERO) + amount * second

    def _cross(self, stakes: dict) -> None:
        """The products of a round's stakes of two kinds, by the pair of kinds in sorted order."""
        cross = self.cross
        if cross is None:
            cross = self.cross = {}
        if len(stakes) == 2:  # the usual pair (the main bet and a side bet): no sort, no inner loop
            (kind, amount), (other, second) = stakes.items()
            key = (kind, other) if kind < other else (other, kind)
            cross[key] = cross.get(key, ZERO) + amount * second
            return
        items = sorted(stakes.items())
        for i, (kind, amount) in enumerate(items):
            for other, second in items[i + 1 :]:
                key = (kind, other)
                cross[key] = cross.get(key, ZERO) + amount * second

    def with_dealer(self, dealer: str) -> None:
        """The dealer on duty counted among the group's (its set made or copied, never the shared one changed)."""
        if dealer not in self.dealers:
            self.dealers = self.dealers | {dealer}

    def merge(self, other: Acc) -> None:
        self.rounds += other.rounds
        self.result += other.result
        self.shoes |= other.shoes
        if other.dealers:
            if (
                type(self.dealers) is frozenset
            ):  # the shared empty set, or one learnt: its own set now
                self.dealers = set(self.dealers)
            self.dealers |= other.dealers
        if other.first is not None and (self.first is None or other.first[0] < self.first[0]):
            self.first = other.first
        if other.last is not None and (self.last is None or other.last[0] > self.last[0]):
            self.last = other.last
        kinds = self.kinds
        for kind, sums in other.kinds.items():
            mine = kinds.get(kind)
            if mine is None:
                kinds[kind] = list(sums)
            else:
                mine[0] += sums[0]
                mine[1] += sums[1]
                mine[2] += sums[2]
                mine[3] += sums[3]
        if other.cross:
            cross = self.cross
            if cross is None:
                cross = self.cross = {}
            for key, amount in other.cross.items():
                cross[key] = cross.get(key, ZERO) + amount


def _add_bet_sums(kinds: dict, kind: Kind, amount: Decimal, result: Decimal) -> None:
    """A round's bet of one kind into a group's sums by kind (``Acc.add_two``): its stake, its
    square, and its result per unit staked when it has a stake."""
    mine = kinds.get(kind)
    if mine is None:
        kinds[kind] = (
            [amount, amount * amount, 1, result / amount]
            if amount
            else [amount, amount * amount, 0, ZERO]
        )
    else:
        mine[0] += amount
        mine[1] += amount * amount
        if amount:
            mine[2] += 1
            mine[3] += result / amount


def _acc(rounds, result, kinds, cross, first, last, shoes, dealers) -> Acc:
    """An ``Acc`` made again from its fields (``Acc.__reduce__``)."""
    acc = Acc.__new__(Acc)
    acc.rounds, acc.result, acc.kinds, acc.cross = rounds, result, kinds, cross
    acc.first, acc.last, acc.shoes, acc.dealers = first, last, shoes, dealers
    return acc


def add_bet(
    players: dict,
    who,
    kind: Kind | None,
    amount: Decimal,
    result: Decimal,
    counted: Kind | None = None,
) -> None:
    """One settled bet of a round into the round's sums by player (``Surveillance.add_round``):
    its stake under its kind (None: a stake with no row of its own, its result only), its result.
    ``counted``: the kind whose result per unit staked this bet's result is part of (a stake with
    no row of its own, such as a hand's added stake, counts in its main bet); its kind by default.

    A player's usual round is one kind of bet, kept as the tuple (kind, stake, result): another bet
    of that kind, or one counted in it with no row of its own (a hand's added stake), is added into it.
    A bet of a second kind makes it (kind, stake, result, kind, stake, result) (the main bet and a
    side bet); anything else [stakes by kind, result, results by kind counted], the plain form the
    tuples stand for (``as_listed``)."""
    entry = players.get(who)
    if counted is None:
        counted = kind
    if entry is None:
        if kind is not None and counted == kind:
            players[who] = (kind, amount, result)
            return
        entry = players[who] = [{}, ZERO, {}]
    elif type(entry) is tuple:
        folded = _folded(entry, kind, amount, result, counted)
        if folded is not None:
            players[who] = folded
            return
        entry = players[who] = as_listed(entry)
    entry[1] += result
    if kind is not None:
        mine = entry[0]
        mine[kind] = mine[kind] + amount if kind in mine else amount
    if counted is not None:
        results = entry[2]
        results[counted] = results[counted] + result if counted in results else result


def _folded(
    entry: tuple, kind: Kind | None, amount: Decimal, result: Decimal, counted: Kind | None
) -> tuple | None:
    """A player's round in tuple form with one bet more, or None when the tuples cannot hold it."""
    if counted is None or (kind is not None and kind != counted):
        return None
    if counted == entry[0]:
        first, stake, before = entry[:3]
        return (first, stake if kind is None else stake + amount, before + result) + entry[3:]
    if len(entry) == 6 and counted == entry[3]:
        other, stake, before = entry[3:]
        return (*entry[:3], other, stake if kind is None else stake + amount, before + result)
    if len(entry) == 3 and kind is not None:
        return (*entry, kind, amount, result)
    return None


def as_listed(entry: tuple | list) -> list:
    """A player's round as [stakes by kind, result, results by kind counted], whatever its form."""
    if type(entry) is not tuple:
        return entry  # type: ignore[return-value]
    if len(entry) == 3:
        kind, stake, result = entry
        return [{kind: stake}, result, {kind: result}]
    kind, stake, result, other, second, more = entry
    return [{kind: stake, other: second}, result + more, {kind: result, other: more}]


class ShoeCards:
    """The cards seen from one shoe and its two tests' figures, worked out when the shoe ends."""

    __slots__ = ("chi", "id", "null", "repeats", "rounds", "seen", "where")

    def __init__(
        self, id: str, decks: int, ranks: dict[str, int], repeats: int, rounds: int
    ) -> None:
        self.id = id
        self.rounds = rounds
        self.seen = sum(ranks.values())
        #: (statistic, degrees of freedom) of the rank counts, or None when it cannot say
        self.chi = card_tests.chi_square(ranks, decks)
        self.repeats = repeats
        #: the mean and variance of ``repeats`` for a shuffled shoe, or None below the test's minimum
        self.null = (
            card_tests.repeats_null(decks, self.seen) if self.seen >= card_tests.MIN_CARDS else None
        )
        #: where its rounds were: an ``Acc`` holding only their first and last marks, shoes and dealers
        self.where = Acc()


class CardSums:
    """A table's card tests: its shoes' figures summed, in the order the shoes ended."""

    __slots__ = ("chi", "df", "mean", "ordered", "ranked", "repeats", "rounds", "variance", "where")

    def __init__(self) -> None:
        self.chi, self.df, self.ranked = 0.0, 0, 0
        self.repeats, self.mean, self.variance, self.ordered = 0, 0.0, 0.0, 0
        self.rounds = 0
        self.where = Acc()

    def add(self, shoe: ShoeCards) -> None:
        self.rounds += shoe.rounds
        self.where.merge(shoe.where)
        if shoe.chi is not None:
            self.chi += shoe.chi[0]
            self.df += shoe.chi[1]
            self.ranked += shoe.seen
        if shoe.null is not None:
            self.repeats += shoe.repeats
            self.mean += shoe.null[0]
            self.variance += shoe.null[1]
            self.ordered += shoe.seen


class Surveillance:
    """One table's accumulators: the live sums (players, dealers, the shoe being dealt), the records
    of what is final, and the runs they were written to."""

    def __init__(self, table: str, house_banked: bool) -> None:
        self.table = table
        self.house_banked = house_banked
        #: by dealer in charge ("" for none), then by player id, or (scope, id) for a game's own
        #: scopes (``Game.scopes``): a player's group is the sum of his pairs with each dealer
        self.players: dict[str, dict] = {}
        #: the rounds of the shoe being dealt, by the dealer in charge ("" for none)
        self.shoe_dealers: dict[str, Acc] = {}
        #: the finished shoes' rounds, by dealer, and the table's
        self.dealers: dict[str, Acc] = {}
        self.whole = Acc()
        self.cards = CardSums()
        self.records: list[Record] = []
        self.runs: list[str] = []
        self.shoe_n = 0
        self.shoe_rounds = 0
        #: the shoe being dealt: its first round's beginning, its last round's end, its dealers
        self.shoe_first: Mark | None = None
        self.shoe_last: Mark | None = None
        self.on_duty: set[str] = set()
        #: where the round being closed began and ends (set by the table before ``add_round``)
        self.begin: Mark = (0, None)
        self.end: Mark = (0, None)
        self._seq = itertools.count()
        self._register([0])

    def _register(self, held: list[int]) -> None:
        self.held = held
        _live.add(self)
        weakref.finalize(self, _forget, held)

    def leave(self) -> None:
        """The table is about to travel to the main process, which owns it from then on: here it no
        longer counts, and is never written out again (a Dask worker keeps a task's result after
        sending it; writing it out would merge its runs and remove the files the main process reads).
        A task calls it in its own thread: a Dask worker pickles a result in another thread, while its
        next task may be writing every table of the process out."""
        if "_leaving" not in self.__dict__:
            self._leaving = self.held[0]
            _live.discard(self)
            _forget(self.held)

    def __getstate__(self) -> dict:
        self.leave()
        state = dict(self.__dict__)
        state["_seq"] = next(self._seq)
        state["held"] = state.pop("_leaving")
        return state

    def __setstate__(self, state: dict) -> None:
        """A worker's table arrived, perhaps in a thread of the pool's that reads results while the
        main thread replays: nothing of this process is touched until the main thread takes it
        (``arrived``). Written out from that thread, the main thread's own tables lost the rounds
        they summed meanwhile."""
        held = state.pop("held")
        state["_seq"] = itertools.count(state["_seq"])
        self.__dict__.update(state)
        self.held = [0]
        self._arriving = held

    def new_shoe(self, previous) -> None:
        """At ``SHOE new``: the last shoe's figures are final, the next shoe is numbered."""
        self.end_shoe(previous)
        self.shoe_n += 1
        self.shoe_rounds = 0
        self.on_duty = set()

    def end_shoe(self, shoe) -> None:
        """The shoe's money group and card tests made records; its rounds added to its dealers' and the table's."""
        if shoe is not None and not shoe.surveyed:
            shoe.surveyed = True
            ranks: dict[str, int] = {}
            for (rank, _), count in shoe.counts.items():
                ranks[rank] = ranks.get(rank, 0) + count
            cards = ShoeCards(self._shoe_id(), shoe.decks, ranks, shoe.repeats, self.shoe_rounds)
            where = cards.where
            if self.shoe_rounds:
                where.first, where.last, where.dealers = (
                    self.shoe_first,
                    self.shoe_last,
                    self.on_duty,
                )
            if self.shoe_n:
                where.shoes.add(self.shoe_n)
            self.cards.add(cards)
            if cards.null is not None:
                self._record("shoe", cards.id, "order", cards)
            if cards.chi is not None:
                self._record("shoe", cards.id, "ranks", cards)
        if self.shoe_dealers:
            shoe_acc = Acc()
            for dealer, acc in sorted(self.shoe_dealers.items()):
                if self.shoe_n:
                    acc.shoes.add(self.shoe_n)
                if dealer:
                    acc.with_dealer(dealer)
                shoe_acc.merge(acc)
                self.whole.merge(acc)
                if dealer:
                    mine = self.dealers.get(dealer)
                    if mine is None:
                        self.dealers[dealer] = acc
                        _count(self.held, 1)
                    else:
                        mine.merge(acc)
            self.shoe_dealers = {}
            self._record("shoe", self._shoe_id(), "result", shoe_acc)
        _crowded()

    def _shoe_id(self) -> str:
        return f"{self.table}#{self.shoe_n}"

    def _record(self, scope: str, ident: str, test: str, payload) -> None:
        self.records.append((_SCOPE[scope], ident, test, self.table, next(self._seq), payload))
        _count(self.held, 1)

    def add_round(
        self, dealer: str | None, players: dict, whole: tuple[dict, Decimal] | None
    ) -> None:
        """A round's settled bets, summed by the game (``add_bet``): by player (the result of the
        player's side), and where the house is a party the round's whole, (stakes by kind,
        the house's result), or None when nothing was settled.

        The player is an id (scope ``player``) or a (scope, id) pair. The round's whole is added once,
        under its dealer, to the shoe being dealt: the shoe's, the table's and the dealer's groups are
        sums of those (``end_shoe``)."""
        if not self.shoe_rounds:
            self.shoe_first = self.begin
        self.shoe_rounds += 1
        end, shoe = self.end, self.shoe_n
        self.shoe_last = end
        if dealer:
            self.on_duty.add(dealer)
        else:
            dealer = ""
        if whole is not None:
            acc = self.shoe_dealers.get(dealer)
            if acc is None:
                acc = self.shoe_dealers[dealer] = Acc(self.begin)
            acc.last = end
            acc.add(*whole)
        groups = self.players.get(dealer)
        if groups is None:
            groups = self.players[dealer] = {}
        for key, entry in players.items():
            acc = groups.get(key)
            if acc is None:
                acc = groups[key] = Acc(self.begin)
                _count(self.held, 1)
            acc.last = end
            acc.shoes.add(shoe)
            if type(entry) is not tuple:
                acc.add_bets(*entry)
                continue
            if len(entry) != 3:
                acc.add_two(entry)
                continue
            # the usual round, one kind: ``_add_bet_sums`` inline, without its call (a row a player
            # and a round; a test compares the sums with ``add_bets``'s)
            kind, amount, result = entry
            acc.rounds += 1
            acc.result += result
            mine = acc.kinds.get(kind)
            if mine is None:
                acc.kinds[kind] = (
                    [amount, amount * amount, 1, result / amount]
                    if amount
                    else [amount, amount * amount, 0, ZERO]
                )
            else:
                mine[0] += amount
                mine[1] += amount * amount
                if amount:
                    mine[2] += 1
                    mine[3] += result / amount

    def _partials(self) -> list[Record]:
        """The players' and dealers' sums so far, as records (partial: the group may go on)."""
        out = []
        table, seq = self.table, self._seq
        for dealer, groups in self.players.items():
            for key, acc in groups.items():
                if dealer:
                    acc.with_dealer(dealer)
                if isinstance(key, str):
                    out.append((_SCOPE["player"], key, "result", table, next(seq), acc))
                    if dealer:
                        ident = f"{dealer}+{key}"
                        out.append((_SCOPE["pair"], ident, "result", table, next(seq), acc))
                else:
                    out.append((_SCOPE[key[0]], key[1], "result", table, next(seq), acc))
        for dealer, acc in self.dealers.items():
            out.append((_SCOPE["dealer"], dealer, "result", self.table, next(self._seq), acc))
        return out

    def spill(self) -> None:
        """What the table holds written to a sorted run; it goes on with empty sums."""
        held = self.records + self._partials()
        if not held:
            return
        held.sort(key=record_order)
        self.runs.append(findings_store.write_rows(held, CHUNK))
        _forget(self.held)
        self.records, self.players, self.dealers = [], {}, {}
        if (
            len(self.runs) >= MAX_RUNS
        ):  # a long log: its runs merged into one, so a merge never opens too many files
            runs, self.runs = self.runs, []
            self.runs.append(
                findings_store.write_rows(
                    heapq.merge(
                        *(findings_store.read_rows(name) for name in runs), key=record_order
                    ),
                    CHUNK,
                )
            )
            for name in runs:
                os.remove(name)

    def records_in_order(self) -> Iterator[Record]:
        """Every record of the table, its runs' and those it holds, in report order (then as made).

        Rounds the table played after its last shoe ended (no shoe, or after a ``CLOSE``) are closed
        first, as a shoe of their own, as they were counted before."""
        self.end_shoe(None)
        held = self.records + self._partials()
        if self.house_banked and self.whole.rounds:
            held.append((_SCOPE["table"], self.table, "result", self.table, -1, self.whole))
        if self.cards.ordered:
            held.append((_SCOPE["table"], self.table, "order", self.table, -1, self.cards))
        if self.cards.df:
            held.append((_SCOPE["table"], self.table, "ranks", self.table, -1, self.cards))
        held.sort(key=record_order)
        # the records are the reader's now, each let go once read: the groups the build makes take
        # the place of the sums they come from, not their place and as much again
        self.records, self.players, self.dealers = [], {}, {}
        held.reverse()
        streams = [findings_store.read_rows(name) for name in self.runs]
        mine = _drained(held)
        return heapq.merge(*streams, mine, key=record_order) if streams else mine

    def release(self) -> None:
        """The records were read: this table no longer counts in what the process holds."""
        _forget(self.held)
        self.records, self.players, self.dealers, self.runs = [], {}, {}, []
        _live.discard(self)


def _drained(reversed_records: list[Record]) -> Iterator[Record]:
    """The records from last to first, each let go as it is read (``iter`` would keep them all)."""
    while reversed_records:
        yield reversed_records.pop()


def plain_record_order(record: Record) -> tuple:
    """A record's place in report order: scope, id, test, table, then as made (never the payload)."""
    return record[:5]


#: ``plain_record_order`` without a Python call a record: every merge and sort of the records keys on it
record_order = operator.itemgetter(0, 1, 2, 3, 4)
