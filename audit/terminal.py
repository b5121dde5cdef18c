"""Colour or none on the terminal, as ``--color`` and ``NO_COLOR`` decide.

``auto`` (the default) colours a terminal unless ``NO_COLOR`` is set to
anything but the empty string (no-color.org); ``always`` colours even a pipe
(a CI log that shows colours), and wins over ``NO_COLOR``; ``never`` colours
nothing. Without colour, no escape sequence at all is written: rich alone,
under ``NO_COLOR``, still writes bold and dim.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

COLOR_CHOICES = ("auto", "always", "never")

#: the choice of this run's command line (``--color``)
_choice = "auto"


def choose_color(choice: str) -> None:
    global _choice
    if choice not in COLOR_CHOICES:
        raise ValueError(f"colour choice {choice!r}: one of {', '.join(COLOR_CHOICES)}")
    _choice = choice


def console(**options: Any) -> Console:
    """A rich console (options as rich takes them) that follows the colour choice. It never turns
    ``:name:`` into an emoji: what it prints quotes logs and rulesets, and must quote them as written."""
    from rich.console import Console  # rich is imported only where it draws (start-up time)

    options.setdefault("emoji", False)
    if _choice == "always":
        return Console(force_terminal=True, no_color=False, **options)
    if _choice == "never" or os.environ.get("NO_COLOR"):
        return Console(color_system=None, **options)
    return Console(**options)
