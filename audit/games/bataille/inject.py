"""The faults ``audit simulate --inject`` puts at a bataille table, one known breach per category.

- ``late-bet``: a seated player adds the table minimum to his own main stake
  after "rien ne va plus", and the dealer settles the whole stake (late-bet).
- ``bet-limit``: a lone initial stake of half the table minimum, settled as
  staked (bet-limits).
- ``missed-burn``: one of the burns of a new shoe (or of a machine's restart),
  or of a bataille's burns, left out (burn-start, burn-resume or
  burn-bataille, at the next card).
- ``extra-burn``: one burn more at a new shoe or a restart (burn-start-extra,
  burn-resume-extra) or a card burned between two rounds (burn-unexpected).
- ``deal-order``: two hands' first cards served out of order (deal-first).
- ``wrong-payout``: a winning main stake underpaid by the table minimum (pay-main).
- ``pay-order``: two hands settled in the wrong order (pay-order).
- ``shoe``: the player's cut of a new shoe left out (shoe-cut, at the stop
  card), or a shuffling-dealing machine "cut" (machine-no-cut).
- ``table``: a bet on a vacant place without the dealer's approval
  (vacant-seat-approval), or, where no such bet comes, a player seated for
  one round at a place the table does not have (seat-range).

Each fault breaks the rule bound to that check in the table's ruleset, and
a category applies only where its rule is on (``categories``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import ClassVar

from ...rulesets import Rule
from ...simulate.money import CENT
from ...simulate.params import FaultRules
from ...simulate.shoe import DECK
from ...simulate.table_faults import (
    CARD,
    SPOT,
    TABLE_WAIT,
    Fault,
    FaultMethod,
    Line,
    TableFaults,
    amount,
    by_of,
    seat_of,
    with_amount,
)
from ...values import RANKS, SUITS, fmt_amount
from .params import BatailleParams


@dataclass(frozen=True)
class BatailleRules(FaultRules):
    """The rules this game's faults break, beside the format's and every game's."""

    late_bet: Rule | None = None
    bet_limits: Rule | None = None
    burn_start: Rule | None = None
    burn_start_extra: Rule | None = None
    burn_resume: Rule | None = None
    burn_resume_extra: Rule | None = None
    burn_bataille: Rule | None = None
    burn_unexpected: Rule | None = None
    deal_first: Rule | None = None
    pay_main: Rule | None = None
    pay_order: Rule | None = None
    shoe_cut: Rule | None = None
    machine_no_cut: Rule | None = None
    vacant_seat: Rule | None = None

    CHECKS: ClassVar[dict[str, str]] = {
        **FaultRules.CHECKS,
        "late_bet": "late-bet",
        "bet_limits": "bet-limits",
        "burn_start": "burn-start",
        "burn_start_extra": "burn-start-extra",
        "burn_resume": "burn-resume",
        "burn_resume_extra": "burn-resume-extra",
        "burn_bataille": "burn-bataille",
        "burn_unexpected": "burn-unexpected",
        "deal_first": "deal-first",
        "pay_main": "pay-main",
        "pay_order": "pay-order",
        "shoe_cut": "shoe-cut",
        "machine_no_cut": "machine-no-cut",
        "vacant_seat": "vacant-seat-approval",
    }


class BatailleFaults(TableFaults):
    RULES = BatailleRules
    NOTES = (
        'NOTE "player at seat {s} says "no more" twice"',
        'NOTE "client asked for "la bataille" rules"',
        'NOTE "chips "color" changed at seat {s}"',
    )
    params: BatailleParams
    rules: BatailleRules

    @staticmethod
    def categories(rules: BatailleRules) -> set[str]:  # type: ignore[override]
        has = {
            "late-bet": rules.late_bet,
            "bet-limit": rules.bet_limits,
            "missed-burn": rules.burn_start,
            "extra-burn": rules.burn_start_extra,
            "deal-order": rules.deal_first,
            "wrong-payout": rules.pay_main,
            "pay-order": rules.pay_order,
            "shoe": rules.shoe_cut,
            "table": rules.vacant_seat or rules.seat_range,
        }
        return TableFaults.categories(rules) | {
            category for category, rule in has.items() if rule is not None
        }

    @staticmethod
    def rounds_per_shoe_at_most(params: BatailleParams) -> int:
        """The cards before the smallest talon, less the start's burns, at two a round (one hand and the
        dealer's), and the round the stop card comes out in."""
        return (DECK * params.decks - params.min_talon - params.start_burns) // 2 + 1

    def methods(self) -> dict[str, FaultMethod]:
        return {
            **super().methods(),
            "late-bet": self._late_bet,
            "bet-limit": self._bet_limit,
            "missed-burn": self._missed_burn,
            "extra-burn": self._extra_burn,
            "deal-order": self._deal_order,
            "wrong-payout": self._wrong_payout,
            "pay-order": self._pay_order,
            "shoe": self._shoe,
            "table": self._table,
        }

    # .. what a round holds
    def _settlements(self, batch: list[Line], b: int) -> dict[tuple[int, str], int]:
        """(seat, spot) -> index of its first settlement line in the round."""
        out: dict[tuple[int, str], int] = {}
        for i in self.round_range(batch, b):
            if batch[i].startswith("PAY seat=", "COLLECT seat=", "PUSH seat="):
                key = (seat_of(batch[i]) or 0, SPOT.search(batch[i].body).group(1))  # type: ignore[union-attr]
                out.setdefault(key, i)
        return out

    def _untied(self, batch: list[Line], b: int) -> set[int]:
        """Seats with a first card and no CHOICE: their main stake is settled at once."""
        dealt = {
            seat_of(batch[i])
            for i in self.round_range(batch, b)
            if batch[i].startswith("DEAL seat=")
        }
        chose = {
            seat_of(batch[i]) for i in self.round_range(batch, b) if batch[i].startswith("CHOICE ")
        }
        return {s for s in dealt - chose if s is not None}

    def _own_main_bets(self, batch: list[Line], b: int) -> dict[int, list[int]]:
        """Seat -> its main BET lines, for hands whose player stakes on his own seat."""
        bets: dict[int, list[int]] = {}
        for i in self.round_range(batch, b):
            line = batch[i]
            if line.startswith("BET ") and "spot=main" in line.body:
                bets.setdefault(seat_of(line) or 0, []).append(i)
        return {s: idx for s, idx in bets.items() if by_of(batch[idx[0]]) is None}

    # .. the faults
    def _late_bet(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        settle = self._settlements(batch, b)
        untied = self._untied(batch, b)
        options = []
        for seat in sorted(self._own_main_bets(batch, b)):
            i = settle.get((seat, "main"))
            if (
                seat in untied
                and i is not None
                and batch[i].verb in ("PAY", "COLLECT")
                and amount(batch[i]) + self.min <= self.max
            ):
                options.append((seat, i))
        if not options:
            return False
        seat, i = fault.rng.choice(options)
        with_amount(batch[i], amount(batch[i]) + self.min)
        k = self.first(batch, b, "NOMOREBETS")
        assert k is not None
        late = Line(batch[k].t, f"BET seat={seat} spot=main amount={fmt_amount(self.min)}")
        batch.insert(k + 1, late)
        self.expect(late, self.rules.late_bet)
        return True

    def _bet_limit(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        settle = self._settlements(batch, b)
        untied = self._untied(batch, b)
        withdrawn = {
            seat_of(batch[i])
            for i in self.round_range(batch, b)
            if batch[i].startswith("WITHDRAW ")
        }
        low = (self.min / 2).quantize(CENT)
        options = []
        for seat, bets in sorted(self._own_main_bets(batch, b).items()):
            i = settle.get((seat, "main"))
            if (
                len(bets) == 1
                and seat in untied
                and seat not in withdrawn
                and i is not None
                and batch[i].verb in ("PAY", "COLLECT")
            ):
                options.append((bets[0], i))
        if not options or not 0 < low < self.min:
            return False
        bet, i = fault.rng.choice(options)
        with_amount(batch[i], amount(batch[i]) - amount(batch[bet]) + low)
        with_amount(batch[bet], low)
        self.expect(batch[bet], self.rules.bet_limits)
        return True

    def _burn_site(self, fault: Fault, batch: list[Line], b: int) -> tuple[str, int] | None:
        """Where a burn fault goes in this round: ("start", index of the new shoe's SHOE line),
        ("resume", index of RESUME) or ("play", -1); None: not here (the stop card comes out in
        this round, or the fault waits for the shoe drawn for it)."""
        if any(line.body == "STOPCARD out" for line in batch):
            return None
        new_shoe = self.first(batch, 0, "SHOE new")
        if new_shoe is not None and new_shoe < b:
            if fault.variant == "play" or self.shoes - 1 >= fault.shoe:
                return "start", new_shoe
            return None
        if fault.variant == "start" and self.shoes - 1 < fault.shoe:
            return None
        resume = self.first(batch, 0, "RESUME")
        if resume is not None and resume < b:
            return "resume", resume
        return "play", -1

    def _missed_burn(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        site = self._burn_site(fault, batch, b)
        if site is None:
            return False
        where, at = site
        if where == "play":
            dealer = self.first(batch, b, "DEAL dealer")
            burns = [
                i
                for i in self.round_range(batch, b)
                if dealer is not None and i > dealer and batch[i].body.startswith("BURN")
            ]
            rule = self.rules.burn_bataille
        else:
            burns = [i for i in range(at, b) if batch[i].body.startswith("BURN")]
            rule = self.rules.burn_start if where == "start" else self.rules.burn_resume
        if not burns or rule is None:
            return False
        k = fault.rng.choice(burns)
        del batch[k]
        deal = self.first(batch, b, "DEAL ", k)
        assert deal is not None
        self.expect(batch[deal], rule)
        self.shoe_delta -= 1
        return True

    def _extra_burn(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        site = self._burn_site(fault, batch, b)
        if site is None:
            return False
        where, at = site
        if where == "play":
            if any(line.startswith("PAUSE") for line in batch[:b]):
                return False
            at, rule = b, self.rules.burn_unexpected
        else:
            at = max(i for i in range(at, b) if batch[i].body.startswith("BURN")) + 1
            rule = self.rules.burn_start_extra if where == "start" else self.rules.burn_resume_extra
        if rule is None or not self.stop_move_safe(+1):
            return False
        # a card still in the shoe: its count in the whole shoe is below the decks'
        counts = Counter(self.counts)
        for line in batch:  # counts were reset if this round's gap begins a shoe
            m = CARD.match(line.body)
            if m:
                counts[m.group(1)] += 1
        for later in self.peek_shoe():
            for line in later:
                m = CARD.match(line.body)
                if m:
                    counts[m.group(1)] += 1
        left = [f"{r}{s}" for r in RANKS for s in SUITS if counts[f"{r}{s}"] < self.params.decks]
        burn = Line(
            batch[at - 1].t if where != "play" else batch[b].t,
            f"BURN {fault.rng.choice(left)}" if left else "BURN",
        )
        batch.insert(at, burn)
        self.expect(burn, rule)
        self.shoe_delta += 1
        return True

    def _deal_order(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        dealer = self.first(batch, b, "DEAL dealer")
        if dealer is None:
            return False
        pairs = [
            i
            for i in range(b, dealer - 1)
            if batch[i].startswith("DEAL seat=") and batch[i + 1].startswith("DEAL seat=")
        ]
        if not pairs:
            return False
        i = fault.rng.choice(pairs)
        batch[i].body, batch[i + 1].body = batch[i + 1].body, batch[i].body
        self.expect(batch[i], self.rules.deal_first)
        return True

    def _wrong_payout(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        untied = self._untied(batch, b)
        pays = [
            i
            for (seat, spot), i in sorted(self._settlements(batch, b).items())
            if spot == "main" and seat in untied and batch[i].verb == "PAY"
        ]
        if not pays:
            return False
        i = fault.rng.choice(pays)
        paid = amount(batch[i])
        with_amount(batch[i], paid - self.min if paid > self.min else paid + self.min)
        self.expect(batch[i], self.rules.pay_main)
        return True

    def _pay_order(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        dealer = self.first(batch, b, "DEAL dealer")
        if dealer is None:
            return False
        start = self.first(batch, b, ("PAY seat=", "COLLECT seat=", "PUSH seat="), dealer)
        if start is None:
            return False
        end = start
        while end < len(batch) and batch[end].startswith(
            "PAY seat=", "COLLECT seat=", "PUSH seat="
        ):
            end += 1
        blocks: list[list[int]] = []
        for i in range(start, end):
            if blocks and seat_of(batch[blocks[-1][0]]) == seat_of(batch[i]):
                blocks[-1].append(i)
            else:
                blocks.append([i])
        if len(blocks) < 2:
            return False
        k = fault.rng.randrange(len(blocks) - 1)
        first, second = blocks[k], blocks[k + 1]
        bodies = [batch[i].body for i in second] + [batch[i].body for i in first]
        for i, body in zip(first + second, bodies):
            batch[i].body = body
        self.expect(batch[first[0] + len(second)], self.rules.pay_order)
        return True

    def _shoe(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        new_shoe = self.first(batch, 0, "SHOE new")
        if new_shoe is None or new_shoe > b or self.shoes - 1 < fault.shoe:
            return False
        if self.machine:
            if self.rules.machine_no_cut is None:
                return False
            shuffle = self.first(batch, new_shoe, "SHUFFLE")
            assert shuffle is not None
            cut = Line(batch[shuffle].t, "CUT by=dealer")
            batch.insert(shuffle + 1, cut)
            self.expect(cut, self.rules.machine_no_cut)
            return True
        cuts = [i for i in range(new_shoe, b) if batch[i].startswith("CUT by=seat:")]
        stop = self.first(batch, new_shoe, "STOPCARD talon=")
        if not cuts or stop is None:
            return False
        del batch[cuts[-1]]
        self.expect(batch[stop - 1], self.rules.shoe_cut)
        return True

    def _table(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        vacant = [
            i
            for i in self.round_range(batch, b)
            if batch[i].startswith("BET ")
            and "spot=main" in batch[i].body
            and " approved" in batch[i].body
        ]
        if vacant and self.rules.vacant_seat is not None:
            i = fault.rng.choice(vacant)
            batch[i].body = batch[i].body.replace(" approved", "")
            self.expect(batch[i], self.rules.vacant_seat)
            return True
        if n < fault.target + TABLE_WAIT:
            return False
        return self.seat_range(fault, batch, b, n)
