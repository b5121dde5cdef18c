"""One run of ``audit follow``: look at the files every ``interval`` seconds, report, keep the state.

Between two looks it waits for a file event, or ``interval`` seconds when polling (``watch``).
The loop ends when told: ``once`` (what is written now, then the files are complete), ``until_idle``
(no file grew for that many seconds: the files are complete), or a stop request (SIGINT,
SIGTERM: the files are not complete, the dealers may still write; the state says how far they
were read and a restart goes on from there).
"""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..rulesets import Library
from . import state as state_file
from . import watch
from .emit import Emitter, recover
from .live_stats import LiveStatistics
from .tail import Follower, Resume

if TYPE_CHECKING:
    from .board import Board

#: how often the live page's tables are looked at (seconds)
BOARD_EVERY = 0.5
#: how often the state is written when lines were read but nothing reported (seconds)
STATE_EVERY = 1.0


@dataclass
class Options:
    interval: float = 0.2
    once: bool = False
    until_idle: float | None = None
    state: str | None = None
    heartbeat: float = 30.0
    #: the live statistics' alpha (None: no statistics)
    alpha: float | None = None
    #: look every ``interval`` seconds even where file events could be had (``--poll``)
    poll: bool = False


class Stop:
    """Set by SIGINT or SIGTERM: the loop ends after the file it is reading."""

    def __init__(self) -> None:
        self.requested = False

    @contextmanager
    def on_signals(self) -> Iterator[None]:
        def handler(signum, frame) -> None:
            self.requested = True

        before = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for s, h in before.items():
                signal.signal(s, h)


def follow(
    library: Library,
    paths: list[str],
    emitter: Emitter,
    options: Options,
    stop: Stop | None = None,
    warn: Callable[[str], None] | None = None,
    board: Board | None = None,
) -> None:
    """Follow ``paths`` until told to stop (see the module); ``warn`` is told of a log found in a
    folder that cannot be read; ``board`` (the live page's) of the tables, findings and anomalies."""
    stop = stop or Stop()
    resume, output, reported, kept = (
        state_file.load(options.state) if options.state else ({}, None, [], None)
    )
    out_path = emitter.output.path
    if (
        options.state
        and out_path is not None
        and emitter.format == "jsonl"
        and output
        and output.get("path") == os.path.abspath(out_path)
    ):
        found, anomalies = recover(out_path, output["size"])  # written, not yet in the state
        reported.extend(anomalies)
        for path, keys in found.items():
            if path not in resume:
                resume[path] = Resume(None, None, 0, hashlib.sha256(b"").hexdigest(), [])
            resume[path].keys.extend(keys)
    live = None
    if options.alpha is not None:
        library.statistics = True
        live = _live(library, emitter, options, reported, kept, warn)
        if options.state:
            kept = {"looks": Path(state_file.looks_file(options.state)).name, "run": live.store.run}
        if board is not None:
            live.observe = board.observe
    emitter.board = board
    follower = Follower(library, paths, emitter.finding, resume, warn, live)

    def save() -> None:
        if options.state:
            if live is not None:
                try:
                    live.store.commit()  # the looks before the state that counts on them
                except sqlite3.Error as err:
                    raise state_file.StateError(
                        f"{state_file.looks_file(options.state)}: cannot keep the looks: {err}"
                    ) from None
            size = emitter.output.size
            state_file.save(
                options.state,
                follower,
                None
                if size is None or out_path is None  # (a size is a file's: never without its path)
                else {"path": os.path.abspath(out_path), "size": size},
                live.reported if live is not None else reported,
                kept,
            )

    save()  # before anything is reported: where the output stood
    emitter.written = save  # after each finding's line: the state knows it
    last_growth = last_save = last_beat = time.monotonic()
    unsaved = False
    waits: watch.Polling | watch.Events = watch.waiter(
        follower.folders, follower.named, options.interval, options.poll or options.once, warn
    )
    #: the longest a wait may last: a heartbeat or the idle time is not late
    longest = min([t for t in (options.heartbeat, options.until_idle) if t] or [float("inf")])
    last_board = 0.0
    try:
        while not stop.requested:
            read = follower.poll()
            now = time.monotonic()
            if board is not None and now - last_board >= BOARD_EVERY:
                board.look(follower)
                last_board = now
            if read:
                last_growth, unsaved = now, True
                for f in follower.files.values():
                    f.advance_mark()
            if unsaved and now - last_save >= STATE_EVERY:
                save()
                last_save, unsaved = now, False
            if options.heartbeat and now - last_beat >= options.heartbeat:
                _beat(emitter, follower)
                last_beat = now
            if emitter.alert is not None:
                emitter.alert.reap()
            if options.once or (
                options.until_idle is not None and now - last_growth >= options.until_idle
            ):
                follower.poll()
                for f in follower.files.values():
                    f.advance_mark()
                follower.finish()
                if board is not None:
                    board.look(follower)
                break
            waits.wait(longest, lambda: stop.requested)
            if waits.failed:
                if warn is not None:
                    warn(f"{waits.failed}; polling every {options.interval:g} s instead")
                waits.close()
                waits = watch.Polling(options.interval)
        save()
        if emitter.alert is not None:
            emitter.alert.reap(wait=True)
    finally:
        waits.close()
        follower.close()
        if live is not None:
            live.store.close()


def _live(
    library: Library,
    emitter: Emitter,
    options: Options,
    reported: list[tuple],
    kept: dict | None,
    warn: Callable[[str], None] | None,
) -> LiveStatistics:
    """The live statistics, their looks kept beside the state (``--state``) and gone on with when
    the state names their run."""
    assert options.alpha is not None
    looks = state_file.looks_file(options.state) if options.state else None
    try:
        live = LiveStatistics(
            library, emitter.anomaly, options.alpha, reported, looks, (kept or {}).get("run")
        )
    except sqlite3.Error as err:
        raise state_file.StateError(f"{looks}: cannot keep the statistics' looks: {err}") from None
    if kept is not None and not live.store.resumed and warn is not None:
        warn(f"{looks}: not the statistics' looks of this state; they are looked at afresh")
    return live


def _beat(emitter: Emitter, follower: Follower) -> None:
    files = follower.files.values()
    emitter.status(
        files=len(follower.files),
        lines=sum(f.lineno for f in files),
        open_tables=sum(f.open_tables() for f in files),
        findings=emitter.count,
        anomalies=emitter.anomalies,
    )
