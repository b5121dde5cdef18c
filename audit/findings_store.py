"""Findings beyond what memory should hold: written to disk in sorted runs, read back merged.

A replay's findings go to a ``FindingStore``, a list as long as it holds fewer than
``THRESHOLD`` findings (the common case: few findings, nothing written). Past it, while a
spill folder is open (``spilling()``, as the command line opens one), the findings held are
sorted in report order, written compactly to a run file of that folder, and the list starts
again empty. A report whose findings spilled reads every run back merged in report order
(``heapq.merge``), as often as it needs, holding one chunk of each run at a time. The folder is
removed when the command ends, on an error or an interruption too. Without an open folder (the
library's callers, a cluster's workers) the findings stay in memory as before.
"""

from __future__ import annotations

import heapq
import os
import pickle
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice
from operator import attrgetter
from typing import Any

from .findings import SEVERITIES, Finding
from .fingerprint import content, content_key, fingerprint_of

#: findings a store holds in memory before it writes them out (about 850 bytes each)
THRESHOLD = 20_000
#: findings pickled together in a run file: what a merge holds of each run
CHUNK = 1_000

_FIELDS = tuple(Finding.model_fields)
_EVERY_FIELD = set(_FIELDS)
_values = attrgetter(*_FIELDS)
_construct = Finding.model_construct
_folder: str | None = None


@contextmanager
def spilling() -> Iterator[str]:
    """A spill folder for the findings of this process and of the workers it forks, removed at the end."""
    global _folder
    folder = tempfile.mkdtemp(prefix="audit-findings-")
    previous, _folder = _folder, folder
    try:
        yield folder
    finally:
        _folder = previous
        shutil.rmtree(folder, ignore_errors=True)


def folder() -> str | None:
    """The open spill folder (None: findings stay in memory)."""
    return _folder


def use_folder(path: str | None) -> None:
    """A spawned worker spills to its parent's folder (a forked one inherits it)."""
    global _folder
    _folder = path


class FindingStore(list):
    """The findings of one replay, in the order they were made, minus those written to ``runs``."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        #: run files, each sorted in report order
        self.runs: list[str] = []

    def append(self, finding: Finding) -> None:
        list.append(self, finding)
        if len(self) >= THRESHOLD and _folder is not None:
            self.spill()

    def spill(self) -> None:
        self.runs.append(write_run(sorted(self, key=Finding.sort_key)))
        self.clear()


def write_run(findings: list[Finding]) -> str:
    """``findings`` (in report order) as tuples of their fields in a new file of the spill folder; its name."""
    return write_rows([_values(f) for f in findings])


def read_run(name: str) -> Iterator[Finding]:
    return (_construct(_EVERY_FIELD, **dict(zip(_FIELDS, values))) for values in read_rows(name))


class SpillError(Exception):
    """The spill folder could not be written or read (a full disk, say): the audit stops (exit 2)."""


@contextmanager
def spill_io(what: str, folder: str | None) -> Iterator[None]:
    """An operating system's error on a file of the spill folder ``folder``, said as what it is: not the
    log's, nor a bug; the message names the folder that holds spill folders (TMPDIR's)."""
    try:
        yield
    except OSError as err:
        where = (
            os.path.dirname(folder) if folder else tempfile.gettempdir()
        )  # the spill folder's own is removed
        raise SpillError(
            f"cannot {what} temporary files in {where}: {err.strerror or err} "
            "(TMPDIR names another folder)"
        ) from None


def write_rows(rows: Iterable[tuple], chunk: int = CHUNK) -> str:
    """``rows`` pickled in chunks of ``chunk`` (what a reader holds) to a new file of the spill folder
    (a list, or a stream read a chunk at a time); its name."""
    with spill_io("write", _folder):
        fd, name = tempfile.mkstemp(dir=_folder, suffix=".run")
        rows = iter(rows)
        with os.fdopen(fd, "wb") as out:
            while held := list(islice(rows, chunk)):
                pickle.dump(held, out, pickle.HIGHEST_PROTOCOL)
    return name


def read_rows(name: str) -> Iterator[tuple]:
    """The rows of a file ``write_rows`` wrote, one chunk held at a time."""
    with spill_io("read", os.path.dirname(name)):
        run = open(name, "rb")  # noqa: SIM115 (closed by the `with run:` below)
    with run:
        while True:
            with spill_io("read", os.path.dirname(name)):
                try:
                    chunk = pickle.load(run)
                except EOFError:
                    return
            yield from chunk


def settle(stores: list[list[Finding]]) -> None:
    """The findings finished stores still hold (each under ``THRESHOLD``) written out once together
    they pass it: many inputs of a few findings each do not add up in memory either."""
    if _folder is not None and sum(len(s) for s in stores) >= THRESHOLD:
        for s in stores:
            if len(s) and isinstance(s, FindingStore):
                s.spill()


def spilled(stores: Iterable[list[Finding]]) -> bool:
    """Whether any of ``stores`` wrote findings out."""
    return any(getattr(s, "runs", None) for s in stores)


@dataclass
class Tally:
    """What the reports count of the findings, counted in one pass."""

    severities: dict[str, int] = field(default_factory=lambda: {s: 0 for s in SEVERITIES})
    #: (path, table) -> category -> findings
    categories: dict[tuple[str, str | None], dict[str, int]] = field(default_factory=dict)
    #: dealer -> findings made at a table
    dealers: dict[str | None, int] = field(default_factory=dict)
    #: (rule, category) -> findings
    rules: dict[tuple[str, str], int] = field(default_factory=dict)

    @classmethod
    def of(cls, findings: Iterable[Finding]) -> Tally:
        tally = cls()
        severities, categories, dealers, rules = (
            tally.severities,
            tally.categories,
            tally.dealers,
            tally.rules,
        )
        for f in findings:
            severities[f.severity] += 1
            rule = (f.rule, f.category)
            rules[rule] = rules.get(rule, 0) + 1
            mine = categories.setdefault((f.path, f.table), {})
            mine[f.category] = mine.get(f.category, 0) + 1
            if f.table is not None:
                dealers[f.dealer] = dealers.get(f.dealer, 0) + 1
        return tally

    def category_totals(self) -> dict[str, int]:
        """category -> findings, in the order categories were first met (as the rules were)."""
        out: dict[str, int] = {}
        for (_, category), n in self.rules.items():
            out[category] = out.get(category, 0) + n
        return out


class SpilledFindings:
    """A report's findings when they spilled: iterable again and again in report order, never
    all in memory; ``fingerprints`` iterates theirs in the same order. ``where`` narrows them
    (the selection, the baseline) without reading them."""

    def __init__(
        self,
        runs: list[str],
        keep: Callable[[Finding, str], bool] | None = None,
        ordinals: list[list[str]] | None = None,
    ) -> None:
        self.runs = runs
        self._keep = keep
        self._tally: Tally | None = None
        #: the runs of each finding's ordinal among those about the same content, once counted
        #: (shared with the narrowed views of the same findings)
        self._ordinals = ordinals if ordinals is not None else []

    def _merged(self) -> Iterator[Finding]:
        return heapq.merge(*(read_run(r) for r in self.runs), key=Finding.sort_key)

    def pairs(self) -> Iterator[tuple[Finding, str]]:
        """(finding, fingerprint) in report order; fingerprints count every finding, kept or not.
        The same fingerprints as ``fingerprint.fingerprinted`` gives, counted on disk."""
        if not self._ordinals:
            self._ordinals.append(ordinal_runs(self._merged()))
        keep = self._keep
        ordinals = heapq.merge(*(read_rows(r) for r in self._ordinals[0]))
        for f, (_, n) in zip(self._merged(), ordinals):
            fp = fingerprint_of(content(f), n)
            if keep is None or keep(f, fp):
                yield f, fp

    def where(self, keep: Callable[[Finding, str], bool]) -> SpilledFindings:
        before = self._keep
        both = keep if before is None else (lambda f, fp: before(f, fp) and keep(f, fp))
        return SpilledFindings(self.runs, both, self._ordinals)

    def __iter__(self) -> Iterator[Finding]:
        if self._keep is None:  # no fingerprint needed
            return self._merged()
        return (f for f, _ in self.pairs())

    @property
    def fingerprints(self) -> _Fingerprints:
        return _Fingerprints(self)

    def tally(self) -> Tally:
        if self._tally is None:
            self._tally = Tally.of(self)
        return self._tally

    def __len__(self) -> int:
        return sum(self.tally().severities.values())

    def __bool__(self) -> bool:
        return len(self) > 0


def ordinal_runs(findings: Iterable[Finding]) -> list[str]:
    """For findings in report order, runs of (position, ordinal) sorted by position: each
    finding's rank among the findings about the same content up to it. Counted on disk, as
    ``fingerprint.fingerprinted`` counts in memory: the (digest, position) pairs sorted into runs
    and merged, so that equal digests come together in report order, then numbered and sorted
    back by position. Nothing held grows with the number of findings or of their contents."""
    by_key = _sorted_runs((content_key(f)[1], i) for i, f in enumerate(findings))

    def numbered() -> Iterator[tuple[int, int]]:
        last, n = None, 0
        for key, i in heapq.merge(*(read_rows(r) for r in by_key)):
            n = n + 1 if key == last else 1
            last = key
            yield i, n

    runs = _sorted_runs(numbered())
    for name in by_key:
        os.remove(name)
    return runs


def _sorted_runs(rows: Iterable[tuple]) -> list[str]:
    """``rows`` written ``THRESHOLD`` at a time, each run sorted."""
    runs: list[str] = []
    chunk: list[tuple] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= THRESHOLD:
            runs.append(write_rows(sorted(chunk)))
            chunk.clear()
    if chunk:
        runs.append(write_rows(sorted(chunk)))
    return runs


class _Fingerprints:
    def __init__(self, findings: SpilledFindings) -> None:
        self.findings = findings

    def __iter__(self) -> Iterator[str]:
        return (fp for _, fp in self.findings.pairs())

    def __len__(self) -> int:
        return len(self.findings)


def merged(stores: list[list[Finding]]) -> SpilledFindings:
    """The findings of stores some of which spilled: what each still holds written out too (and
    let go of)."""
    runs: list[str] = []
    for s in (
        stores
    ):  # each store's runs in the order it wrote them: equal keys merge as a sort keeps them
        runs += getattr(s, "runs", ())
        if len(s):
            runs.append(write_run(sorted(s, key=Finding.sort_key)))
            s.clear()
    return SpilledFindings(runs)


def ordered(findings: Iterable[Finding], key: Callable[[Finding], Any]) -> Iterator[Finding]:
    """``sorted(findings, key=key)`` (stable) without holding findings that spilled: sorted
    ``THRESHOLD`` at a time into runs, merged."""
    if not isinstance(findings, SpilledFindings):
        return iter(sorted(findings, key=key))
    pairs = ordered_pairs(((f, "") for f in findings), lambda pair: key(pair[0]), spill=True)
    return (f for f, _ in pairs)


def ordered_pairs(
    pairs: Iterable[tuple[Finding, str]], key: Callable[[tuple[Finding, str]], Any], spill: bool
) -> Iterator[tuple[Finding, str]]:
    """``ordered`` for (finding, fingerprint) pairs; written out in runs only if ``spill``."""
    if not spill:
        yield from sorted(pairs, key=key)
        return
    runs, chunk = [], []
    for pair in pairs:
        chunk.append(pair)
        if len(chunk) >= THRESHOLD:
            runs.append(write_rows([(*_values(f), fp) for f, fp in sorted(chunk, key=key)]))
            chunk = []
    try:
        yield from heapq.merge(*(_read_pairs(r) for r in runs), sorted(chunk, key=key), key=key)
    finally:
        for run in runs:
            os.unlink(run)


def _read_pairs(name: str) -> Iterator[tuple[Finding, str]]:
    for values in read_rows(name):
        yield _construct(_EVERY_FIELD, **dict(zip(_FIELDS, values))), values[-1]
