"""The traceability matrix: each regulation's sentences, the rules that check them, their fixtures.

The auditor is worth what its fidelity to the texts is worth. ``rulesets/sentences/`` indexes,
by hand and sentence by sentence, the text each ruleset encodes: every sentence has a stable id
and either the rules that check it or the reason no log can show it broken. This module joins
that index with the rulesets and the rule fixtures (``fixtures/rules/<ruleset>/<RULE>.del``:
tables named ...FAIL... break the rule, tables named ...PASS... keep it) and writes
``docs/traceability.md``, so that what is covered, and what is not, is on the page and tested.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .escape import for_terminal
from .registry import fixtures_of
from .resources import rulesets_dir
from .rule_fixtures import EXPECT, FixtureError, fixture_lines
from .rulesets import Library, Rule, RulesetError, _read, _validate, shipped_folders

#: a fixture that cannot hold a passing table says why
_NO_PASS = re.compile(r"^#\s*no-pass-table:\s*(\S.*)$")
#: the table of an event line (TIMESTAMP TABLE VERB ...)
_EVENT = re.compile(r"^\s*\S+\s+([A-Za-z0-9][A-Za-z0-9_.-]{0,31})\s+([A-Z]+)\b")


class TraceError(Exception):
    """The index cannot be read or names what does not exist; the message says where."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Sentence(_Strict):
    #: stable id: the text's prefix, its article, the sentence's number (e.g. FR-55-19.s3)
    id: str = Field(pattern=r"^[A-Z]+(-[A-Za-z0-9]+)*\.s[1-9][0-9]*$")
    article: str = Field(min_length=1)
    #: the sentence as the text says it
    text: str = Field(min_length=1)
    #: the source's own letters where ``text`` corrects a scan's errors
    source_text: str | None = None
    #: the rules that check the sentence (all or part of it)
    rules: list[str] = Field(default_factory=list)
    #: False when no log can show the sentence broken; ``reason`` says why
    checkable: bool = True
    reason: str | None = None
    #: what a log can show broken that no rule checks yet
    gap: str | None = None
    note: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Sentence:
        if not self.checkable:
            if self.rules or self.gap:
                raise ValueError("a sentence no log can show broken has no rules and no gap")
            if not self.reason:
                raise ValueError("say why no log can show it broken (reason)")
        else:
            if self.reason:
                raise ValueError("reason is for checkable: false; use note")
            if not self.rules and not self.gap:
                raise ValueError("a checkable sentence with no rule says what is missing (gap)")
        if len(set(self.rules)) != len(self.rules):
            raise ValueError("a rule is listed twice")
        return self

    @property
    def covered(self) -> bool:
        return self.checkable and bool(self.rules)


class RegulationIndex(_Strict):
    ruleset: str = Field(min_length=1)
    title: str = Field(min_length=1)
    #: the texts, as the ruleset's regulation.source names them
    sources: list[str] = Field(min_length=1)
    sentences: list[Sentence] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> RegulationIndex:
        seen: set[str] = set()
        for s in self.sentences:
            if s.id in seen:
                raise ValueError(f"sentence {s.id} appears twice")
            seen.add(s.id)
        return self


@dataclass
class Fixture:
    """What one rule fixture holds: the tables that break its rule and those that keep it."""

    path: Path
    #: where each expected finding falls: a table, or ``line N`` for a line of no table (a header)
    failing: dict[str, list[str]] = field(default_factory=dict)
    passing: list[str] = field(default_factory=list)
    #: why the fixture has no passing table, when it says so
    no_pass: str | None = None


@dataclass
class Matrix:
    indexes: list[RegulationIndex]
    #: rule id -> (ruleset id, rule), every rule of every ruleset
    rules: dict[str, tuple[str, Rule]]
    #: rule id -> its fixture, when it has one
    fixtures: dict[str, Fixture]

    def failing(self, rule: str) -> list[str]:
        fx = self.fixtures.get(rule)
        return fx.failing.get(rule, []) if fx else []

    def passing(self, rule: str) -> list[str]:
        fx = self.fixtures.get(rule)
        return fx.passing if fx else []

    def cited(self) -> set[str]:
        return {r for ix in self.indexes for s in ix.sentences for r in s.rules}

    def uncited(self) -> list[str]:
        return sorted(set(self.rules) - self.cited())

    def uncovered(self) -> list[str]:
        return [s.id for ix in self.indexes for s in ix.sentences if s.checkable and not s.rules]

    def partial(self) -> list[str]:
        return [s.id for ix in self.indexes for s in ix.sentences if s.covered and s.gap]


def sentences_dir() -> Path:
    return rulesets_dir() / "sentences"


def fixtures_dir() -> Path:
    """``fixtures/rules`` of a source checkout (an installed package ships no fixtures)."""
    return rulesets_dir().parent / "fixtures" / "rules"


def load_index(directory: Path) -> list[RegulationIndex]:
    if not directory.is_dir():
        raise TraceError(f"{directory}: sentence index folder not found")
    out = []
    for path in sorted(directory.glob("*.yaml")):
        try:
            data, node, _ = _read(path)
            index = _validate(RegulationIndex, data, node, path)
        except RulesetError as err:
            raise TraceError(str(err)) from None
        if index.ruleset != path.stem:
            raise TraceError(
                f"{path}: ruleset: {index.ruleset!r} does not match the file name {path.stem!r}"
            )
        out.append(index)
    return out


def read_fixture(path: Path) -> Fixture:
    fx = Fixture(path)
    pending: list[str] = []
    opened: list[str] = []
    for lineno, text in enumerate(fixture_lines(path), start=1):
        m = EXPECT.match(text)
        if m:
            pending.append(m.group(1))
            continue
        w = _NO_PASS.match(text)
        if w:
            fx.no_pass = w.group(1).strip()
        stripped = text.strip()
        if not stripped or (stripped.startswith("#") and not stripped.startswith("#DEL")):
            continue
        e = _EVENT.match(text)
        if e and e.group(2) == "OPEN" and e.group(1) not in opened:
            opened.append(e.group(1))
        where = e.group(1) if e and e.group(1) in opened else f"line {lineno}"
        for rule in pending:
            places = fx.failing.setdefault(rule, [])
            if where not in places:
                places.append(where)
        pending = []
    fx.passing = [t for t in opened if "PASS" in t]
    return fx


def build(
    index_dir: Path | None = None, fixtures: Path | None = None, library: Library | None = None
) -> Matrix:
    """Join the index, the shipped rulesets and the rule fixtures; refuse an index naming unknown rules."""
    indexes = load_index(index_dir or sentences_dir())
    if index_dir is None:  # the games' own folders: a plugin's rulesets are indexed beside them
        for folder in shipped_folders()[1:]:
            if (folder / "sentences").is_dir():
                indexes.extend(load_index(folder / "sentences"))
    try:
        library = library or Library.load()
    except RulesetError as err:
        raise TraceError(str(err)) from None
    rules = {r.id: (rs.id, r) for rs in library.rulesets.values() for r in rs.model.rules}
    for ix in indexes:
        if ix.ruleset not in library.rulesets:
            raise TraceError(f"{ix.ruleset}: the sentence index names no shipped ruleset")
        for s in ix.sentences:
            unknown = [r for r in s.rules if r not in rules]
            if unknown:
                raise TraceError(f"{ix.ruleset}: {s.id}: no rule {', '.join(unknown)}")
    fixtures = fixtures or fixtures_dir()
    if not fixtures.is_dir():
        raise TraceError(f"{fixtures}: rule fixtures not found (a source checkout has them)")
    found = {}
    games = {rs.id: rs.game for rs in library.rulesets.values()}
    for rid, (ruleset, _) in rules.items():
        path = (fixtures_of(games[ruleset]) or fixtures) / ruleset / f"{rid}.del"
        if path.is_file():
            try:
                found[rid] = read_fixture(path)
            except FixtureError as err:
                raise TraceError(str(err)) from None
    return Matrix(indexes, dict(sorted(rules.items())), found)


# -- the page ---------------------------------------------------------------------------


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _coverage_rows(m: Matrix) -> list[str]:
    rows = [
        "| regulation | sentences | not checkable | checkable | covered | of which with a gap | not covered | covered share |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for ix in m.indexes:
        ss = ix.sentences
        checkable = [s for s in ss if s.checkable]
        covered = [s for s in checkable if s.rules]
        share = f"{100 * len(covered) / len(checkable):.0f} %" if checkable else "—"
        rows.append(
            f"| `{ix.ruleset}` | {len(ss)} | {len(ss) - len(checkable)} | {len(checkable)} | {len(covered)} "
            f"| {sum(1 for s in covered if s.gap)} | {len(checkable) - len(covered)} | {share} |"
        )
    return rows


def _gaps(m: Matrix) -> list[str]:
    by_id = {s.id: (ix.ruleset, s) for ix in m.indexes for s in ix.sentences}
    out = ["## Gaps", "", "### Checkable sentences no rule checks", ""]
    out += [
        f"- `{sid}` ({_cell(by_id[sid][1].article)}): {_cell(by_id[sid][1].gap or '')}"
        for sid in m.uncovered()
    ] or ["None."]
    out += ["", "### Sentences checked in part", ""]
    out += [
        f"- `{sid}` ({_cell(by_id[sid][1].article)}): {_cell(by_id[sid][1].gap or '')}"
        for sid in m.partial()
    ] or ["None."]
    out += ["", "### Rules no sentence lists", ""]
    out += [f"- `{r}` ({m.rules[r][0]})" for r in m.uncited()] or ["None."]
    out += ["", "### Rules without a failing or a passing fixture", ""]
    lacking = []
    for rid in m.rules:
        missing = [
            kind
            for kind, got in (("failing", m.failing(rid)), ("passing", m.passing(rid)))
            if not got
        ]
        if missing:
            fx = m.fixtures.get(rid)
            why = (
                f" (the fixture says: {_cell(fx.no_pass)})"
                if fx and fx.no_pass and "passing" in missing
                else ""
            )
            lacking.append(f"- `{rid}`: no {' and no '.join(missing)} fixture{why}")
    out += lacking or ["None."]
    return out + [""]


def _regulation(m: Matrix, ix: RegulationIndex) -> list[str]:
    out = [
        f"## `{ix.ruleset}` — {ix.title}",
        "",
        "Sources: " + ", ".join(f"`{s}`" for s in ix.sources) + ".",
        "",
        "| sentence | article | text | checked by |",
        "|---|---|---|---|",
    ]
    for s in ix.sentences:
        if not s.checkable:
            by = f"not checkable: {_cell(s.reason or '')}"
        else:
            by = ", ".join(f"[`{r}`](#{r.lower()})" for r in s.rules) or "**no rule**"
            if s.gap:
                by += f"; **gap**: {_cell(s.gap)}"
        if s.note:
            by += f" ({_cell(s.note)})"
        out.append(f"| `{s.id}` | {_cell(s.article)} | {_cell(s.text)} | {by} |")
    out += [
        "",
        f"### Rules of `{ix.ruleset}` and their fixtures",
        "",
        "| rule | severity | sentences | failing (tables that break it) | passing (tables that keep it) |",
        "|---|---|---|---|---|",
    ]
    citing: dict[str, list[str]] = {}
    for s in ix.sentences:
        for r in s.rules:
            citing.setdefault(r, []).append(s.id)
    for rid, (ruleset, rule) in m.rules.items():
        if ruleset != ix.ruleset:
            continue
        fx = m.fixtures.get(rid)
        link = f"[`{fx.path.name}`]({_where(fx.path, ruleset)}) " if fx else ""
        failing = (link + ", ".join(m.failing(rid))) if m.failing(rid) else "**none**"
        passing = ", ".join(m.passing(rid)) or (
            "none: " + _cell(fx.no_pass) if fx and fx.no_pass else "**none**"
        )
        state = "" if rule.enabled else " (off unless a house overlay turns it on)"
        sentences = ", ".join(f"`{sid}`" for sid in citing.get(rid, [])) or "**none**"
        out.append(
            f'| <a id="{rid.lower()}"></a>`{rid}` | {rule.severity}{state} | {sentences} | {failing} | {passing} |'
        )
    return out + [""]


def _where(path: Path, ruleset: str) -> str:
    """A fixture's link from ``docs/``: the auditor's own fixtures by their place in the checkout,
    a plugin's by its path."""
    if path.parent.parent.resolve() == fixtures_dir().resolve():
        return f"../fixtures/rules/{ruleset}/{path.name}"
    return path.resolve().as_uri()


def render(m: Matrix) -> str:
    total = [s for ix in m.indexes for s in ix.sentences]
    checkable = [s for s in total if s.checkable]
    out = [
        "# Traceability matrix",
        "",
        "Generated by `audit trace --output docs/traceability.md` from the sentence index",
        "(`rulesets/sentences/*.yaml`), the rulesets and the rule fixtures (`fixtures/rules/`). Do not",
        "edit it by hand: change the index, a ruleset or a fixture and generate it again; `audit trace",
        "--check --output docs/traceability.md` and the tests fail while it is out of date.",
        "",
        "Every sentence of each regulation has a stable id and either the rules that check it or the",
        "reason no log can show it broken. A sentence a log can show broken that no rule checks yet",
        "is a gap, listed below; so is a sentence only part of which is checked.",
        "",
        "## Coverage",
        "",
    ]
    out += _coverage_rows(m)
    out += [
        "",
        f"In all: {len(total)} sentences, {len(checkable)} checkable, "
        f"{sum(1 for s in checkable if s.rules)} covered by at least one rule.",
        "",
    ]
    out += _gaps(m)
    for ix in m.indexes:
        out += _regulation(m, ix)
    return "\n".join(out).rstrip("\n") + "\n"


# -- the command --------------------------------------------------------------------------


def _write_atomically(path: Path, content: str) -> None:
    """A temporary file in the same folder, then a rename: a reader never sees half a page."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            out.write(content)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def run(output: Path | None, check: bool) -> int:
    """``audit trace``: 0 done (or up to date), 1 ``--check`` found the file out of date, 2 could not."""
    try:
        content = render(build())
    except TraceError as err:
        sys.stderr.write(f"audit: {for_terminal(str(err))}\n")
        return 2
    where = for_terminal(str(output))
    if check:
        if output is None:
            sys.stderr.write("audit: --check compares with a file: give it with --output\n")
            return 2
        try:
            current = output.read_text(encoding="utf-8")
        except FileNotFoundError:
            current = None
        except (OSError, UnicodeDecodeError) as err:
            sys.stderr.write(
                f"audit: {where}: cannot read: {getattr(err, 'strerror', None) or err}\n"
            )
            return 2
        if current != content:
            sys.stderr.write(f"audit: {where} is out of date: run audit trace --output {where}\n")
            return 1
        return 0
    if output is None:
        sys.stdout.write(content)
        return 0
    from .outputs import OutputError, check_files

    read = [
        *sorted(sentences_dir().glob("*.yaml")),
        *sorted(rulesets_dir().glob("*.yaml")),
        *sorted(fixtures_dir().glob("*/*.del")),
    ]
    try:
        if output.resolve().parent.is_dir():  # (else the write says it cannot)
            check_files([output], read)
    except OutputError as err:
        sys.stderr.write(f"audit: {for_terminal(str(err))}\n")
        return 2
    try:
        _write_atomically(output, content)
    except OSError as err:
        sys.stderr.write(f"audit: {where}: cannot write: {err.strerror or err}\n")
        return 2
    return 0
