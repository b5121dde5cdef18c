"""The house's exact edge on each wager, from the ruleset's payouts and the shoe."""

from __future__ import annotations

from fractions import Fraction

from audit.plugin.odds import Figure, GameOdds, moments, setting, shoe

from .cards import VALUE


def figures(ruleset, decks: int) -> list[Figure]:
    payouts = setting(ruleset, "pi-payout")
    if payouts is None:
        return []
    counts = shoe(decks, VALUE)
    total = sum(counts.values())
    even = Fraction(sum(n for value, n in counts.items() if value % 2 == 0), total)
    rows = []
    for bet, wins in (("pair", even), ("impair", 1 - even)):
        odds = Fraction(getattr(payouts, bet))
        edge, square = moments({Fraction(1): 1 - wins, -odds: wins})
        rows.append(Figure(bet, None, edge, square))
    return rows


ODDS = GameOdds(party="house", title="house edge", figures=figures, none="no pi-payout rule")
