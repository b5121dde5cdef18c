"""What the parts of a bataille round (``War``, ``Settlement``) need of the round they are part of.

The parts are mixins of ``BatailleRound``: their methods take ``self`` as this protocol, so the
type checker reads each part against the round's state, and checks that ``BatailleRound`` has
all of it wherever a part's method is called on a round. Read by the type checker only.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.checks import Check
    from ...engine.stats import TableStats
    from ...values import Card
    from .hands import HandState, Spot
    from .settle import Due
    from .table import BatailleTable


class RoundState(Protocol):
    """A ``BatailleRound`` as its parts see it: the state they read and set, and the steps they call."""

    # -- the round's state (set by ``BatailleRound.__init__`` and ``Round``) -----------------------

    n: int
    owed: bool
    rules: BatailleTable
    stats: TableStats
    seated: dict[int, str | None]
    hands: dict[int, HandState]
    phase: str
    dealer_card: Card | None
    dealer_war_card: Card | None
    war_queue: list[int | None]
    war_players_dealt: int
    burn_lines: list[int]
    last_settled_seat: int | None
    egalite_war_checked: set[int]
    first_missing: set[int | None]
    war_missing: set[int | None]
    due_line: int
    choice_missing_seats: set[int]
    settlements: list[tuple[int, str, Decimal]]

    # -- the round's own steps ----------------------------------------------------------------------

    def flag(self, check: Check, message: str, **kw: Any) -> None: ...

    def staked_seats(self) -> list[int]: ...

    def warring(self) -> list[int]: ...

    def cards_came(self) -> None: ...

    def defer(
        self, check: Check, message: str, expected: str, decided: Callable[[], bool]
    ) -> None: ...

    def _check_egalite(self, seat: int, name: str, spot: Spot) -> None: ...

    # -- the bataille's (``War``) ---------------------------------------------------------------

    def choice_missing(self, seat: int, what: str, **kw: Any) -> None: ...

    def _tied_seats(self) -> list[int]: ...

    def _check_war_stake(self, seat: int) -> None: ...

    def _check_egalite_war(self, seat: int) -> None: ...

    def _lone_ace(self) -> bool: ...

    def _burns_needed(self, key: int | None) -> int: ...

    def _verify_war_burns(self, key: int | None) -> None: ...

    # -- the settlements' (``Settlement``) ------------------------------------------------------

    def _verify_order(self, seat: int) -> None: ...

    def _due(self, hand: HandState, spot: str) -> Due | None: ...

    def _due_egalite(self, hand: HandState, stake: Decimal, first: str) -> Due | None: ...

    def _due_main(self, hand: HandState, stake: Decimal, first: str) -> Due | None: ...

    def _due_surrender(self, stake: Decimal) -> Due | None: ...

    def _bataille_outcome(self, hand: HandState, spot: str, first: str) -> str | None: ...

    def _due_egalite_war(self, hand: HandState, spot: str, stake: Decimal) -> Due | None: ...

    def _due_bataille(
        self, hand: HandState, spot: str, stake: Decimal, outcome: str
    ) -> Due | None: ...

    def _war_outcome(self, hand: HandState) -> str | None: ...
