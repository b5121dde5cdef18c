"""What every game's table does in a simulated night: its clock, dealers, supervisor and seats.

A game's table (``GameSimulator.night``, in the game's package) subclasses ``TableNight`` and
plays its rounds; this class writes the lines, each a little after the last,
and holds the one-off events drawn for the night (``Plan``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from .anomalies import COLLUDER, CREW, FAVOURED, Anomaly
from .clock import stamp
from .specs import TableSpec
from .style import extra_limit_rounds

#: standing players around a table at most, in a style where new ones arrive
STANDING_AT_MOST = 8


@dataclass
class Plan:
    """Round numbers before which the table's one-off events happen."""

    limits: int
    pause: int | None
    supervisor_in: int
    supervisor_out: int
    reliefs: set[int]
    announce: int | None


class TableNight:
    """One table's night, as ``(time, table, line)`` in time order (``lines``)."""

    plan: Plan  # drawn by the game's table when it is set up
    #: an anomaly for the statistics' tests, played at this table (``simulate.anomalies``)
    anomaly: Anomaly | None = None

    def __init__(self, spec: TableSpec, rng: random.Random, start: datetime, number: int):
        self.spec, self.rng, self.t, self.number = spec, rng, start, number
        self.min, self.max = spec.min, spec.max
        self.players: dict[int, str] = {}
        self.counter = 0
        self.supervisor = False
        self.out: list[tuple[datetime, str, str]] = []
        self.standing: list[str] = []
        #: the rounds before which the limits change besides the planned one (``Style.limits_every``)
        self.extra_limits: set[int] = set()
        #: the dealer on duty; with a collusion, the dealers who take turns and the turns taken
        self.dealer_id: str | None = None
        self.crew: list[str] = []
        self.turns = 0

    # .. output
    def emit(self, text: str, lo: float = 1.0, hi: float = 3.0) -> None:
        """Log ``text`` ``lo``..``hi`` seconds (whole milliseconds) after the table's last line."""
        self.t += timedelta(milliseconds=self.rng.randint(int(lo * 1000), int(hi * 1000)))
        table = self.spec.table
        self.out.append((self.t, table, f"{stamp(self.t)} {table} {text}"))

    def flush(self) -> Iterator[tuple[datetime, str, str]]:
        out, self.out = self.out, []
        yield from out

    # .. the night: what a game plays between OPEN and CLOSE
    def lines(self) -> Iterator[tuple[datetime, str, str]]:
        self.open()
        yield from self.flush()
        for n in range(1, self.spec.rounds + 1):
            self.between(n)
            self.play(n)
            yield from self.flush()
        self.close()
        yield from self.flush()

    def open(self) -> None:
        raise NotImplementedError

    def between(self, n: int) -> None:
        raise NotImplementedError

    def play(self, n: int) -> None:
        raise NotImplementedError

    def change_limits(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        if self.supervisor:
            self.set_supervisor(False)
        self.emit("CLOSE", 10, 60)

    # .. people
    def new_player_id(self) -> str:
        self.counter += 1
        return f"P{self.number:02d}-{self.counter:03d}"  # unique in the casino

    def one_offs(self, n: int) -> None:
        if n in self.plan.reliefs:
            self.relief()
        if n == self.plan.supervisor_in:
            self.set_supervisor(True)
        if n == self.plan.supervisor_out and self.supervisor:
            self.set_supervisor(False)
        if n == self.plan.limits:
            self.change_limits()
        elif n in self.extra_limits:
            self.limits_again()

    def plan_extra_limits(self) -> None:
        """Draw the extra changes of limits of the table's style (none, and no draw, in the plain style)."""
        self.extra_limits = extra_limit_rounds(self.rng, self.spec.style, self.spec.rounds)

    def limits_again(self) -> None:
        """An extra change of limits: back to the opening limits if they changed, else a change."""
        if (self.min, self.max) == (self.spec.min, self.spec.max):
            self.change_limits()
        else:
            self.min, self.max = self.spec.min, self.spec.max
            self.post_limits()

    def post_limits(self) -> None:
        raise NotImplementedError

    def relief(self) -> None:
        if self._colluding():  # the dealers take turns, the colluder among them
            if not self.crew:
                self.crew = [
                    COLLUDER,
                    *(f"D{self.rng.randint(100, 999):04d}" for _ in range(CREW - 1)),
                ]
            self.dealer_id = self.crew[self.turns % len(self.crew)]
            self.turns += 1
            self.anomaly.dealer = COLLUDER  # type: ignore[union-attr]
            self.emit(f"DEALER id={self.dealer_id}", 2, 8)
            return
        self.dealer_id = f"D{self.rng.randint(100, 999):04d}"
        self.emit(f"DEALER id={self.dealer_id}", 2, 8)

    def _colluding(self) -> bool:
        return self.anomaly is not None and self.anomaly.kind == "collusion"

    def favoured_now(self) -> str | None:
        """The player the dealer on duty favours, if he is the colluder."""
        if self._colluding() and self.dealer_id == COLLUDER:
            return self.anomaly.id  # type: ignore[union-attr]
        return None

    def set_supervisor(self, present: bool) -> None:
        self.supervisor = present
        self.emit(f"SUPERVISOR {'present' if present else 'absent'}", 2, 8)

    def new_standing(self) -> None:
        """A new standing player joins the ones around the table at the style's rate, and the one
        who came first goes once ``STANDING_AT_MOST`` stand there."""
        arrivals = self.spec.style.standing_arrivals
        if arrivals and self.rng.random() < arrivals:
            self.standing.append(self.standing_owner(self.new_player_id()))
            if len(self.standing) > STANDING_AT_MOST:
                del self.standing[0]

    def standing_owner(self, player: str) -> str:
        """How a standing player is named in the game's lines."""
        return player

    def sit(self) -> None:
        free = [s for s in range(1, self.spec.seats + 1) if s not in self.players]
        seat = self.rng.choice(free)
        if self._colluding() and self.anomaly.id is None:  # type: ignore[union-attr]
            self.players[seat] = self.anomaly.id = FAVOURED  # type: ignore[union-attr]
        else:
            self.players[seat] = self.new_player_id()
        self.emit(f"SEAT {seat} in player={self.players[seat]}", 1, 5)

    def leave(self, seat: int) -> None:
        del self.players[seat]
        self.emit(f"SEAT {seat} out", 1, 5)
