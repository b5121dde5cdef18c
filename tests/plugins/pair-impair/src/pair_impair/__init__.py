"""Pair ou impair: a wager on the parity of one card, against the house."""

from pathlib import Path

from audit.plugin import Game, Syntax, TableExtension

from .events import Wager
from .round import PairImpairRound

GAME = Game(
    name="pair-impair",
    title="pair ou impair",
    round=PairImpairRound,
    extension=TableExtension,
    house_banked=True,
    words=("wager",),
    syntax=Syntax(
        models=(Wager,),
        grammar="""
wager: "WAGER" (_WS wager_arg)+
?wager_arg: SEAT_KV | ON_KV | AMOUNT_KV
ON_KV: /on=(pair|impair)(?![^ \\t])/
""",
        fields={"ON_KV": ("on", lambda token: token.split("=", 1)[1])},
        values={"ON_KV": "pair or impair"},
    ),
    rulesets=Path(__file__).resolve().parent / "rulesets",
    fixtures=Path(__file__).resolve().parent / "fixtures",
    odds="pair_impair.odds:ODDS",
    simulator="pair_impair.simulate:SIMULATOR",
)
