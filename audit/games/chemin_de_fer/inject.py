"""The faults ``audit simulate --inject`` puts at a chemin de fer table, one known breach per category.

- ``late-bet``: a ponte adds to his stake after "rien ne va plus" in a coup
  the bank does not win (cdf-late-stake; the settlement includes it).
- ``bet-limit``: the ponte holding the cards stakes more than the bank
  covers, in a coup the bank does not win (cdf-stakes-bank, at the coup's
  first card).
- ``deal-order``: both ponte cards before the banker's (cdf-deal-order
  twice: the second and third cards).
- ``wrong-payout``: a ponte's PAY or COLLECT off by 10 (cdf-settle).
- ``pay-order``: two pontes settled out of their places (cdf-pay-order).
- ``shoe``: the cut made by a player it was not offered to, or (every other
  player having declined) first offered to the wrong player (cdf-cut-order).
- ``table``: a player seated for one round at a place the table does not
  have (seat-range).
- ``drawing``: a point announced one off (cdf-point).

Each fault breaks the rule bound to that check in the table's ruleset, and
a category applies only where its rule is on (``categories``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import ClassVar

from ...rulesets import Rule
from ...simulate.params import FaultRules
from ...simulate.shoe import DECK
from ...simulate.table_faults import (
    Fault,
    FaultMethod,
    Line,
    TableFaults,
    amount,
    by_of,
    with_amount,
)
from ...values import fmt_amount
from ..bataille.inject import BatailleFaults
from .params import CdfParams
from .simulate import STAKES

POINT = re.compile(r"POINT ponte=(\d) banker=(\d)")
#: By how much the ponte holding the cards stakes more than the bank covers.
OVER_THE_BANK = (Decimal(10), Decimal(20), Decimal(50))
#: By how much a wrong settlement is off.
WRONG_BY = 10


@dataclass(frozen=True)
class CdfRules(FaultRules):
    """The rules this game's faults break, beside the format's and every game's."""

    late_stake: Rule | None = None
    stakes_bank: Rule | None = None
    deal_order: Rule | None = None
    settle: Rule | None = None
    cdf_pay_order: Rule | None = None
    cut_order: Rule | None = None
    point: Rule | None = None

    CHECKS: ClassVar[dict[str, str]] = {
        **FaultRules.CHECKS,
        "late_stake": "cdf-late-stake",
        "stakes_bank": "cdf-stakes-bank",
        "deal_order": "cdf-deal-order",
        "settle": "cdf-settle",
        "cdf_pay_order": "cdf-pay-order",
        "cut_order": "cdf-cut-order",
        "point": "cdf-point",
    }


class CdfFaults(TableFaults):
    RULES = CdfRules
    NOTES = BatailleFaults.NOTES  # the same notes as at the house's other tables
    params: CdfParams
    rules: CdfRules

    @staticmethod
    def categories(rules: CdfRules) -> set[str]:  # type: ignore[override]
        has = {
            "late-bet": rules.late_stake,
            "bet-limit": rules.stakes_bank,
            "deal-order": rules.deal_order,
            "wrong-payout": rules.settle,
            "pay-order": rules.cdf_pay_order,
            "shoe": rules.cut_order,
            "table": rules.seat_range,
            "drawing": rules.point,
        }
        return TableFaults.categories(rules) | {
            category for category, rule in has.items() if rule is not None
        }

    @staticmethod
    def rounds_per_shoe_at_most(params: CdfParams) -> int:
        """The shoe's cards at four a coup (no burn, no stop card)."""
        return DECK * params.decks // 4

    def methods(self) -> dict[str, FaultMethod]:
        return {
            **super().methods(),
            "late-bet": self._late_bet,
            "bet-limit": self._bet_limit,
            "deal-order": self._deal_order,
            "wrong-payout": self._wrong_payout,
            "pay-order": self._pay_order,
            "shoe": self._shoe,
            "table": self._table,
            "drawing": self._drawing,
        }

    # .. what a coup holds
    def _coup(self, batch: list[Line], b: int) -> dict:
        """What the generator wrote of a coup: stakes, bancos, bank, outcome, settlement lines."""
        info: dict = {
            "stakes": {},
            "stake_lines": {},
            "banco": False,
            "bank": None,
            "ponte": None,
            "settle": [],
            "point": None,
        }
        for i in self.round_range(batch, b):
            line = batch[i]
            if line.startswith("STAKE "):
                who = by_of(line)
                info["stakes"][who] = info["stakes"].get(who, Decimal(0)) + amount(line)
                info["stake_lines"].setdefault(who, []).append(i)
            elif line.startswith("BANCO "):
                info["banco"] = True
            elif line.startswith("BANK "):
                info["bank"] = amount(line)
            elif line.startswith("PONTE "):
                info["ponte"] = (i, by_of(line))
            elif line.startswith("PAY by=", "COLLECT by=", "PUSH by="):
                info["settle"].append(i)
            elif line.startswith("POINT "):
                m = POINT.match(line.body)
                info["point"] = (i, int(m.group(1)), int(m.group(2)))  # type: ignore[union-attr]
        return info

    @staticmethod
    def _bank_does_not_win(info: dict) -> bool:
        """Stakes only, and the ponte wins or ties: no bank carried to the next coup depends on them."""
        point = info["point"]
        return (
            not info["banco"]
            and info["bank"] is not None
            and info["ponte"] is not None
            and point is not None
            and point[1] >= point[2]
            and info["stakes"]
        )

    @staticmethod
    def _settle_line(batch: list[Line], info: dict, who: str) -> int | None:
        return next((i for i in info["settle"] if by_of(batch[i]) == who), None)

    # .. the faults
    def _late_bet(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        info = self._coup(batch, b)
        if not self._bank_does_not_win(info):
            return False
        room = info["bank"] - sum(info["stakes"].values(), Decimal(0))
        fits = sorted({v for v in STAKES if v <= room})
        if not fits:
            return False
        who = fault.rng.choice(sorted(info["stakes"]))
        extra = fault.rng.choice(fits[:3])
        settle = self._settle_line(batch, info, who)
        assert settle is not None
        if batch[settle].verb == "PAY":
            with_amount(batch[settle], amount(batch[settle]) + extra)
        k = info["ponte"][0]
        late = Line(batch[k].t, f"STAKE by={who} amount={fmt_amount(extra)}")
        batch.insert(k + 1, late)
        self.expect(late, self.rules.late_stake)
        return True

    def _bet_limit(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        info = self._coup(batch, b)
        if not self._bank_does_not_win(info):
            return False
        who = info["ponte"][1]
        if who not in info["stakes"]:
            return False
        over = fault.rng.choice(OVER_THE_BANK)
        extra = info["bank"] - sum(info["stakes"].values(), Decimal(0)) + over
        stake = batch[info["stake_lines"][who][-1]]
        with_amount(stake, amount(stake) + extra)
        settle = self._settle_line(batch, info, who)
        assert settle is not None
        if batch[settle].verb == "PAY":
            with_amount(batch[settle], amount(batch[settle]) + extra)
        first = self.first(batch, b, "DEAL ")
        assert first is not None
        self.expect(batch[first], self.rules.stakes_bank)
        return True

    def _deal_order(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        deals = [i for i in self.round_range(batch, b) if batch[i].startswith("DEAL ")][:4]
        if len(deals) < 4 or deals[2] != deals[1] + 1:
            return False
        i = deals[1]
        batch[i].body, batch[i + 1].body = batch[i + 1].body, batch[i].body
        self.expect(batch[i], self.rules.deal_order)
        self.expect(batch[i + 1], self.rules.deal_order)
        return True

    def _wrong_payout(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        info = self._coup(batch, b)
        paid = [i for i in info["settle"] if batch[i].verb in ("PAY", "COLLECT")]
        if not paid:
            return False
        i = fault.rng.choice(paid)
        value = amount(batch[i])
        with_amount(batch[i], value - WRONG_BY if value > WRONG_BY else value + WRONG_BY)
        self.expect(batch[i], self.rules.settle)
        return True

    def _pay_order(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        settle = self._coup(batch, b)["settle"]
        pairs = [i for i in settle if i + 1 in settle]
        if not pairs:
            return False
        i = fault.rng.choice(pairs)
        batch[i].body, batch[i + 1].body = batch[i + 1].body, batch[i].body
        self.expect(batch[i + 1], self.rules.cdf_pay_order)
        return True

    def _shoe(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        new_shoe = self.first(batch, 0, "SHOE new")
        if new_shoe is None or new_shoe > b or self.shoes - 1 < fault.shoe:
            return False
        cuts = [i for i in range(new_shoe, b) if batch[i].startswith("CUT ")]
        refused = {by_of(batch[i]) for i in cuts[:-1]}
        cut = batch[cuts[-1]]
        others = [
            s
            for s in sorted(self.seated)
            if f"seat:{s}" not in refused and f"seat:{s}" != by_of(cut)
        ]
        if others:  # the cut taken by a player it was not offered to
            cut.body = f"CUT by=seat:{fault.rng.choice(others)}"
        else:  # every other player declined: the first two were offered it in the wrong order
            first, second = batch[cuts[0]], batch[cuts[1]]
            first.body, second.body = (
                first.body.replace(by_of(first), by_of(second)),  # type: ignore[arg-type]  # CUTs name their by=
                second.body.replace(by_of(second), by_of(first)),  # type: ignore[arg-type]
            )
        self.expect(cut, self.rules.cut_order)
        return True

    def _table(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        if any(line.startswith("SHOE new") for line in batch[:b]):
            return False  # the cut is offered by seat: keep the extra seat away from a new shoe
        return self.seat_range(fault, batch, b, n)

    def _drawing(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        point = self._coup(batch, b)["point"]
        if point is None:
            return False
        i, p, q = point
        if fault.rng.random() < 0.5:
            p = (p + fault.rng.choice((1, 9))) % 10
        else:
            q = (q + fault.rng.choice((1, 9))) % 10
        batch[i].body = f"POINT ponte={p} banker={q}"
        self.expect(batch[i], self.rules.point)
        return True
