"""What the cards of a coup (``Drawing``) need of the round they are part of.

``Drawing`` is a mixin of ``CdfRound``: its methods take ``self`` as this protocol, so the type
checker reads it against the round's state, and checks that ``CdfRound`` has all of it wherever
one of its methods is called on a round. Read by the type checker only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.checks import Check
    from ...values import Card
    from . import events as own
    from .table import CdfTable


class RoundState(Protocol):
    """A ``CdfRound`` as its cards see it: the state they read and set, and the steps they call."""

    # -- the coup's state (set by ``CdfRound.__init__`` and ``Round``) ------------------------------

    owed: bool
    rules: CdfTable
    started: bool
    ponte_mode: str | None
    cards: dict[str, list[Card]]
    dealt: int
    abat: dict[str, bool]
    calls: dict[str, bool | None]
    tableau: bool
    burned_third: dict[str, bool]
    banker_base: int
    follower_faux: bool
    naturals_due: bool
    thirds_due: bool

    # -- the coup's own steps -------------------------------------------------------------------

    def flag(self, check: Check, message: str, **kw: Any) -> None: ...

    def once(self, key: str) -> bool: ...

    def third_came(self) -> None: ...

    def _first_card(self) -> None: ...

    def _naturals_due(self) -> None: ...

    # -- the cards' (``Drawing``) ---------------------------------------------------------------

    def hand_points(self, side: str) -> int: ...

    def _natural_not_shown(self, side: str) -> None: ...

    def _may_call(self) -> bool: ...

    def third_owed(self, side: str) -> bool: ...

    def _third_check(self) -> None: ...

    def _ponte_call(self, e: own.Call) -> None: ...

    def _banker_call(self, e: own.Call) -> None: ...

    def _ponte_third(self) -> int | None: ...

    def banker_should(self) -> str | None: ...

    def _cell(self, b: int, third: int | None) -> str | None: ...
