"""Baccara chemin de fer (Ostende rule): a player holds the bank, and the hand passes between players."""

from ...engine.game import Game
from ...resources import rulesets_dir
from .events import SYNTAX
from .round import CdfRound
from .table import CdfTable

GAME = Game(
    name="chemin-de-fer",
    title="chemin de fer",
    round=CdfRound,
    extension=CdfTable,
    words=("cdf", "baccara", "banco", "ponte", "banker"),
    scopes=("banker", "ponte"),
    syntax=SYNTAX,
    rulesets=rulesets_dir(),
    odds="audit.games.chemin_de_fer.odds:ODDS",
    simulator="audit.games.chemin_de_fer.tables:SIMULATOR",
    house_banked=False,
)
