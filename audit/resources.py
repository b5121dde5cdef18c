"""Where the grammar, the shipped rulesets and the rule fixtures live.

They sit at the top of the repository (``grammars/``, ``rulesets/``,
``fixtures/rules/``, the examples ``audit explain`` shows) and are copied into
``audit/_data/`` when the package is built, so that an installed ``audit``
finds them from any directory and a source checkout finds them too.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    installed = _PACKAGE / "_data" / name
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / name


def grammar_path() -> Path:
    return data_dir("grammars") / "del.lark"


def rulesets_dir() -> Path:
    return data_dir("rulesets")
