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
from typing import Any

from ..engine.surveillance import SCOPES, Surveillance, _count, record_order
from ..registry import game_scopes
from ..reporters.json_report import anomaly
from ..rulesets import Library
from ..statistics import (
    DEFAULT_ALPHA,
    Anomaly,
    Group,
    _link,
    _round_p,
    made_groups,
)
from ..statistics.money import Figures, units
from .live_store import LiveStore

#: (path, scope, id, test): a group as the run names it, and as the state keeps an anomaly
GroupKey = tuple[str, str, str, str]
_SHOE = SCOPES.index("shoe")
_TABLE = SCOPES.index("table")


def spent(look: int) -> int:
    """The share of a group's alpha its ``look``-th look may not exceed, as its inverse: k (k + 1)."""
    return look * (look + 1)


@dataclass(kw_only=True)
class LiveAnomaly(Anomaly):
    """A group that crossed: the group as ``audit check`` reports it, at its ``look``-th look,
    ``tested`` groups tested in the run then, at ``line`` of its file; a player's or pair's linked,
    as in the report, to the card anomalies of shoes at its tables written so far that night."""

    look: int
    tested: int
    line: int

    def as_object(self) -> dict[str, Any]:
        """The ``anomaly`` line of ``audit follow -f jsonl`` (statistics contract, section 4): the
        report's anomaly (section 3: what was measured and where, to pull the footage), and when
        it crossed: ``line``, ``look`` and ``tested``."""
        return {
            "type": "anomaly",
            **anomaly(self),
            "line": self.line,
            "look": self.look,
            "tested": self.tested,
        }


class LiveStatistics:
    """The looks of one run of ``audit follow``: how often each group was tested, which crossed.

    ``report`` receives each anomaly once; ``reported`` (the state's) are never reported again.
    After a restart the files are read again from their start: with the looks kept (``kept``),
    the looks taken again on the way are not looks (each group's rounds have not doubled since
    its last kept look), so the decisions are those of a run never stopped; without, each group
    is looked at again as its rounds double, counted with the groups read again so far."""

    def __init__(
        self,
        library: Library,
        report: Callable[[LiveAnomaly], None],
        alpha: float = DEFAULT_ALPHA,
        reported: Iterable[GroupKey] = (),
        kept: str | None = None,
        run: str | None = None,
    ) -> None:
        """``kept``: the file the looks are kept in, ``run`` the run whose looks to go on with
        (``LiveStore``: ``audit follow --state``)."""
        self.library, self.report, self.alpha = library, report, alpha
        #: the players' sums let go, and each group tested: its looks so far and its rounds at the last
        self.store = LiveStore(kept, run)
        self.looks = self.store
        #: each followed file's generation (its sums let go are dropped with it)
        self._generations: dict[str, int] = {}
        self.reported: set[GroupKey] = {tuple(k) for k in reported}  # type: ignore[misc]
        self._figures: dict[tuple[str, str | None], Figures] = {}
        #: told of every group worked out at a look (the live page shows the tables' expectation)
        self.observe: Callable[[Group], None] | None = None
        #: the smallest adjusted p-value of any look (the alpha at which the run would have alarmed)
        self.smallest = 1.0
        #: the anomalies of the look under way: linked, then reported, once the look is over
        self._found: list[LiveAnomaly] = []

    def surveillance_for(self, replay) -> Callable[[str, bool], Surveillance]:
        """What ``replay`` makes a table's accumulators with: ones that call ``look`` at a shoe's end.

        A new generation of a file (replaced, truncated) replaces its replay: the sums the old one
        let go are dropped."""
        live, gen = self, self.store.generation()
        previous = self._generations.get(replay.sink.path)
        if previous is not None:
            self.store.drop(previous)
        self._generations[replay.sink.path] = gen

        class Watched(Surveillance):
            #: the table's groups (but its shoes') and their rounds here at the last look
            rounds_seen: dict
            #: the line of the last look: sums that did not move since are let go after the next
            looked_at: int
            generation = gen

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
        before = surv.__dict__.get("rounds_seen", {})
        rounds: dict = {}
        for r in mine:  # the table's, its dealers' and players': those that played since
            if r[0] != _SHOE:
                rounds[r[:3]] = rounds.get(r[:3], 0) + r[5].rounds
        moved.update(key for key, n in rounds.items() if before.get(key) != n)
        surv.rounds_seen = rounds  # type: ignore[attr-defined]
        if moved:
            self._look(replay, surv, mine, moved)
            self._tell()
        _let_go(surv, new)
        self._let_idle_go(replay, surv)

    def _look(self, replay, surv: Surveillance, mine: list, moved: set) -> None:
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
        let_go = self.store.records(
            surv.generation,  # type: ignore[attr-defined]
            sorted(k for k in moved if k[0] in _SUMS and k[2] == "result"),
        )
        streams.append(sorted(let_go, key=record_order))
        path = replay.sink.path
        merged = heapq.merge(*streams, key=record_order)
        for groups in made_groups(path, merged, played):  # as in the report
            self._tested(groups, replay.sink.line)

    def _tested(self, groups: list[Group], line: int) -> None:
        """``groups`` observed and tested, in report order; the list emptied."""
        for group in groups:
            if self.observe is not None:
                self.observe(group)
            self._test(group, line)
        groups.clear()

    def _let_idle_go(self, replay, surv: Surveillance) -> None:
        """The sums of the players and dealers who did not play or deal at this table since its
        last look written to the store and let go (a night seats thousands of players an hour, and
        dealers change: memory stays flat)."""
        since = surv.__dict__.get("looked_at", 0)
        surv.looked_at = replay.sink.line  # type: ignore[attr-defined]
        rows = []
        for dealer, groups in surv.players.items():
            idle = [k for k, acc in groups.items() if acc.last is None or acc.last[0] <= since]
            for who in idle:
                acc = groups.pop(who)
                if dealer:
                    acc.with_dealer(dealer)
                if isinstance(who, str):
                    rows.append((_PLAYER, who, surv.table, acc))
                    if dealer:
                        rows.append((_PAIR, f"{dealer}+{who}", surv.table, acc))
                else:
                    rows.append((SCOPES.index(who[0]), who[1], surv.table, acc))
            _count(surv.held, -len(idle))
        idle = [d for d, acc in surv.dealers.items() if acc.last is None or acc.last[0] <= since]
        for dealer in idle:  # a room's dealers change through the night too
            rows.append((_DEALER, dealer, surv.table, surv.dealers.pop(dealer)))
        _count(surv.held, -len(idle))
        if rows:
            self.store.put(surv.generation, rows)  # type: ignore[attr-defined]
        surv.players = {dealer: groups for dealer, groups in surv.players.items() if groups}

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
            self._found.append(
                LiveAnomaly(group, _round_p(adjusted), look=k, tested=len(self.looks), line=line)
            )

    def _tell(self) -> None:
        """The look's anomalies reported, in the order found. A player's or pair's is first linked
        as the report links it (``statistics._link``) to the shoes of its tables whose cards are an
        anomaly: those written before (the state's too) and those of this look (a shoe's groups are
        tested after the players' of its table). An anomaly already written is not written again:
        one written before a shoe of its table crossed stays without that shoe.

        Each is counted reported as it is, and the look's looks are not kept (``LiveStore.commit``)
        before the last is: a follow killed between two of them takes the look again after its
        restart and writes those not written yet."""
        found, self._found = self._found, []
        if not found:
            return
        if any(a.group.scope in ("player", "pair") for a in found):
            _link([*self._clumped(), *found])
        self.store.held = True
        try:
            for a in found:
                self.reported.add(a.group.key)
                self.report(a)
        finally:
            self.store.held = False

    def _clumped(self) -> list[Anomaly]:
        """The card anomalies of shoes written so far, as ``_link`` reads them: their file, shoe
        (``TABLE#N``), test and table."""
        return [
            Anomaly(Group(scope, ident, path, test, ident.rsplit("#", 1)[0], None, 0), 0.0)
            for path, scope, ident, test in sorted(self.reported)
            if scope == "shoe" and test != "result"
        ]


def _let_go(surv: Surveillance, shoes: list) -> None:
    """A shoe's groups are final once looked at: let go, so that a night's memory stays flat
    (``audit check`` computes them for the night as a whole)."""
    del surv.records[: len(shoes)]
    _count(surv.held, -len(shoes))


#: the scopes of the sums a table's ``Surveillance`` holds by player or dealer (``_partials``)
_SUMS = {SCOPES.index(s): s for s in ("dealer", "player", "pair", *game_scopes())}
_DEALER, _PLAYER, _PAIR = (SCOPES.index(s) for s in ("dealer", "player", "pair"))


def _records_of(surv: Surveillance, moved: set) -> list:
    """Another table's records of the groups ``moved``, in report order: its dealers' and
    players' sums looked up (a night's file holds hundreds of tables: not all read each look).

    A player's sums are held by dealer in charge: his group is the sum of his pairs' (a pair's id
    is ``DEALER+PLAYER``), a game's own scopes (``Game.scopes``) by (scope, id)."""
    out = []
    whole = set()
    for key in moved:
        scope, ident, test = key
        name = _SUMS.get(scope)
        if name is None:
            if scope not in (_SHOE, _TABLE):
                whole.add(key)  # a scope not known here: read as ``audit check`` reads it
            continue  # a shoe's or a table's: its own table's alone
        if test != "result":
            whole.add(key)
            continue
        if name == "dealer":
            acc = surv.dealers.get(ident)
            if acc is not None:
                out.append((*key, surv.table, 0, acc))
            continue
        for n, (dealer, groups) in enumerate(surv.players.items()):
            if name == "pair":
                if not dealer or not ident.startswith(dealer + "+"):
                    continue
                acc = groups.get(ident[len(dealer) + 1 :])
            else:
                acc = groups.get(ident if name == "player" else (name, ident))
            if acc is not None:
                if dealer:
                    acc.with_dealer(dealer)
                out.append((*key, surv.table, n, acc))
    if whole:
        out += [r for r in _records_now(surv) if r[:3] in whole]
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
