"""What a table did over the audit: rounds, chips staked, money paid and collected.

These are the figures a compliance officer ties to the count room: the drop
(chips staked), what the house (or, where a player banks, the bank) paid and
collected, and the hold. They are read off the log as it is, right or wrong:
the findings say what was wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from .surveillance import Surveillance

ZERO = Decimal(0)
HUNDREDTH = Decimal("0.01")


@dataclass
class TableStats:
    path: str
    table: str
    ruleset: str
    game: str
    overlay: str | None = None
    rounds: int = 0
    drop: Decimal = ZERO
    paid: Decimal = ZERO
    collected: Decimal = ZERO
    #: the house is the bank (set by the table from its game): else the bank is a player's
    house_banked: bool = True
    #: dealer id (None: none logged yet) -> rounds begun with that dealer in charge
    dealer_rounds: dict[str | None, int] = field(default_factory=dict)
    #: the surveillance statistics' sums (set by the replay when asked)
    surveillance: Surveillance | None = None

    @property
    def result(self) -> Decimal:
        """Collected minus paid: the house's win where the house banks, else the bank's."""
        return self.collected - self.paid

    @property
    def house_win(self) -> Decimal:
        return self.result if self.house_banked else ZERO

    @property
    def hold(self) -> Decimal | None:
        """House win as a percentage of the drop, to the hundredth; None when nothing was staked."""
        if not self.house_banked or self.drop <= 0:
            return None
        return (self.house_win * 100 / self.drop).quantize(HUNDREDTH)
