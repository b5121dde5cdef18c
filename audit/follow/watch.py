"""When ``audit follow`` looks at its files again: at a file event, or every ``--interval``.

With the ``live`` extra installed, ``watchfiles`` (inotify on Linux, FSEvents, ReadDirectoryChangesW;
a Rust core, kept up to date, the watcher of uvicorn and many tools) tells of every write in the
folders followed, and the follow looks at once: a line is read within milliseconds of its write,
and an idle room costs nothing. A look is still made at least every ``max(interval, 2 s)``: a
file system that gives no events (a network share written from another machine) is read all the
same, only later. Without the extra, with ``--poll``, or when the watcher cannot start (the
system's limit of watches reached), the follow polls: one ``stat`` a file every ``--interval``
seconds, which works everywhere.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

#: the longest wait between two looks when events are awaited (seconds; ``--interval`` if longer)
EVENTS_LOOK = 2.0
#: the longest the events of a busy folder are grouped before a look (milliseconds): every table
#: writing at once never leaves the folder quiet, so this bounds the delay a look adds
DEBOUNCE_MS = 40
#: how often a wait checks whether the follow was asked to stop (seconds)
SLICE = 0.25


class Polling:
    """A look every ``interval`` seconds."""

    kind = "polling"
    #: (never: polling does not break)
    failed: str | None = None

    def __init__(self, interval: float) -> None:
        self.interval = interval

    def wait(self, longest: float, stopped: Callable[[], bool]) -> None:
        end = time.monotonic() + min(self.interval, longest)
        while not stopped() and (left := end - time.monotonic()) > 0:
            time.sleep(
                min(SLICE, left)
            )  # (a signal does not cut a sleep short: a stop is seen here)

    def close(self) -> None:
        pass


class Events:
    """A look at each file event (grouped over a few milliseconds), or after ``look`` seconds."""

    kind = "events"

    def __init__(self, folders: Iterable[str], files: Iterable[str], interval: float) -> None:
        import watchfiles  # the live extra: ImportError when it is not installed

        self.look = max(interval, EVENTS_LOOK)
        self.changed = threading.Event()
        self.done = threading.Event()
        self.failed: str | None = None
        #: folders watched with what is under them; a named file's folder alone (it may not exist yet)
        groups = [
            (sorted(set(folders)), True),
            (sorted({str(Path(f).parent) for f in files} - set(folders)), False),
        ]
        self.threads = []
        for paths, recursive in groups:
            if not paths:
                continue
            started = threading.Event()
            thread = threading.Thread(
                target=self._watch,
                args=(watchfiles, paths, recursive, started),
                name="audit-follow-events",
                daemon=True,
            )
            thread.start()
            started.wait(5)
            self.threads.append(thread)
            if self.failed:
                self.close()
                raise OSError(self.failed)

    def _watch(self, watchfiles, paths: list[str], recursive: bool, started) -> None:
        try:
            for changes in watchfiles.watch(
                *paths,
                watch_filter=None,
                debounce=DEBOUNCE_MS,
                step=5,
                stop_event=self.done,
                rust_timeout=500,
                yield_on_timeout=True,
                recursive=recursive,
                raise_interrupt=False,
                ignore_permission_denied=True,
            ):
                started.set()  # (the first answer comes after the watches are set up, or at the timeout)
                if self.done.is_set():
                    return
                if changes:
                    self.changed.set()
        except Exception as err:  # the watcher could not start or broke: polling instead
            self.failed = f"file events: {err}"
            self.changed.set()
        finally:
            started.set()

    def wait(self, longest: float, stopped: Callable[[], bool]) -> None:
        end = time.monotonic() + min(self.look, longest)
        while not stopped() and not self.failed:
            left = end - time.monotonic()
            if left <= 0 or self.changed.wait(min(SLICE, left)):
                break
        self.changed.clear()

    def close(self) -> None:
        self.done.set()
        for thread in self.threads:
            thread.join(2)


def waiter(
    folders: Iterable[str],
    files: Iterable[str],
    interval: float,
    poll: bool,
    warn: Callable[[str], None] | None = None,
) -> Polling | Events:
    """Events where they can be had (``warn`` is told why not, when it was not asked), else polling."""
    if poll:
        return Polling(interval)
    try:
        return Events(folders, files, interval)
    except ImportError:
        return Polling(interval)  # the live extra is not installed: polling, as documented
    except OSError as err:
        if warn is not None:
            warn(f"{err}; polling every {interval:g} s instead")
        return Polling(interval)
