"""The state file of ``audit follow --state``: how far each file was read, what was reported.

For each followed path: the file's device and inode and the SHA-256 of its first 4 KiB (up to
the offset), so that a replaced or rewritten file is not taken for the one read; the offset of
the end of the last line whose findings are all reported (the *mark*); and the findings
reported since the mark, as (line, rule, table, round). The output file's length when the
state was written is kept too, the statistics' anomalies reported in the run (each is
reported once a night: they are few), and the run whose looks the statistics keep beside the
state (``looks_file``: a night tests too many groups to write them all here each second).

On a restart each file is read again from its start up to the mark without reporting (the
replay rebuilds the open tables, rounds and shoes), then followed live; a finding whose key
the state kept is not reported again. The state is written after the output line: a follow
killed between the two has written a finding the state does not know. With ``--output FILE``
in JSON lines that finding is read back from the output past the length the state recorded
(``emit.recover``), so that every finding is written once (exactly once); on standard output it
may be written again (at least once), at most the one finding written before the kill.

The file is replaced atomically (written beside, then renamed): a kill leaves the old state or
the new, never half of one.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .tail import Follower, Resume

FORMAT = "del-audit-follow-state"
VERSION = 1


class StateError(Exception):
    """A state file that cannot be read or written: exit 2."""


def looks_file(state: str) -> str:
    """Where the live statistics keep their looks beside the state ``state`` (``live_store``)."""
    return f"{state}.looks"


def load(
    path: str,
) -> tuple[dict[str, Resume], dict[str, Any] | None, list[tuple], dict[str, Any] | None]:
    """The files' resume points, the output as recorded ({path, size} or None), the statistics'
    anomalies reported (path, scope, id, test) and the run whose looks they keep ({looks, run},
    or None); nothing if the file does not exist yet."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None, [], None
    except OSError as err:
        raise StateError(f"{path}: cannot read the state: {err.strerror or err}") from None
    try:
        data = json.loads(text)
        if data.get("format") != FORMAT or data.get("version") != VERSION:
            raise ValueError("not a follow state file")
        files = {
            p: Resume(
                e["dev"], e["ino"], e["offset"], e["head_sha256"], [tuple(k) for k in e["reported"]]
            )
            for p, e in data["files"].items()
        }
        anomalies = [tuple(k) for k in data.get("anomalies", [])]
        if any(len(k) != 4 for k in anomalies):
            raise ValueError("an anomaly is not (path, scope, id, test)")
        statistics = data.get("statistics")
        if statistics is not None and not isinstance(statistics.get("run"), str):
            raise ValueError("the statistics' run is not named")
        return files, data.get("output"), anomalies, statistics
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise StateError(f"{path}: not a state file of audit follow ({err})") from None


def save(
    path: str,
    follower: Follower,
    output: dict[str, Any] | None,
    anomalies: Iterable[tuple] = (),
    statistics: dict[str, Any] | None = None,
) -> None:
    """``anomalies``: the statistics' anomalies reported (never reported again after a restart);
    ``statistics``: the run whose looks are kept in ``looks_file(path)`` ({looks, run})."""
    files: dict[str, Any] = {}
    for name, followed in sorted(follower.files.items()):
        point = followed.resume_point()
        if point is not None:
            files[name] = {
                "dev": point.dev,
                "ino": point.ino,
                "offset": point.offset,
                "head_sha256": point.head_sha256,
                "reported": [list(k) for k in point.keys],
            }
    for (
        name,
        point,
    ) in follower.resume.items():  # files not seen yet since the restart: kept as they were
        files.setdefault(
            name,
            {
                "dev": point.dev,
                "ino": point.ino,
                "offset": point.offset,
                "head_sha256": point.head_sha256,
                "reported": [list(k) for k in point.keys],
            },
        )
    data = {
        "format": FORMAT,
        "version": VERSION,
        "output": output,
        "files": files,
        "anomalies": sorted(list(k) for k in anomalies),
    }
    if statistics is not None:
        data["statistics"] = statistics
    target = Path(path)
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, separators=(",", ":"))
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, target)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise
    except OSError as err:
        raise StateError(f"{path}: cannot write the state: {err.strerror or err}") from None
