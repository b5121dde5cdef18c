"""What the simulator reads from a loaded ruleset (its overlay applied): the one place it names checks.

The simulator deals, burns, pays and draws as the regulation says, and the
regulation lives in ``rulesets/``: so every number the games' simulators use
(decks, burns, talon, odds, limits, the drawing tables) and every rule id the
fault injection expects comes from here, read from the rule bound to a check.
A parameter the simulator cannot do without (decks, burns, talon...) is read
from its rule even when a house turned the rule off (the house stops checking
it, the game keeps it); a behaviour that exists only with its rule (a machine's
restart, the announced end, the lone Ace) follows the rule's being on.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Any

from ..registry import declared
from ..rulesets import Library, LoadedRuleset, Rule

#: A ruleset's ``game`` for each game the simulator plays.
BATAILLE = "bataille"
CHEMIN_DE_FER = "chemin-de-fer"
GAMES = (BATAILLE, CHEMIN_DE_FER)


class SimulationError(ValueError):
    """A ruleset the simulator cannot play (a parameter it needs is missing)."""


def _settings(ruleset: LoadedRuleset, check: str) -> Any:
    """The parameters of the rule bound to ``check``, on or off; a ``SimulationError`` if none is."""
    settings = ruleset.settings(declared(check))
    if settings is not None:
        return settings
    for rule in ruleset.model.rules:
        if rule.check == check:
            return rule.settings
    raise SimulationError(
        f"ruleset {ruleset.id} has no rule with check {check!r}: the simulator needs it"
    )


def _on(ruleset: LoadedRuleset, check: str) -> Any:
    """The parameters of the rule bound to ``check`` if it is on, else None."""
    return ruleset.settings(declared(check))


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
    resume = _on(ruleset, "burn-resume")
    seats = _on(ruleset, "seat-limit")
    multiples = _on(ruleset, "limits-multiple")
    announced = _on(ruleset, "end-announced")
    offered = _on(ruleset, "egalite-offered")
    war = _settings(ruleset, "burn-bataille")
    surrender = _settings(ruleset, "surrender")
    bataille = _settings(ruleset, "pay-bataille")
    egalite_war = _on(ruleset, "pay-egalite-war")
    house = _on(ruleset, "house-limits")
    approx = _on(
        ruleset, "stopcard-talon-approx"
    )  # the full talon, where the minimum allows a little short
    min_talon = _settings(ruleset, "stopcard-talon").min_talon
    return BatailleParams(
        ruleset=ruleset.id,
        decks=_settings(ruleset, "shoe-decks").decks,
        start_burns=_settings(ruleset, "burn-start").count,
        resume_burns=resume.count if resume is not None else None,
        min_talon=max(min_talon, approx.min_talon) if approx is not None else min_talon,
        max_seats=seats.max_seats if seats is not None else None,
        limit_multiples=tuple(multiples.multiples) if multiples is not None else None,
        procedures=tuple(_settings(ruleset, "shoe-procedure").allowed),
        cut_may_be_refused=_settings(ruleset, "shoe-cut").pattern != "dealer-then-player",
        standing_needs_supervisor=_on(ruleset, "standing-supervisor") is not None,
        standing_allowed=_on(ruleset, "standing-forbidden") is None,
        egalite_offered=offered is None or offered.offered,
        house_min_at_least=house.min_at_least if house is not None else None,
        house_max_at_most=house.max_at_most if house is not None else None,
        house_egalite_max_at_most=house.egalite_max_at_most if house is not None else None,
        lone_player_two_boxes=_on(ruleset, "lone-player-two-boxes") is not None,
        last_rounds=announced.last_rounds if announced is not None else None,
        war_burns_before_players=war.before_players,
        war_burns_before_each_player=war.before_each_player,
        war_burns_before_dealer=war.before_dealer,
        lone_ace_wins=_on(ruleset, "bataille-ace") is not None,
        main_odds=_settings(ruleset, "pay-main").odds,
        egalite_odds=_settings(ruleset, "pay-egalite").odds,
        egalite_war_odds=egalite_war.odds if egalite_war is not None else None,
        surrender_fraction=surrender.fraction,
        surrender_rounding=surrender.rounding,
        bataille_odds=bataille.odds,
        higher=Outcome(bataille.higher.main, bataille.higher.war),
        equal=Outcome(bataille.equal.main, bataille.equal.war),
        lower=Outcome(bataille.lower.main, bataille.lower.war),
    )


@dataclass(frozen=True)
class CdfParams:
    ruleset: str
    decks: int
    min_players: int
    #: a new shoe once fewer cards than this remain
    min_cards: int
    #: the banker's drawing table: a row of 11 cells (T, R, O) per point, by the ponte's third card 0-9 then NON
    banker_rows: dict[int, str]
    banker_always_draws: tuple[int, ...]
    banker_always_stands: tuple[int, ...]
    ponte_draws_on: tuple[int, ...]
    ponte_stands_on: tuple[int, ...]
    ponte_chooses_on: tuple[int, ...]
    #: the ponte's points on which the employee's advice is always "non"
    advice_non_on: tuple[int, ...]
    #: auction brackets: (bids below this amount or None, rise by this step)
    bid_steps: tuple[tuple[Decimal | None, Decimal], ...]
    #: the share of the bank the caller of "banco avec la table" stakes himself
    table_share: Decimal
    max_associates: int


def cdf_params(ruleset: LoadedRuleset) -> CdfParams:
    """The parameters of a chemin de fer table of ``ruleset``."""
    banker = _settings(ruleset, "cdf-draw-banker")
    ponte = _settings(ruleset, "cdf-draw-ponte")
    return CdfParams(
        ruleset=ruleset.id,
        decks=_settings(ruleset, "shoe-decks").decks,
        min_players=_settings(ruleset, "cdf-min-players").min_players,
        min_cards=_settings(ruleset, "cdf-cards-left").min_cards,
        banker_rows={point: "".join(cells) for point, cells in banker.rows.items()},
        banker_always_draws=tuple(banker.always_draw),
        banker_always_stands=tuple(banker.always_stand),
        ponte_draws_on=tuple(ponte.draw_on),
        ponte_stands_on=tuple(ponte.stand_on),
        ponte_chooses_on=tuple(ponte.choice_on),
        advice_non_on=tuple(_settings(ruleset, "cdf-advice").points),
        bid_steps=tuple((s.below, s.step) for s in _settings(ruleset, "cdf-auction").steps),
        table_share=_settings(ruleset, "cdf-stakes-bank").table_share,
        max_associates=_settings(ruleset, "cdf-associate").max_associates,
    )


# -- the rules fault injection breaks ---------------------------------------------------


@dataclass(frozen=True)
class FaultRules:
    """The rules (on, else None) that the injected faults break at a table, with their ids and categories."""

    syntax: Rule | None
    time_order: Rule | None
    no_more_bets: Rule | None
    seat_range: Rule | None
    # bataille
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
    # chemin de fer
    late_stake: Rule | None = None
    stakes_bank: Rule | None = None
    deal_order: Rule | None = None
    settle: Rule | None = None
    cdf_pay_order: Rule | None = None
    cut_order: Rule | None = None
    point: Rule | None = None


#: FaultRules field -> the check its rule is bound to (the format's fields read the format's ruleset).
_FAULT_CHECKS = {
    "no_more_bets": "no-more-bets",
    "seat_range": "seat-range",
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
    "late_stake": "cdf-late-stake",
    "stakes_bank": "cdf-stakes-bank",
    "deal_order": "cdf-deal-order",
    "settle": "cdf-settle",
    "cdf_pay_order": "cdf-pay-order",
    "cut_order": "cdf-cut-order",
    "point": "cdf-point",
}


def fault_rules(library: Library, ruleset: LoadedRuleset) -> FaultRules:
    """The rules a fault at a table of ``ruleset`` can break (the format's from the library's format rules)."""
    fmt = library.format_rules
    return FaultRules(
        syntax=fmt.rule(declared("syntax")),
        time_order=fmt.rule(declared("time-order")),
        **{name: ruleset.rule(declared(check)) for name, check in _FAULT_CHECKS.items()},
    )


@lru_cache(maxsize=1)
def default_library() -> Library:
    """The shipped rulesets, no overlay: what the simulator plays unless told otherwise (loaded once)."""
    return Library.load()


def playable(library: Library, ruleset_id: str) -> LoadedRuleset | None:
    """The ruleset ``ruleset_id`` of ``library`` if the simulator plays its game, else None."""
    loaded = library.get(ruleset_id)
    return loaded if loaded is not None and loaded.game in GAMES else None
