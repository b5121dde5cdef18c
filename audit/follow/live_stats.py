"""The surveillance statistics while the night is dealt: a look at each shoe's end.

When a shoe of a followed table ends (``SHOE new``, ``CLOSE``, or the end of a complete file),
the groups that shoe moved are worked out again, with the groups and tests of ``audit check``
(``audit.statistics``): the shoe's own (its result, its two card tests), the table's, and the
dealers' and players' of that table, each summed over every table of its file as ``audit check``
sums it.

Looking again and again at a group raises the chance that chance alone once crosses the line.
The correction (docs/statistics.md, "Live"): a group is *looked at* the first time it can be
tested, then each time its rounds have doubled since its last look (a shoe's groups, final when
the shoe ends, once). Its k-th look is tested at level alpha / (m × k × (k + 1)), m the groups
tested so far in the run: the weights 1 / (k (k + 1)) sum to 1 over any number of looks, so a
group's looks spend at most its Bonferroni share of alpha, and doubling keeps the looks few
(a group of 1,000 rounds has had 6). ``p_adjusted`` = min(1, p × m × k × (k + 1)); the group is
an anomaly the first time it is below alpha, and is reported once.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from typing import Any

from ..engine.surveillance import SCOPES, Acc, Surveillance, _count, record_order
from ..rulesets import Library
from ..statistics import DEFAULT_ALPHA, Group, _card_group, _money_group, _round_p, _summed
from ..statistics.money import Figures, MoneyGroup, units

#: (path, scope, id, test): a group as the run names it, and as the state keeps an anomaly
GroupKey = tuple[str, str, str, str]
_SHOE = SCOPES.index("shoe")
_TABLE = SCOPES.index("table")


def spent(look: int) -> int:
    """The share of a group's alpha its ``look``-th look may not exceed, as its inverse: k (k + 1)."""
    return look * (look + 1)


@dataclass
class LiveAnomaly:
    """A group that crossed: the group as ``audit check`` reports it, at its ``look``-th look,
    ``tested`` groups tested in the run then, at ``line`` of its file."""

    group: Group
    p_adjusted: float
    look: int
    tested: int
    line: int

    def as_object(self) -> dict[str, Any]:
        """The ``anomaly`` line of ``audit follow -f jsonl`` (statistics contract, section 4)."""
        g = self.group
        return {
            "type": "anomaly",
            "scope": g.scope,
            "id": g.id,
            "path": g.path,
            "table": g.table,
            "test": g.test,
            "z": g.z,
            "p": g.p,
            "p_adjusted": self.p_adjusted,
            "message": g.message,
            "rounds": g.rounds,
            "line": self.line,
            "look": self.look,
            "tested": self.tested,
        }


class LiveStatistics:
    """The looks of one run of ``audit follow``: how often each group was tested, which crossed.

    ``report`` receives each anomaly once; ``reported`` (the state's) are never reported again."""

    def __init__(
        self,
        library: Library,
        report: Callable[[LiveAnomaly], None],
        alpha: float = DEFAULT_ALPHA,
        reported: Iterable[GroupKey] = (),
    ) -> None:
        self.library, self.report, self.alpha = library, report, alpha
        #: each group tested: its looks so far and its rounds at the last
        self.looks: dict[GroupKey, tuple[int, int]] = {}
        self.reported: set[GroupKey] = {tuple(k) for k in reported}  # type: ignore[misc]
        self._figures: dict[tuple[str, str | None], Figures] = {}
        #: told of every group worked out at a look (the live page shows the tables' expectation)
        self.observe: Callable[[Group], None] | None = None
        #: the smallest adjusted p-value of any look (the alpha at which the run would have alarmed)
        self.smallest = 1.0

    def surveillance_for(self, replay) -> Callable[[str, bool], Surveillance]:
        """What ``replay`` makes a table's accumulators with: ones that call ``look`` at a shoe's end."""
        live = self

        class Watched(Surveillance):
            #: the rounds of each group but the shoes' at the last look
            rounds_seen: dict

            def end_shoe(self, shoe) -> None:
                super().end_shoe(shoe)
                live.look(replay, self)

        return Watched

    # -- a look
    def look(self, replay, surv: Surveillance) -> None:
        """``surv``'s table ended a shoe: the groups it moved, tested again."""
        mine = _records_now(surv)
        new = list(surv.records)  # the shoes' ended since the last look, as made
        moved = {r[:3] for r in new}
        rounds = surv.__dict__.setdefault("rounds_seen", {})
        for r in mine:  # the table's, its dealers' and players': those that played since
            if r[0] != _SHOE and rounds.get(r[:3]) != r[5].rounds:
                rounds[r[:3]] = r[5].rounds
                moved.add(r[:3])
        if not moved:
            return
        played: dict[str, tuple[Figures, str]] = {}
        streams = []
        for t in replay.stats.tables.values():
            other = t.surveillance
            if other is None:
                continue
            key = (t.ruleset, t.overlay)
            if key not in self._figures:
                ruleset = self.library.for_table(t.ruleset, t.table)
                self._figures[key] = Figures(units(ruleset) if ruleset is not None else {})
            played[t.table] = (self._figures[key], t.ruleset)
            if other is surv:
                streams.append([r for r in mine if r[:3] in moved])
            else:
                streams.append(_records_of(other, moved))
        path = replay.sink.path
        for (scope, ident, test), records in groupby(
            heapq.merge(*streams, key=record_order), key=itemgetter(0, 1, 2)
        ):
            if test == "result":
                money = MoneyGroup()
                for table, parts in groupby(records, key=itemgetter(3)):
                    money.add(_summed(parts), played[table][0], table, played[table][1])
                group = _money_group(path, SCOPES[scope], ident, money)
            else:
                record = next(records)
                group = _card_group(
                    path,
                    SCOPES[scope],
                    ident,
                    test,
                    record[3],
                    played[record[3]][1],
                    record[5],
                )
            if self.observe is not None:
                self.observe(group)
            self._test(group, replay.sink.line)
        _let_go(surv, new)

    def _test(self, group: Group, line: int) -> None:
        if group.p_exact is None:
            return
        key = group.key
        k, last = self.looks.get(key, (0, 0))
        if k and group.rounds < 2 * last:
            return  # not a look: its rounds have not doubled since the last
        k += 1
        self.looks[key] = (k, group.rounds)
        adjusted = min(1.0, group.p_exact * len(self.looks) * spent(k))
        self.smallest = min(self.smallest, adjusted)
        if key in self.reported:
            return
        if adjusted < self.alpha:
            self.reported.add(key)
            self.report(LiveAnomaly(group, _round_p(adjusted), k, len(self.looks), line))


def _let_go(surv: Surveillance, shoes: list) -> None:
    """A shoe's groups are final once looked at: let go, so that a night's memory stays flat
    (``audit check`` computes them for the night as a whole)."""
    del surv.records[: len(shoes)]
    _count(surv.held, -len(shoes))


#: the scopes whose sums another table of the file may hold, and where (``Surveillance._partials``)
_SUMS = {SCOPES.index(s): s for s in ("dealer", "player", "banker", "ponte")}


def _records_of(surv: Surveillance, moved: set) -> list:
    """Another table's records of the groups ``moved``, in report order: its dealers' and
    players' sums looked up (a night's file holds hundreds of tables: not all read each look)."""
    unknown = any(scope not in _SUMS for scope, _, _ in moved if scope not in (_SHOE, _TABLE))
    first = next(iter(surv.players.values()), None)
    if unknown or not (first is None or isinstance(first, Acc)):
        # a scope, or a layout of the sums, not known here: every record read, as ``audit check``
        return [r for r in _records_now(surv) if r[:3] in moved]
    out = []
    for key in moved:
        scope, ident, _ = key
        name = _SUMS.get(scope)
        if name is None:
            continue  # a shoe's or a table's: its own table's alone
        who: Any = ident if name == "player" else (name, ident)  # a player's id, or (scope, id)
        acc = surv.dealers.get(ident) if name == "dealer" else surv.players.get(who)
        if acc is not None:
            out.append((*key, surv.table, 0, acc))
    out.sort(key=record_order)
    return out


def _records_now(surv: Surveillance) -> list:
    """A table's records as they stand, in report order, without closing anything: its shoes',
    its players' and dealers' sums so far, its own (``Surveillance.records_in_order`` less the
    shoe it closes and the runs: nothing is written out while following)."""
    held = surv.records + surv._partials()
    if surv.house_banked and surv.whole.rounds:
        held.append((_TABLE, surv.table, "result", surv.table, -1, surv.whole))
    if surv.cards.ordered:
        held.append((_TABLE, surv.table, "order", surv.table, -1, surv.cards))
    if surv.cards.df:
        held.append((_TABLE, surv.table, "ranks", surv.table, -1, surv.cards))
    held.sort(key=record_order)
    return held
