"""A rule-abiding pair ou impair table, and its faults."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from audit.plugin import fmt_amount
from audit.plugin.simulate import (
    FaultRules,
    GameSimulator,
    Plan,
    Shoe,
    TableFaults,
    TableNight,
    TableSpec,
    needed,
)

from .cards import parity


@dataclass(frozen=True)
class Params:
    ruleset: str
    decks: int
    pair: Decimal
    impair: Decimal


class PairImpairNight(TableNight):
    @staticmethod
    def read_params(ruleset) -> Params:
        payouts = needed(ruleset, "pi-payout")
        decks = needed(ruleset, "shoe-decks").decks
        return Params(ruleset.id, decks, payouts.pair, payouts.impair)

    @staticmethod
    def check(spec: TableSpec, params: Params) -> None:
        if spec.procedure != "sabot":
            raise ValueError("pair ou impair is dealt from a sabot")

    def __init__(self, spec, params: Params, rng, start, number):
        super().__init__(spec, rng, start, number)
        self.p = params
        self.shoe: Shoe | None = None
        self.plan = Plan(spec.rounds + 1, None, 0, 0, set(), None)

    def open(self) -> None:
        s = self.spec
        self.emit(
            f"OPEN game=pair-impair ruleset={s.ruleset} seats={s.seats} "
            f"min={fmt_amount(s.min)} max={fmt_amount(s.max)}",
            0.0,
            0.5,
        )
        self.relief()
        for _ in range(self.rng.randint(1, s.seats)):
            self.sit()

    def between(self, n: int) -> None:
        if self.shoe is None or self.shoe.left < 10:
            self.shoe = Shoe(self.rng, self.p.decks)
            self.emit(f"SHOE new decks={self.p.decks} procedure=sabot", 5, 15)
            self.emit("SHUFFLE", 30, 60)
            self.emit("CUT by=dealer", 2, 6)

    def play(self, n: int) -> None:
        self.emit(f"ROUND {n} begin", 10, 40)
        wagers = {}
        for seat in sorted(self.players):
            on = self.rng.choice(("pair", "impair"))
            amount = self.spec.min * self.rng.randint(1, 5)
            wagers[seat] = (on, amount)
            self.emit(f"WAGER seat={seat} on={on} amount={fmt_amount(amount)}")
        self.emit("NOMOREBETS")
        assert self.shoe is not None
        card = self.shoe.take()
        self.emit(f"DEAL dealer {card}")
        for seat, (on, amount) in wagers.items():
            if parity(card.rank) == on:
                paid = amount * getattr(self.p, on)
                self.emit(f"PAY seat={seat} spot=main amount={fmt_amount(paid)}")
            else:
                self.emit(f"COLLECT seat={seat} spot=main amount={fmt_amount(amount)}")
        self.emit(f"ROUND {n} end")

    def change_limits(self) -> None:
        pass


class PairImpairFaults(TableFaults):
    RULES = FaultRules

    @staticmethod
    def rounds_per_shoe_at_most(params: Params) -> int:
        return 52 * params.decks - 9


def table(name: str, loaded, k: int, rounds: int) -> TableSpec:
    d = Decimal
    return TableSpec(name, loaded.id, rounds, 5, d(5), d(500))


SIMULATOR = GameSimulator(
    night=PairImpairNight,
    faults=PairImpairFaults,
    table=table,
    rulesets={"pi-essai-2026": "PI"},
)
