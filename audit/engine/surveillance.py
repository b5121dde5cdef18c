"""What the surveillance statistics need from one table, accumulated per round and per shoe.

Per round, not per event: a game's round hands its settled bets over once, at its
end (``add_round``). Sums are exact (Decimal); the odds are applied once, when the
report is built (``audit.statistics``), so no fraction is computed on the replay's path.
A group's variance is bounded by treating the bets of one round as perfectly
correlated (they share the dealer's card or the coup): the figures are per round
sums of stakes by bet kind, and their products (docs/statistics.md).
"""

from __future__ import annotations

from decimal import Decimal

ZERO = Decimal(0)

#: a bet kind: "bet" or "bet strategy", as ``audit odds`` names its rows (a string: its hash is cached)
Kind = str


class Acc:
    """One group's sums: rounds, stakes and results, stakes by kind and their per-round products
    (``square`` for a kind with itself, ``cross`` for two kinds of one round, in sorted order)."""

    __slots__ = ("rounds", "result", "stakes", "square", "cross")

    def __init__(self) -> None:
        self.rounds = 0
        self.result = ZERO
        self.stakes: dict[Kind, Decimal] = {}
        self.square: dict[Kind, Decimal] = {}
        self.cross: dict[tuple[Kind, Kind], Decimal] = {}

    def add(self, stakes: dict, result: Decimal) -> None:
        self.rounds += 1
        self.result += result
        mine, square = self.stakes, self.square
        for kind, amount in stakes.items():
            mine[kind] = mine.get(kind, ZERO) + amount
            square[kind] = square.get(kind, ZERO) + amount * amount
        if len(stakes) == 2:  # the usual pair (main bet and égalité): no sort of a list, no inner loop
            (kind, amount), (other, second) = stakes.items()
            key = (kind, other) if kind < other else (other, kind)
            self.cross[key] = self.cross.get(key, ZERO) + amount * second
        elif len(stakes) > 2:
            items = sorted(stakes.items())
            cross = self.cross
            for i, (kind, amount) in enumerate(items):
                for other, second in items[i + 1:]:
                    key = (kind, other)
                    cross[key] = cross.get(key, ZERO) + amount * second

    def merge(self, other: Acc) -> None:
        self.rounds += other.rounds
        self.result += other.result
        for mine, theirs in ((self.stakes, other.stakes), (self.square, other.square), (self.cross, other.cross)):
            for key, amount in theirs.items():
                mine[key] = mine.get(key, ZERO) + amount


class ShoeCards:
    """The cards seen from one shoe: by rank, and how many came right after one of the same rank."""

    __slots__ = ("id", "decks", "ranks", "repeats", "rounds")

    def __init__(self, id: str, decks: int, ranks: dict[str, int], repeats: int, rounds: int) -> None:
        self.id = id
        self.decks = decks
        self.ranks = ranks
        self.repeats = repeats
        self.rounds = rounds


class Surveillance:
    """One table's accumulators: money groups by (scope, id), and each shoe's cards."""

    def __init__(self, table: str, house_banked: bool) -> None:
        self.table = table
        self.house_banked = house_banked
        self.groups: dict[tuple[str, str], Acc] = {}
        self.shoes: list[ShoeCards] = []
        self.shoe_n = 0
        self.shoe_rounds = 0

    def new_shoe(self, previous) -> None:
        """At ``SHOE new``: the last shoe's cards are kept, the next shoe is numbered."""
        self.end_shoe(previous)
        self.shoe_n += 1
        self.shoe_rounds = 0

    def end_shoe(self, shoe) -> None:
        if shoe is None or shoe.surveyed:
            return
        shoe.surveyed = True
        ranks: dict[str, int] = {}
        for (rank, _), count in shoe.counts.items():
            ranks[rank] = ranks.get(rank, 0) + count
        self.shoes.append(ShoeCards(f"{self.table}#{self.shoe_n}", shoe.decks, dict(sorted(ranks.items())),
                                    shoe.repeats, self.shoe_rounds))

    def add_round(self, dealer: str | None, bets: list) -> None:
        """A round's settled bets: (player, kind or None, stake, result of the group's side).

        The player is an id (scope ``player``) or a (scope, id) pair. Where the house is a party,
        the round's whole is added once, under (dealer, shoe): the table's, the dealer's and
        the shoe's groups are sums of those (``rounds_by``)."""
        self.shoe_rounds += 1
        if not bets:
            return
        players: dict = {}
        whole: dict = {}
        total = ZERO
        for who, kind, stake, result in bets:
            total += result
            if kind is not None:
                whole[kind] = whole[kind] + stake if kind in whole else stake
            entry = players.get(who)
            if entry is None:
                players[who] = [{} if kind is None else {kind: stake}, result]
            else:
                entry[1] += result
                if kind is not None:
                    mine = entry[0]
                    mine[kind] = mine[kind] + stake if kind in mine else stake
        groups = self.groups
        if self.house_banked:
            players[(dealer or "", self.shoe_n)] = (whole, total)
        players.pop(None, None)  # an anonymous seat counts in the table, dealer and shoe only
        for key, (stakes, result) in players.items():
            acc = groups.get(key)
            if acc is None:
                acc = groups[key] = Acc()
            if len(stakes) != 1:
                acc.add(stakes, result)
                continue
            acc.rounds += 1  # the usual group of a round, one kind of bet: ``add`` without its call
            acc.result += result
            for kind, amount in stakes.items():
                mine, square = acc.stakes, acc.square
                mine[kind] = mine.get(kind, ZERO) + amount
                square[kind] = square.get(kind, ZERO) + amount * amount

    def rounds_by(self) -> dict[tuple[str, str], Acc]:
        """The groups of the table, by (scope, id): its players', the table's, each dealer's and each shoe's."""
        out: dict[tuple[str, str], Acc] = {}
        for key, acc in sorted(self.groups.items(), key=lambda kv: (type(kv[0]).__name__, str(kv[0]))):
            if isinstance(key, str):
                out[("player", key)] = acc
                continue
            if isinstance(key[1], str):  # (scope, id)
                out[key] = acc
                continue
            dealer, shoe = key
            targets = [("table", self.table), ("shoe", f"{self.table}#{shoe}")]
            if dealer:
                targets.append(("dealer", dealer))
            for target in targets:
                out.setdefault(target, Acc()).merge(acc)
        return out
