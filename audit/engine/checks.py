"""Checks as declarations: a name, the parameters a ruleset gives it, where it applies.

Each check is declared once, as a module-level constant beside the code that
raises it (``PAY_MAIN = declare("pay-main", Odds, "<game>")``), with its
parameters model beside it. A ruleset rule binds a check by its name
(``check: pay-main``); the catalogue a ruleset is validated against, and the
checks each game answers for, are derived from these declarations, as
yamllint builds its registry from its rule modules. The engine flags and reads
settings through the declared object, so a misspelt name fails at import, not
silently at the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict

#: scope of a check the log's format itself answers for (ruleset del-v1)
FORMAT = "format"
#: scope of a check every game's tables answer for (table, shoe, limits)
EVERY_GAME = "every-game"


class Params(BaseModel):
    """A check's parameters, as a ruleset gives them: unknown keys refused, frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @classmethod
    def accepts(cls, key: str) -> bool:
        """Whether the parameters take this key (what a house overlay may set)."""
        return key in cls.model_fields


class NoParams(Params):
    pass


P = TypeVar("P", bound=Params)


@dataclass(frozen=True, eq=False)
class Check(Generic[P]):
    """One check: ``name`` as rulesets write it, its ``params`` model, and its ``scope``:
    FORMAT, EVERY_GAME, or the name of the one game whose code raises it."""

    name: str
    params: type[P]
    scope: str

    def __repr__(self) -> str:
        return f"Check({self.name!r})"


#: check name -> its declaration, filled as the modules that raise checks are imported
DECLARED: dict[str, Check] = {}


def declare(name: str, params: type[P], scope: str) -> Check[P]:
    """Declare a check (once per name): the constant the code flags and reads settings with."""
    if name in DECLARED:
        raise ValueError(f"check {name!r} is declared twice")
    check = Check(name, params, scope)
    DECLARED[name] = check
    return check


def checks_in(scopes: set[str]) -> dict[str, Check]:
    """The declared checks of these scopes, by name."""
    return {name: check for name, check in DECLARED.items() if check.scope in scopes}
