"""La bataille (French arrêté of 2007, Monaco's Sun War Game): the house banks every hand."""

from ...engine.game import Game
from ...resources import rulesets_dir
from .events import SYNTAX
from .round import BatailleRound
from .table import BatailleTable

GAME = Game(
    name="bataille",
    title="bataille",
    round=BatailleRound,
    extension=BatailleTable,
    words=("sun war", "war", "égalité", "egalite"),
    syntax=SYNTAX,
    rulesets=rulesets_dir(),
    odds="audit.games.bataille.odds:ODDS",
    simulator="audit.games.bataille.tables:SIMULATOR",
    house_banked=True,
)
