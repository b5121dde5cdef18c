"""The typer options that several commands take, declared once: the rules a command judges by
(``--house``, ``--config``, ``--rulesets``, ``--select``, ``--ignore``) and the statistics' error
rate (``--alpha``). ``audit check``, ``audit follow`` and the rule commands take them from here,
so that a flag, its bounds and its help cannot drift apart between commands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

HouseOpt = Annotated[
    list[Path] | None,
    typer.Option("--house", help="House-rule overlay (YAML); repeat for several rulesets."),
]
ConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help="Configuration file (default: the nearest audit.toml, or pyproject.toml with a tool.audit table).",
    ),
]
RulesetsOpt = Annotated[
    Path | None,
    typer.Option("--rulesets", help="Folder of rulesets to use instead of the shipped ones."),
]
IgnoreOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--ignore",
        help="Leave out these rules: ids, prefixes or categories; comma-separated or repeated.",
    ),
]


def select_option(categories: str = "categories") -> Any:
    """``--select``; ``categories``: how its help names the categories (with an example or not)."""
    return typer.Option(
        "--select",
        help=f"Report only these rules: ids, prefixes (FR-) or {categories}; comma-separated or repeated.",
    )


def alpha_option(help: str) -> Any:
    """``--alpha``, a probability; ``help`` says over what the error rate is held (the night's
    groups at once for ``audit check``, every look too for ``audit follow``)."""
    return typer.Option("--alpha", min=0.0, max=1.0, help=help)
