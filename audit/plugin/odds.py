"""What a game's odds may use (``Game.odds``): see ``audit.plugin``."""

from __future__ import annotations

from ..odds.params import Figure, GameOdds, OddsError, moments, per_bet, setting, shoe

__all__ = ["Figure", "GameOdds", "OddsError", "moments", "per_bet", "setting", "shoe"]
