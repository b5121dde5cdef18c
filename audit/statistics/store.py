"""The statistics' groups of a run, in report order: in memory, or past ``THRESHOLD`` in files.

A long log has tens of thousands of groups (every player and shoe of the night). The build
makes them one at a time, in report order; a ``GroupStore`` holds them in a list until it
holds ``THRESHOLD`` of them, then, while a spill folder is open, writes them out ``CHUNK`` at a
time, each chunk a file of that folder (``findings_store.write_rows``). Every reporter reads
them in order, the files one after the other, as often as it needs.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields
from itertools import chain
from operator import attrgetter

from .. import findings_store

#: groups held in memory before they go to files (some 750 bytes of objects each): a night of a million
#: lines writes none (the benchmark's realistic one makes 51,000); they take the place of the sums the
#: build lets go as it reads them
THRESHOLD = 64_000
#: groups written together to one file: what a reader holds
CHUNK = 500


class GroupStore:
    """The groups of a run, appended in report order."""

    def __init__(self, cls: type, groups=()) -> None:
        #: the groups' dataclass: a group is written as the tuple of its fields, made again from it
        self.cls = cls
        self._values = attrgetter(*(f.name for f in fields(cls)))
        self.held: list = []
        self.count = 0
        #: the files of the groups written out, in order, all before ``held``
        self.files: list[str] = []
        for g in groups:
            self.append(g)

    def append(self, group) -> None:
        self.held.append(group)
        self.count += 1
        if len(self.held) >= CHUNK and (self.files or len(self.held) >= THRESHOLD):
            self._write()

    def extend(self, groups) -> None:
        for g in groups:
            self.append(g)

    def _write(self) -> None:
        if findings_store.folder() is None:  # the library's callers: the groups stay in memory
            return
        self.files.append(findings_store.write_rows(map(self._values, self.held), CHUNK))
        self.held = []

    def __iter__(self) -> Iterator:
        written = chain.from_iterable(map(findings_store.read_rows, self.files))
        yield from (self.cls(*values) for values in written)
        yield from self.held

    def __len__(self) -> int:
        return self.count

    def __bool__(self) -> bool:
        return self.count > 0
