"""``audit explain RULE`` and the generated rule reference (``audit rules --format markdown``).

``explain_text`` prints one rule as a person needs it: what it requires, how
serious a breach is, its parameters, the sentence of the regulation it
enforces, the reading chosen where the text is silent, and two excerpts of the
rule's fixture (``fixtures/rules/<ruleset>/<RULE-ID>.del``): the lines of a
failing table up to the first event that breaks the rule, and the same stretch
of the passing table beside it.

``rules_markdown`` renders every ruleset as one Markdown page, committed as
``docs/rules.md``; a test fails when that page differs from what the rulesets
give, so the reference never drifts from the YAML.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from .registry import fixtures_of
from .resources import data_dir
from .rule_fixtures import EXPECT as _EXPECT
from .rule_fixtures import OK as _OK
from .rule_fixtures import FixtureError, fixture_lines
from .rulesets import Library, LoadedRuleset, Rule, house_reading

#: how many lines of a table an excerpt shows before the line it is about
CONTEXT_LINES = 8


_HOUSE = re.compile(r"^\s*#\s*house:\s*(\S+)\s*$")
_NO_PASS = re.compile(r"^#\s*no-pass-table:\s*(.+?)\s*$")


class UnknownRule(LookupError):
    """``explain_text`` was asked about a rule no loaded ruleset has; the message suggests near ids."""


def default_fixtures_dir() -> Path:
    """The rule fixtures: shipped in the package (``audit/_data/fixtures/rules``), or the checkout's ``fixtures/rules``."""
    return data_dir("fixtures/rules")


# -- finding a rule --------------------------------------------------------------------


def find_rule(library: Library, rule_id: str) -> tuple[LoadedRuleset, Rule] | None:
    """The ruleset and rule with this id or a former one (an alias; case-insensitive), or None."""
    wanted = rule_id.strip().upper()
    for rs_id in sorted(library.rulesets):
        loaded = library.rulesets[rs_id]
        for rule in loaded.model.rules:
            if rule.id.upper() == wanted:
                return loaded, rule
    for rs_id in sorted(library.rulesets):
        loaded = library.rulesets[rs_id]
        for rule in loaded.model.rules:
            if wanted in (alias.upper() for alias in rule.aliases):
                return loaded, rule
    return None


def _all_ids(library: Library) -> list[str]:
    return sorted(r.id for rs in library.rulesets.values() for r in rs.model.rules)


def unknown_rule_message(library: Library, rule_id: str) -> str:
    """One line for a rule id no ruleset has, with the closest ids if any."""
    ids = _all_ids(library)
    close = difflib.get_close_matches(rule_id.strip().upper(), ids, n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `audit rules` lists them all"
    return f"no rule {rule_id!r}{hint}"


# -- parameters, as YAML-ish text -----------------------------------------------------


def _plain(value: Any) -> Any:
    """Parameters as plain data: models as dicts, Decimal kept (shown exactly)."""
    if isinstance(value, BaseModel):
        return {k: _plain(v) for k, v in value.model_dump(exclude_unset=True).items()}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def rule_params(rule: Rule) -> dict[str, Any]:
    """The rule's parameters as validated (Decimal amounts exact), only the keys the YAML sets."""
    return _plain(rule.settings)


_PLAIN_STR = re.compile(r"^[A-Za-z_][A-Za-z0-9_.:/-]*$")


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, (int, float)):
        return str(value)
    text = str(value)
    if _PLAIN_STR.match(text) and text not in {"true", "false", "null", "yes", "no", "on", "off"}:
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _key(key: Any) -> str:
    return _scalar(key)


def _sort_keys(d: dict[Any, Any]) -> list[Any]:
    return sorted(
        d,
        key=lambda k: (
            not isinstance(k, (int, float)),
            k if isinstance(k, (int, float)) else str(k),
        ),
    )


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def flow(value: Any) -> str:
    """One-line YAML flow form: ``{odds: 1, rounding: down}``, keys sorted."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)}: {flow(value[k])}" for k in _sort_keys(value)) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    return _scalar(value)


def block(value: dict[Any, Any], indent: int = 0) -> list[str]:
    """Block YAML, keys sorted; lists of scalars and small mappings stay on one line."""
    pad = " " * indent
    out: list[str] = []
    for k in _sort_keys(value):
        v = value[k]
        if (
            _is_scalar(v)
            or (isinstance(v, list) and all(_is_scalar(x) for x in v))
            or (
                isinstance(v, dict)
                and all(_is_scalar(x) for x in v.values())
                and len(flow(v)) <= 60
            )
        ):
            out.append(f"{pad}{_key(k)}: {flow(v)}")
        elif isinstance(v, dict):
            out.append(f"{pad}{_key(k)}:")
            out.extend(block(v, indent + 2))
        else:  # a list of mappings or lists
            out.append(f"{pad}{_key(k)}:")
            for item in v:
                if isinstance(item, dict) and item:
                    lines = block(item, indent + 4)
                    out.append(f"{pad}  - {lines[0].lstrip()}")
                    out.extend(lines[1:])
                else:
                    out.append(f"{pad}  - {flow(item)}")
    return out


# -- fixture excerpts -------------------------------------------------------------------


@dataclass
class _Line:
    number: int  # 1-based, in the file
    text: str
    table: str | None
    verb: str | None


@dataclass
class Excerpt:
    path: Path
    table: str | None
    lines: list[_Line]
    marked: int | None  # the line number marked ``>>``


@dataclass
class Examples:
    path: Path
    failing: Excerpt | None
    passing: Excerpt | None
    house: list[str]
    note: str | None  # why an example is missing
    about: list[str]  # the fixture's opening comment: what its tables do


#: at most this many lines of a fixture's opening comment are shown
ABOUT_LINES = 12


def _about(raw: list[str]) -> list[str]:
    """The fixture's first block of ``# `` comments, without the expect/house/no-pass-table markers."""
    out: list[str] = []
    for text in raw:
        stripped = text.strip()
        if stripped.startswith("# "):
            if not (
                _EXPECT.match(text)
                or _OK.match(text)
                or _HOUSE.match(text)
                or _NO_PASS.match(stripped)
            ):
                out.append(stripped[2:].strip())
        elif stripped.startswith("#") and not out:
            continue  # the #DEL, #casino, #source headers before the comment
        else:
            break
    if len(out) > ABOUT_LINES:
        out = out[:ABOUT_LINES] + ["[...]"]
    return out


def _is_event(text: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and (not stripped.startswith("#") or stripped.startswith("#DEL"))


def _parse(path: Path) -> tuple[list[_Line], list[str]]:
    """Every line of the file that fixtures.py counts (events and #DEL headers), and all lines."""
    raw = fixture_lines(path)  # a preamble in place: the log as audited
    lines: list[_Line] = []
    for number, text in enumerate(raw, start=1):
        if not _is_event(text):
            continue
        fields = text.split()
        table = verb = None
        if len(fields) >= 3 and fields[0][:1].isdigit():
            table, verb = fields[1], fields[2].upper()
        lines.append(_Line(number, text, table, verb))
    return lines, raw


def _first_expected(raw: list[str], rule_id: str, mark: re.Pattern = _EXPECT) -> int | None:
    """The line number of the event that the first ``# expect: RULE-ID`` (or ``mark``) points at."""
    pending = False
    for number, text in enumerate(raw, start=1):
        m = mark.match(text)
        if m:
            pending = pending or m.group(1) == rule_id
            continue
        if _HOUSE.match(text) or not _is_event(text):
            continue
        if pending:
            return number
    return None


def _excerpt(path: Path, table: str | None, lines: list[_Line], target: _Line) -> Excerpt:
    if table is None:
        return Excerpt(path, None, [target], target.number)
    own = [ln for ln in lines if ln.table == table]
    at = next(i for i, ln in enumerate(own) if ln.number == target.number)
    window = own[max(0, at - CONTEXT_LINES) : at + 1]
    opening = next((ln for ln in own[: at + 1] if ln.verb == "OPEN"), None)
    if opening is not None and opening not in window:
        window = [opening] + window
    return Excerpt(path, table, window, target.number)


def _passing_table(failing: str | None, tables: list[str]) -> str | None:
    passing = [t for t in tables if "PASS" in t]
    if not passing:
        return None
    if failing and "FAIL" in failing:
        twin = failing.replace("FAIL", "PASS")
        if twin in passing:
            return twin
        stem = failing.split("FAIL")[0] + "PASS"
        if stem in passing:
            return stem
    return passing[0]


def _signature(line: _Line) -> tuple[str, ...]:
    """What a line does, without its amounts, cards and seat numbers: ``DEAL seat=2 AH`` is (DEAL, seat)."""
    if line.table is None:
        return (line.text.strip(),)
    words: list[str] = [line.verb or ""]
    for arg in line.text.split()[3:]:
        if "=" in arg:
            words.append(arg.split("=", 1)[0] + "=")
        elif arg.isalpha() and arg.islower():
            words.append(arg)
    return tuple(words)


_GAP = -1


def _pair(x: tuple[str, ...], y: tuple[str, ...]) -> int:
    """How well two lines correspond: the same action 2, the same verb 1, else -1."""
    if x == y:
        return 2
    return 1 if x[0] == y[0] else -1


def _counterpart(fail_own: list[_Line], pass_own: list[_Line], index: int) -> _Line:
    """The line of the passing table at the point of play where the failing table broke the rule.

    The failing table's lines up to the breach are aligned with the start of the passing
    table on what each line does (a global alignment: the same action +2, the same verb +1,
    otherwise -1, a gap -1, the passing table's remainder free). If the breach lines up
    with a passing line of the same verb (a COLLECT for a COLLECT) better than as a gap,
    that line is the counterpart; otherwise (a burn too many, a card dealt for nothing) it
    is the passing line that comes next after the lines before the breach: what the
    passing table does instead.
    """
    a = [_signature(ln) for ln in fail_own[: index + 1]]
    b = [_signature(ln) for ln in pass_own]
    m = len(b)
    before = row = [_GAP * j for j in range(m + 1)]
    for i, sig in enumerate(a, start=1):
        new = [_GAP * i] * (m + 1)
        for j in range(1, m + 1):
            diag = row[j - 1] + _pair(sig, b[j - 1])
            up = row[j] + _GAP
            left = new[j - 1] + _GAP
            new[j] = diag if diag >= up and diag >= left else (up if up >= left else left)
        before, row = row, new
    end = row.index(max(row))  # the shortest passing prefix that aligns best, breach included
    if end >= 1:
        paired = before[end - 1] + _pair(a[-1], b[end - 1])
        if a[-1][0] == b[end - 1][0] and row[end] == paired and paired > before[end] + _GAP:
            return pass_own[end - 1]
    end = before.index(max(before))  # the lines before the breach only
    return pass_own[min(end, m - 1)]


def fixture_examples(fixtures_dir: Path, ruleset_id: str, rule_id: str) -> Examples | None:
    """The failing and passing excerpts of a rule's fixture; None when the rule has no fixture file."""
    path = fixtures_dir / ruleset_id / f"{rule_id}.del"
    if not path.is_file():
        return None
    try:
        lines, raw = _parse(path)
    except FixtureError as err:
        return Examples(path, None, None, [], str(err), [])
    house = [m.group(1) for m in (_HOUSE.match(t) for t in raw) if m]
    about = _about(raw)
    number = _first_expected(raw, rule_id)
    if number is None:
        return Examples(
            path, None, None, house, f"the fixture has no `# expect: {rule_id}` line", about
        )
    target = next(ln for ln in lines if ln.number == number)
    failing = _excerpt(path, target.table, lines, target)

    tables: list[str] = []
    for ln in lines:
        if ln.table and ln.verb == "OPEN" and ln.table not in tables:
            tables.append(ln.table)
    pass_table = _passing_table(target.table, tables)
    if pass_table is None:
        reason = next((m.group(1).rstrip(".") for m in (_NO_PASS.match(t) for t in raw) if m), None)
        note = (
            f"the fixture has no passing table: {reason}"
            if reason
            else "the fixture has no passing table"
        )
        return Examples(path, failing, None, house, note, about)
    ok = _first_expected(raw, rule_id, _OK)  # a line marked `# ok: RULE-ID` shows the pass
    marked = next((ln for ln in lines if ln.number == ok), None)
    if marked is not None and marked.table:
        pass_table, match = marked.table, marked
    else:
        fail_own = [ln for ln in lines if ln.table == target.table] if target.table else [target]
        index = next(i for i, ln in enumerate(fail_own) if ln.number == target.number)
        pass_own = [ln for ln in lines if ln.table == pass_table]
        match = _counterpart(fail_own, pass_own, index)
    passing = _excerpt(path, pass_table, lines, match)
    if match is not marked:
        passing.marked = None  # a counterpart found by likeness, not a line marked ok
    return Examples(path, failing, passing, house, None, about)


def _render_lines(ex: Excerpt, all_lines: list[_Line]) -> list[str]:
    """The excerpt's lines, ``...`` where lines of the same table were left out."""
    own = (
        [ln.number for ln in all_lines if ln.table == ex.table]
        if ex.table
        else [ln.number for ln in ex.lines]
    )
    position = {n: i for i, n in enumerate(own)}
    out: list[str] = []
    prev: int | None = None
    for ln in ex.lines:
        if prev is not None and position.get(ln.number, 0) != position.get(prev, -2) + 1:
            out.append("           ...")
        mark = ">>" if ln.number == ex.marked else "  "
        out.append(f"  {mark}{ln.number:>5}  {ln.text.rstrip()}")
        prev = ln.number
    return out


# -- explain ----------------------------------------------------------------------------


def _display(path: Path, fixtures_dir: Path) -> str:
    root = fixtures_dir.resolve().parent.parent
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path)


def explain_text(library: Library, rule_id: str, fixtures_dir: Path | None = None) -> str:
    """A rule explained in plain text, with a failing and a passing excerpt of its fixture.

    Raises ``UnknownRule`` (a ``LookupError``) when no loaded ruleset has the rule.
    """
    found = find_rule(library, rule_id)
    if found is None:
        raise UnknownRule(unknown_rule_message(library, rule_id))
    loaded, rule = found
    m = loaded.model
    out: list[str] = []
    out.append(rule.id)
    asked = rule_id.strip().upper()
    if asked != rule.id.upper():
        former = next(a for a in rule.aliases if a.upper() == asked)
        out.append(f"  renamed: {former} is now {rule.id}; findings carry {rule.id}")
    elif rule.aliases:
        out.append(f"  formerly {', '.join(rule.aliases)}")
    out.append(f"  a rule of {m.id}: {m.title}")
    if loaded.overlay is not None:
        out.append(
            f"  with the house overlay {loaded.overlay.model.overlay}: {loaded.overlay.model.title}"
        )
    out.append(f"  category  {rule.category}")
    out.append(f"  severity  {rule.severity}")
    out.append(
        "  state     "
        + ("on" if rule.enabled else "off (enabled: false; a house overlay can turn it on)")
    )
    out.append(f"  check     {rule.check}")
    out.append(f"  authority {rule.overlay_may()}")
    out.append("")
    out.append(rule.message)
    out.append("")
    params = rule_params(rule)
    if params:
        out.append("Parameters")
        out.extend("  " + line for line in block(params))
    else:
        out.append("Parameters: none")
    out.append("")
    out.append(f"Cited text ({rule.citation.article})")
    out.append(f"  {rule.citation.text}")
    out.append(f"  from: {m.regulation.name}")
    if rule.reading:
        out.append("")
        out.append("Reading (where the text is silent or ambiguous)")
        out.append(f"  {rule.reading}")
    house = house_reading(loaded, rule)
    if house is not None:
        out.append("")
        out.append(
            f"Reading of the house overlay {house[0]} (the house's words, beside the ruleset's; "
            "they change nothing the audit checks)"
        )
        out.append(f"  {house[1]}")
    out.append("")
    out.extend(_examples_text(loaded, rule, fixtures_dir))
    return "\n".join(out) + "\n"


def _examples_text(loaded: LoadedRuleset, rule: Rule, fixtures_dir: Path | None) -> list[str]:
    fixtures_dir = fixtures_dir or fixtures_of(loaded.game) or default_fixtures_dir()
    if not fixtures_dir.is_dir():
        return [
            f"Examples: the rule fixtures are not here ({fixtures_dir}); they ship with the source repository."
        ]
    ex = fixture_examples(fixtures_dir, loaded.id, rule.id)
    if ex is None:
        return [f"Examples: no fixture {loaded.id}/{rule.id}.del in {fixtures_dir}."]
    shown = _display(ex.path, fixtures_dir)
    lines, _ = _parse(ex.path)
    out: list[str] = []
    if ex.about:
        out.append(f"The fixture ({shown})")
        out.extend(f"  {line}" for line in ex.about)
        out.append("")
    if ex.house:
        out.append(f"It is audited with the house overlay {', '.join(ex.house)}.")
        out.append("")
    if ex.failing is None:
        out.append(f"A log that breaks it: {ex.note} ({shown}).")
        return out
    where = f"table {ex.failing.table}" if ex.failing.table else "the file itself"
    out.append(f"A log that breaks it ({shown}, {where}; the finding is on the line marked >>)")
    out.extend(_render_lines(ex.failing, lines))
    out.append("")
    if ex.passing is None:
        out.append(f"A log that keeps it: {ex.note}.")
    else:
        out.append(
            f"A log that keeps it ({shown}, table {ex.passing.table}, the same stretch of play)"
        )
        out.extend(_render_lines(ex.passing, lines))
    return out


# -- the Markdown reference -------------------------------------------------------------------
