"""Reading the expectations a DEL fixture carries in its comment lines.

A fixture is an ordinary log, once its ``# preamble: NAME`` line (if any) is
replaced by the lines of ``NAME.preamble`` beside it (``audit/rule_fixtures.py``).
A comment ``# expect: RULE-ID`` says that the next event line must give a
finding of that rule; ``# ok: RULE-ID`` that it must not; several may stack. A
comment ``# house: PATH`` (relative to the project) audits the fixture with
that overlay. Every finding the audit gives must be expected, and every
expectation met: the comparison is exact. Line numbers are those of the log
as audited, preambles in place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from audit.rule_fixtures import EXPECT, OK, fixture_lines

ROOT = Path(__file__).resolve().parent.parent
RULE_FIXTURES = ROOT / "fixtures" / "rules"

_HOUSE = re.compile(r"^\s*#\s*house:\s*(\S+)\s*$")


@dataclass
class Fixture:
    path: Path
    expected: list[tuple[str, int]] = field(default_factory=list)
    #: (rule, line) that must give no finding (``# ok: RULE-ID``)
    ok: list[tuple[str, int]] = field(default_factory=list)
    house: list[Path] = field(default_factory=list)


def read_fixture(path: Path) -> Fixture:
    fx = Fixture(path)
    pending: list[str] = []
    pending_ok: list[str] = []
    lines = fixture_lines(path)
    for lineno, text in enumerate(lines, start=1):
        m = EXPECT.match(text)
        if m:
            pending.append(m.group(1))
            continue
        o = OK.match(text)
        if o:
            pending_ok.append(o.group(1))
            continue
        h = _HOUSE.match(text)
        if h:
            fx.house.append(ROOT / h.group(1))
            continue
        stripped = text.strip()
        if not stripped or (stripped.startswith("#") and not stripped.startswith("#DEL")):
            continue
        fx.expected.extend((rule, lineno) for rule in pending)
        fx.ok.extend((rule, lineno) for rule in pending_ok)
        both = set(pending) & set(pending_ok)
        if both:
            raise ValueError(f"{path}, line {lineno}: {sorted(both)} both expected and ok")
        pending, pending_ok = [], []
    if pending or pending_ok:
        raise ValueError(f"{path}: marks {pending + pending_ok} are not followed by any line")
    fx.expected.sort()
    return fx


def rule_fixtures() -> list[Path]:
    return sorted(RULE_FIXTURES.rglob("*.del"))


def copy_rulesets(folder: Path) -> Path:
    """The shipped rulesets copied byte for byte into ``folder`` (made), for ``--rulesets``."""
    folder.mkdir(parents=True, exist_ok=True)
    for shipped in (ROOT / "rulesets").glob("*.yaml"):
        (folder / shipped.name).write_bytes(shipped.read_bytes())
    return folder


def own_rulesets(folder: Path, changes: dict[str, dict]) -> Path:
    """A copy of the shipped rulesets in ``folder`` with some rules changed (rule id -> the keys to
    set; ``params`` are merged into the rule's): a regulation of one's own, for ``--rulesets``.
    A house overlay could not make these changes: it may not loosen or change what a
    regulation fixes."""
    import yaml

    folder.mkdir(parents=True, exist_ok=True)
    left = set(changes)
    for path in sorted((ROOT / "rulesets").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for rule in data["rules"]:
            change = changes.get(rule["id"])
            if change is None:
                continue
            left.discard(rule["id"])
            for key, value in change.items():
                rule[key] = {**rule.get("params", {}), **value} if key == "params" else value
        (folder / path.name).write_text(
            yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8"
        )
    if left:
        raise ValueError(f"no such rules in the shipped rulesets: {sorted(left)}")
    return folder
