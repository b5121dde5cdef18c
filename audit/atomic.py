"""Files replaced together or not at all: the reports of one run.

A report is evidence: a failed or interrupted run must leave neither a
truncated report nor a mix of new and old ones. Each file is first written
whole to a temporary file beside it (the same folder, so the same file system,
where a rename is atomic); only when every one is written are they renamed
into place, one after another with Ctrl-C and SIGTERM held back meanwhile. On
a failure or an interruption before that, the temporary files are removed and
every previous file stays as it was. A target that is not a regular file
(``/dev/null``, a FIFO, a terminal) cannot be replaced: it is written
directly, before the renames.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import tempfile
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

#: the signals held back while the files are renamed into place (they take effect just after)
HELD_SIGNALS = {signal.SIGINT, signal.SIGTERM}


class WriteError(Exception):
    """A file that could not be written; its message names the file as given."""


def _new_file_mode() -> int:
    """What ``open()`` would give a new file: 0666 less the umask."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


#: characters encoded at once: a report is written without a second, encoded copy of it whole
PIECE = 1 << 20


def _write_utf8(out: BinaryIO, text: str | Iterable[str]) -> None:
    """``text``, or each piece of it in turn (a report made as it is written)."""
    for piece in (text,) if isinstance(text, str) else text:
        for start in range(0, len(piece), PIECE):
            out.write(piece[start : start + PIECE].encode("utf-8"))


def _temporary(target: Path, text: str | Iterable[str], mode: int) -> str:
    """``text`` (UTF-8) in a new file beside ``target``, on disk; its name."""
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            _write_utf8(out, text)
            out.flush()
            os.fchmod(out.fileno(), mode)
            os.fsync(out.fileno())
    except BaseException:
        os.unlink(name)
        raise
    return name


def replace_together(
    contents: Iterable[tuple[Path, str | Iterable[str]]],
    before_renames: Callable[[], None] | None = None,
) -> None:
    """Write each ``(path, text)`` (UTF-8) so that either all are replaced or none is. ``contents``
    may make each text as it is asked for (a generator): only one is then held at a time; a text
    may be an iterable of pieces, written as they are made.

    ``before_renames`` runs once every file is written and before any is put in place (the report
    for standard output, say): if it fails, no file is replaced either. A symbolic link is kept:
    the file it points to is replaced. Raises ``WriteError`` naming the file that failed.
    """
    pending: list[tuple[str, Path, Path]] = []  # (temporary file, target, the path as given)
    direct: list[tuple[Path, Path, str | Iterable[str]]] = []  # written once every other file is
    try:
        for shown, text in contents:
            try:
                old = os.stat(
                    shown
                )  # through links, /dev/stdout's too (a pipe has no path to resolve)
            except FileNotFoundError:
                old = None
            except OSError as err:
                raise WriteError(f"{shown}: cannot write: {err.strerror or err}") from None
            if old is not None and not stat.S_ISREG(old.st_mode):
                direct.append((shown, Path(shown), text))
                continue
            target = Path(os.path.realpath(shown))
            mode = stat.S_IMODE(old.st_mode) if old is not None else _new_file_mode()
            try:
                pending.append((_temporary(target, text, mode), target, shown))
            except OSError as err:
                raise WriteError(f"{shown}: cannot write: {err.strerror or err}") from None
            del text  # (not held while the next is made)
        for shown, target, text in direct:
            try:
                with open(target, "wb") as out:
                    _write_utf8(out, text)
            except OSError as err:
                raise WriteError(f"{shown}: cannot write: {err.strerror or err}") from None
        if before_renames is not None:
            before_renames()
        _rename_all(pending)
    finally:
        for name, _, _ in pending:  # whatever was not renamed
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name)


def _rename_all(pending: list[tuple[str, Path, Path]]) -> None:
    """Every temporary file onto its target, with the held signals blocked until the last rename.

    Renamed files are taken off ``pending``."""
    held = _hold(HELD_SIGNALS)
    try:
        while pending:
            name, target, shown = pending[0]
            try:
                os.replace(name, target)
            except OSError as err:
                raise WriteError(f"{shown}: cannot write: {err.strerror or err}") from None
            pending.pop(0)
    finally:
        _hold(held, release=True)


def _hold(signals: set, release: bool = False) -> set:
    """Block ``signals`` (or unblock them) in this thread; the signals that were blocked before.

    Only the main thread receives Python's signal handlers, so only there does it matter."""
    if threading.current_thread() is not threading.main_thread():
        return set()
    if release:
        return signal.pthread_sigmask(signal.SIG_SETMASK, signals)
    return signal.pthread_sigmask(signal.SIG_BLOCK, signals)
