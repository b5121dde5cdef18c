"""Where the grammar, the shipped rulesets and the rule fixtures live.

They sit at the top of the repository (``grammars/``, ``rulesets/``,
``fixtures/rules/``, the examples ``audit explain`` shows) and are copied into
``audit/_data/`` when the package is built, so that an installed ``audit``
finds them from any directory and a source checkout finds them too.
"""

from __future__ import annotations

import os
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


def cache_dir() -> Path | None:
    """Where the compiled grammar and the rulesets' data (``ruleset_cache``) are kept between runs,
    made if need be; None: nowhere.

    ``AUDIT_CACHE_DIR`` if set (set and empty: no cache), else ``del-audit`` in the user's cache
    folder (``XDG_CACHE_HOME``, or ``~/.cache``). Only the user can write there (mode 0700):
    both are read back with pickle. A folder that cannot be made means no cache."""
    chosen = os.environ.get("AUDIT_CACHE_DIR")
    try:
        if chosen is not None:
            if not chosen:
                return None
            where = Path(chosen)
        else:
            xdg = os.environ.get("XDG_CACHE_HOME")
            where = (Path(xdg) if xdg else Path.home() / ".cache") / "del-audit"
        where.mkdir(mode=0o700, parents=True, exist_ok=True)
    except (OSError, RuntimeError):  # RuntimeError: no home folder to be found
        return None
    return where
