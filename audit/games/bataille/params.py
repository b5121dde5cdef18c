"""What the bataille simulator reads from a loaded ruleset (its overlay applied), by check name."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ...rulesets import LoadedRuleset
from ...simulate.params import enabled, needed


@dataclass(frozen=True)
class Outcome:
    """What becomes of the main stake and the war stake after a bataille: pay, push or collect."""

    main: str
    war: str


@dataclass(frozen=True)
class BatailleParams:
    ruleset: str
    decks: int
    start_burns: int
    #: the burns after a shuffling-dealing machine's restart; None: machines never stop
    resume_burns: int | None
    min_talon: int
    #: seats a table may have at most (None: no limit)
    max_seats: int | None
    #: the maximum is one of these multiples of the minimum (None: free), and the minimum stays
    limit_multiples: tuple[int, ...] | None
    #: the shoe procedures the ruleset (or the house) allows
    procedures: tuple[str, ...]
    #: the cut: a player may decline it (last-by-player) or it is exactly dealer then player
    cut_may_be_refused: bool
    standing_needs_supervisor: bool
    standing_allowed: bool
    egalite_offered: bool
    #: the house's bounds on the table limits (None: no bound)
    house_min_at_least: Decimal | None
    house_max_at_most: Decimal | None
    house_egalite_max_at_most: Decimal | None
    #: a lone player at the table plays two boxes
    lone_player_two_boxes: bool
    #: the maximum bounds a player's stakes on every hand together too (``bet-limits`` per_player)
    player_max: bool
    #: the rounds announced before the end of the night (None: no announcement)
    last_rounds: int | None
    war_burns_before_players: int
    war_burns_before_each_player: int
    war_burns_before_dealer: int
    #: a lone player's Ace at bataille wins at once, with no dealer card
    lone_ace_wins: bool
    main_odds: Decimal
    egalite_odds: Decimal
    #: the égalité re-bet at bataille (None: not offered)
    egalite_war_odds: Decimal | None
    surrender_fraction: Decimal
    surrender_rounding: str
    bataille_odds: Decimal
    higher: Outcome
    equal: Outcome
    lower: Outcome


def bataille_params(ruleset: LoadedRuleset) -> BatailleParams:
    """The parameters of a bataille table of ``ruleset``."""
    resume = enabled(ruleset, "burn-resume")
    seats = enabled(ruleset, "seat-limit")
    multiples = enabled(ruleset, "limits-multiple")
    announced = enabled(ruleset, "end-announced")
    offered = enabled(ruleset, "egalite-offered")
    war = needed(ruleset, "burn-bataille")
    surrender = needed(ruleset, "surrender")
    bataille = needed(ruleset, "pay-bataille")
    egalite_war = enabled(ruleset, "pay-egalite-war")
    house = enabled(ruleset, "house-limits")
    approx = enabled(
        ruleset, "stopcard-talon-approx"
    )  # the full talon, where the minimum allows a little short
    min_talon = needed(ruleset, "stopcard-talon").min_talon
    return BatailleParams(
        ruleset=ruleset.id,
        decks=needed(ruleset, "shoe-decks").decks,
        start_burns=needed(ruleset, "burn-start").count,
        resume_burns=resume.count if resume is not None else None,
        min_talon=max(min_talon, approx.min_talon) if approx is not None else min_talon,
        max_seats=seats.max_seats if seats is not None else None,
        limit_multiples=tuple(multiples.multiples) if multiples is not None else None,
        procedures=tuple(needed(ruleset, "shoe-procedure").allowed),
        cut_may_be_refused=needed(ruleset, "shoe-cut").pattern != "dealer-then-player",
        standing_needs_supervisor=enabled(ruleset, "standing-supervisor") is not None,
        standing_allowed=enabled(ruleset, "standing-forbidden") is None,
        egalite_offered=offered is None or offered.offered,
        house_min_at_least=house.min_at_least if house is not None else None,
        house_max_at_most=house.max_at_most if house is not None else None,
        house_egalite_max_at_most=house.side_max_at_most("egalite") if house is not None else None,
        lone_player_two_boxes=enabled(ruleset, "lone-player-two-boxes") is not None,
        player_max=bool(getattr(enabled(ruleset, "bet-limits"), "per_player", False)),
        last_rounds=announced.last_rounds if announced is not None else None,
        war_burns_before_players=war.before_players,
        war_burns_before_each_player=war.before_each_player,
        war_burns_before_dealer=war.before_dealer,
        lone_ace_wins=enabled(ruleset, "bataille-ace") is not None,
        main_odds=needed(ruleset, "pay-main").odds,
        egalite_odds=needed(ruleset, "pay-egalite").odds,
        egalite_war_odds=egalite_war.odds if egalite_war is not None else None,
        surrender_fraction=surrender.fraction,
        surrender_rounding=surrender.rounding,
        bataille_odds=bataille.odds,
        higher=Outcome(bataille.higher.main, bataille.higher.war),
        equal=Outcome(bataille.equal.main, bataille.equal.war),
        lower=Outcome(bataille.lower.main, bataille.lower.war),
    )
