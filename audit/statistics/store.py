"""The statistics' groups of a run, in report order: in memory, or past ``THRESHOLD`` in a file.

A long log has tens of thousands of groups (every player and shoe of the night). The build
makes them one at a time, in report order; a ``GroupStore`` holds them in a list until it
holds ``THRESHOLD`` of them, then, while a spill folder is open, appends them in chunks to
one file of it. Every reporter reads them in order, as often as it needs.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from dataclasses import fields
from operator import attrgetter
from typing import Iterator

from .. import findings_store

#: groups held in memory before they go to a file (about 1 KB each)
THRESHOLD = 10_000
#: groups pickled together: what a reader holds of the file
CHUNK = 500


class GroupStore:
    """The groups of a run, appended in report order."""

    def __init__(self, cls: type, groups=()) -> None:
        #: the groups' dataclass: a group is written as the tuple of its fields, made again from it
        self.cls = cls
        self._values = attrgetter(*(f.name for f in fields(cls)))
        self.held: list = []
        self.count = 0
        #: the file of the groups written out, all before ``held``
        self.file: str | None = None
        for g in groups:
            self.append(g)

    def append(self, group) -> None:
        self.held.append(group)
        self.count += 1
        if len(self.held) >= CHUNK and (self.file is not None or len(self.held) >= THRESHOLD):
            self._write()

    def extend(self, groups) -> None:
        for g in groups:
            self.append(g)

    def _write(self) -> None:
        folder = findings_store.folder()
        if folder is None:
            return
        with findings_store.spill_io("write", folder):
            if self.file is None:
                fd, self.file = tempfile.mkstemp(dir=folder, suffix=".groups")
                os.close(fd)
            values = self._values
            with open(self.file, "ab") as out:
                for start in range(0, len(self.held), CHUNK):
                    pickle.dump([values(g) for g in self.held[start:start + CHUNK]], out, pickle.HIGHEST_PROTOCOL)
        self.held = []

    def __iter__(self) -> Iterator:
        if self.file is not None:
            cls, folder = self.cls, os.path.dirname(self.file)
            with findings_store.spill_io("read", folder):
                run = open(self.file, "rb")
            with run:
                while True:
                    with findings_store.spill_io("read", folder):
                        try:
                            chunk = pickle.load(run)
                        except EOFError:
                            break
                    for values in chunk:
                        yield cls(*values)
        yield from self.held

    def __len__(self) -> int:
        return self.count

    def __bool__(self) -> bool:
        return self.count > 0
