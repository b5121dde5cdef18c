"""Generate rule-abiding Dealer Event Logs (DEL v1) of every registered game that has a simulator.

Why this exists: vendors of table-management systems test their tables with
logs that follow every rule, and so do we. A clean log must give the auditor
no finding at all, which makes it the natural regression fixture; and with
many tables and thousands of rounds it is the large input we measure the
auditor's speed and memory on.

What it writes: for each table, its whole night (OPEN, dealers, players
coming and going, shoes, rounds, CLOSE) under its ruleset (any shipped ruleset
whose game has a simulator: ``audit rules`` lists them), read from the loaded ruleset with any
house overlay (``params``); tables of every ruleset may share one night. The
cards are real: each shoe holds the ruleset's decks shuffled by the seeded
generator and drawn in order, and every BURN and DEAL logs the card it took,
so stop cards, ties, naturals and the drawing rules come out as the cards
fall.

The ``style`` says how the people behave where the rules leave room: the plain
style of the fixture nights, or the realistic one of the benchmark (heavy-tailed
stakes over the whole posted range, more seat changes, many standing players,
limits that change several times a night); ``--per-table`` writes each table's
night to its own file.

Where things are: the night and its interleaving in ``night``; the tables
(``TableSpec``) and how ``-r`` deals them in ``specs``; how the simulator reads
a ruleset, and finds each game's simulator in the registry, in ``params``; what
a game gives (``GameSimulator``: its table, its faults, its tables of a ruleset,
its shipped nights) in ``game``; the clock, the shoe, money and the parts of a
table every game shares in ``clock``, ``shoe``, ``money`` and ``table``. Each
game's own parts are in its package (``Game.simulator``). With ``--inject``
(``audit simulate``), ``faults`` plans and writes a night broken in known
places, the stream work every game shares being in ``table_faults``.

    audit simulate --night example -o fixtures/nights/example-night.del   # any shipped night, by name
    audit simulate --night mixed -o fixtures/nights/mixed-night.del
    audit simulate --tables 20 --rounds 2000 --seed 7 -o big.del   # the benchmark's tables
    audit simulate --style realistic --tables 24 --rounds 2000 -o casino.del
    audit simulate --style realistic --tables 40 --rounds 15 --per-table DIR

``python -m audit.simulate`` is the same command (``audit/cli.py``'s ``simulate``). Tables
named by ruleset (``-r``, dealt to the rulesets round-robin: ``cli_tables``) make the same
kind of night.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

#: The public names, by the module that holds them. They are imported on first use, so that a
#: game's simulator can import the parts every game shares (``audit.simulate.table``...) without
#: this package importing the games first (``night`` plays them): no import cycle.
_WHERE = {
    **dict.fromkeys(
        (
            "EXAMPLE_SEED",
            "EXAMPLE_START",
            "nights",
            "header_lines",
            "night_lines",
            "played_tables",
            "simulate",
            "table_streams",
            "write_night",
            "write_tables",
        ),
        "night",
    ),
    **dict.fromkeys(
        (
            "PROCEDURES",
            "TableSpec",
            "cli_tables",
            "generated_tables",
            "known_rulesets",
            "realistic_tables",
            "shipped_rulesets",
        ),
        "specs",
    ),
    **dict.fromkeys(("PLAIN", "REALISTIC", "STYLES", "Style"), "style"),
    **dict.fromkeys(("GameSimulator", "Night"), "game"),
    "SimulationError": "params",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
