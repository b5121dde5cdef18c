"""``audit odds`` output: the contract's JSON (del-audit-odds, version 1) and a text table."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

from . import Odds

if TYPE_CHECKING:
    from rich.console import JustifyMethod

FORMAT, VERSION = "del-audit-odds", 1


def _fraction(value) -> str:
    return f"{value.numerator}/{value.denominator}"


def as_json(odds: Odds) -> dict:
    prefix = odds.party
    return {
        "format": FORMAT,
        "version": VERSION,
        "ruleset": odds.ruleset,
        "decks": odds.decks,
        "bets": [
            {
                "bet": f.bet,
                "strategy": f.strategy,
                f"{prefix}_edge": _fraction(f.edge),
                f"{prefix}_edge_pct": f.pct,
                "sd": f.sd,
            }
            for f in odds.figures
        ],
    }


def render_json(odds: Odds) -> str:
    return json.dumps(as_json(odds), indent=2, ensure_ascii=False) + "\n"


def render_text(odds: Odds) -> str:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    who = odds.title
    house = f", house rules {odds.house}" if odds.house else ""
    table = Table(
        title=escape(f"{odds.ruleset} — {odds.decks} decks{house}: {who} per unit staked"),
        title_justify="left",
    )
    justify: JustifyMethod
    for name, justify in (
        ("bet", "left"),
        ("strategy", "left"),
        (who, "right"),
        ("%", "right"),
        ("sd", "right"),
    ):
        table.add_column(name, justify=justify)
    for f in odds.figures:
        table.add_row(
            f.bet, escape(f.strategy or "—"), _fraction(f.edge), f"{f.pct:.4f}", f"{f.sd:.4f}"
        )
    console = Console(
        record=True, width=120, file=io.StringIO(), highlight=False, soft_wrap=True, emoji=False
    )
    console.print(table)
    return console.export_text()
