"""The text of a rule fixture (``fixtures/rules/<ruleset>/<RULE-ID>.del``) as it is audited.

A fixture may take the lines its tables share from a preamble: a comment line
``# preamble: NAME`` stands for the lines of ``NAME.preamble`` in the fixture's
folder (a file the auditor never walks, as it is no ``.del``), put in its place.
The fixture test, ``audit explain`` and ``audit trace`` read a fixture through
``fixture_lines``, so they see the same log, with the same line numbers.
"""

from __future__ import annotations

import re
from pathlib import Path

#: ``# preamble: NAME``: the lines of NAME.preamble, beside the fixture, go here
PREAMBLE = re.compile(r"^#\s*preamble:\s*([A-Za-z0-9][A-Za-z0-9_.-]*)\s*$")
#: ``# expect: RULE``: the next event line must give a finding of RULE
EXPECT = re.compile(r"^\s*#\s*expect:\s*([A-Z][A-Z0-9-]*)\s*$")
#: ``# ok: RULE``: the next event line must not give a finding of RULE
OK = re.compile(r"^\s*#\s*ok:\s*([A-Z][A-Z0-9-]*)\s*$")
#: the suffix of a preamble file
SUFFIX = ".preamble"


class FixtureError(ValueError):
    """A fixture that names a preamble that is not there, or a preamble that names another."""


def uses_preamble(path: Path) -> bool:
    return any(PREAMBLE.match(line) for line in path.read_text(encoding="utf-8").splitlines())


def fixture_lines(path: Path) -> list[str]:
    """The fixture's lines with each ``# preamble: NAME`` replaced by the lines of its preamble."""
    out: list[str] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        m = PREAMBLE.match(line)
        if m is None:
            out.append(line)
            continue
        preamble = path.parent / f"{m.group(1)}{SUFFIX}"
        if not preamble.is_file():
            raise FixtureError(f"{path}, line {number}: no preamble {preamble.name} beside it")
        lines = preamble.read_text(encoding="utf-8").splitlines()
        if any(PREAMBLE.match(x) for x in lines):
            raise FixtureError(f"{preamble}: a preamble does not take another preamble")
        out.extend(lines)
    return out


def fixture_text(path: Path) -> str:
    """The fixture as the auditor reads it (preambles in place), one LF after each line."""
    return "".join(f"{line}\n" for line in fixture_lines(path))
