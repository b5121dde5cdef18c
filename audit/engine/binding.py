"""What the engine needs of a ruleset: the rules it binds to checks. The engine declares it here
and ``audit.rulesets`` satisfies it, so that the engine never imports the rulesets, not even for
its type hints."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..findings import Category, Severity


class BoundRule(Protocol):
    """A rule as a finding names it: its id, category, severity, citation, and its parameters."""

    @property
    def id(self) -> str: ...

    @property
    def category(self) -> Category: ...

    @property
    def severity(self) -> Severity: ...

    @property
    def settings(self) -> Any: ...

    @property
    def citation_text(self) -> str: ...


class Binding(Protocol):
    """A loaded ruleset as the engine reads it: its id, and its enabled rules by check name."""

    @property
    def id(self) -> str: ...

    @property
    def by_check(self) -> Mapping[str, BoundRule]: ...

    def __hash__(self) -> int: ...
