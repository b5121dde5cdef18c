"""Reading the expectations a DEL fixture carries in its comment lines.

A fixture is an ordinary log. A comment ``# expect: RULE-ID`` says that the
next event line must give a finding of that rule; several may stack. A
comment ``# house: PATH`` (relative to the project) audits the fixture with
that overlay. Every finding the audit gives must be expected, and every
expectation met: the comparison is exact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULE_FIXTURES = ROOT / "fixtures" / "rules"

_EXPECT = re.compile(r"^\s*#\s*expect:\s*([A-Z][A-Z0-9-]*)\s*$")
_HOUSE = re.compile(r"^\s*#\s*house:\s*(\S+)\s*$")


@dataclass
class Fixture:
    path: Path
    expected: list[tuple[str, int]] = field(default_factory=list)
    house: list[Path] = field(default_factory=list)


def read_fixture(path: Path) -> Fixture:
    fx = Fixture(path)
    pending: list[str] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for lineno, text in enumerate(lines, start=1):
        m = _EXPECT.match(text)
        if m:
            pending.append(m.group(1))
            continue
        h = _HOUSE.match(text)
        if h:
            fx.house.append(ROOT / h.group(1))
            continue
        stripped = text.strip()
        if not stripped or (stripped.startswith("#") and not stripped.startswith("#DEL")):
            continue
        fx.expected.extend((rule, lineno) for rule in pending)
        pending = []
    if pending:
        raise ValueError(f"{path}: expectations {pending} are not followed by any line")
    fx.expected.sort()
    return fx


def rule_fixtures() -> list[Path]:
    return sorted(RULE_FIXTURES.rglob("*.del"))
