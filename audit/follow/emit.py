"""What ``audit follow`` writes: each finding as it is found (text for a terminal, or JSON lines),
status heartbeats in JSON lines, and the alert command run for each finding grave enough.

Every line is written whole with one ``write`` and flushed at once: a reader (``tail -f``, a log
shipper) never sees half a finding, and a follow killed at any moment leaves at most one line
cut short, which the next start removes (``recover``).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..escape import for_terminal, undecodable_escaped
from ..findings import SEVERITY_RANK, Finding, moment, place
from ..reporters.text_statistics import footage
from .live_stats import LiveAnomaly
from .tail import Key

if TYPE_CHECKING:
    from .board import Board

FORMATS = ("text", "jsonl")


class EmitError(Exception):
    """The output cannot be written, or the alert command cannot be run: exit 2."""


def finding_object(f: Finding) -> dict[str, Any]:
    """A finding as a JSON line holds it: its type, then every field of the findings contract."""
    return {"type": "finding", **f.model_dump(mode="json")}


def text_line(f: Finding) -> str:
    """A finding in one line for a terminal (text from the log escaped)."""
    at = moment(f)
    line = f"{f.path}:{f.line}: {f.severity} {f.rule} ({f.category}) {place(f)}" + (
        f", {at}" if at else ""
    )
    return for_terminal(f"{line}: {f.message}") + "\n"


def anomaly_line(a: LiveAnomaly) -> str:
    """An anomaly in one line for a terminal: what was measured, how improbable, where."""
    g = a.group
    return (
        for_terminal(
            f"{g.path}:{a.line}: anomaly {g.scope} {g.id} ({g.test}), p adjusted {a.p_adjusted:g} "
            f"at look {a.look}: {a.message}" + ("" if g.first_line is None else f"; {footage(g)}")
        )
        + "\n"
    )


def _jsonl(obj: dict[str, Any]) -> str:
    """One JSON line; a file name's byte that is not UTF-8 written ``\\xNN``, as the reports write
    it (UTF-8 cannot hold it)."""
    return undecodable_escaped(json.dumps(obj, ensure_ascii=False), backslash="\\\\") + "\n"


def key_of_object(obj: dict[str, Any]) -> Key:
    return (obj["line"], obj["rule"], obj["table"], obj["round"])


class Output:
    """Standard output, or a file written at its end (created if need be)."""

    def __init__(self, path: str | None):
        self.path = path
        if path is None:
            self.fd = sys.stdout.fileno()
            sys.stdout.flush()
        else:
            try:
                self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
            except OSError as err:
                raise EmitError(f"{path}: cannot write: {err.strerror or err}") from None

    @property
    def size(self) -> int | None:
        """The output file's length (None: standard output)."""
        return None if self.path is None else os.fstat(self.fd).st_size

    def write(self, text: str) -> None:
        data = text.encode("utf-8")
        try:
            while data:
                data = data[os.write(self.fd, data) :]
        except BrokenPipeError:
            raise EmitError("standard output: the reader went away") from None
        except OSError as err:
            raise EmitError(
                f"{self.path or 'standard output'}: cannot write: {err.strerror or err}"
            ) from None

    def close(self) -> None:
        if self.path is not None:
            os.close(self.fd)


def recover(path: str, size: int) -> tuple[dict[str, list[Key]], list[tuple]]:
    """The findings an earlier follow wrote to the JSON lines file ``path`` past ``size`` (where its
    state last recorded it), by the file they are of, and its anomalies (path, scope, id, test);
    a last line cut short is removed."""
    try:
        with open(path, "rb+") as out:
            out.seek(size)
            tail = out.read()
            end = tail.rfind(b"\n") + 1
            if end < len(tail):
                out.truncate(size + end)
    except FileNotFoundError:
        return {}, []
    found: dict[str, list[Key]] = {}
    anomalies: list[tuple] = []
    for raw in tail[:end].splitlines():
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if isinstance(obj, dict) and obj.get("type") == "finding":
            found.setdefault(obj["path"], []).append(key_of_object(obj))
        elif isinstance(obj, dict) and obj.get("type") == "anomaly":
            anomalies.append((obj["path"], obj["scope"], obj["id"], obj["test"]))
    return found, anomalies


class Alert:
    """A command run for each finding at or above a severity, the finding as JSON on its standard
    input; never through a shell (its words are split as a shell would, nothing is expanded).
    It runs beside the follow, which never waits for it; a command that failed is told on
    standard error."""

    def __init__(self, command: str, severity: str, warn: Callable[[str], None]):
        try:
            self.argv = shlex.split(command)
        except ValueError as err:
            raise EmitError(f"--alert-command: {err}") from None
        if not self.argv:
            raise EmitError("--alert-command is empty")
        if shutil.which(self.argv[0]) is None:
            raise EmitError(f"--alert-command: {self.argv[0]}: no such command")
        self.rank = SEVERITY_RANK[severity]
        self.warn = warn
        self.running: list[subprocess.Popen] = []

    def __call__(self, f: Finding, obj: dict[str, Any]) -> None:
        if SEVERITY_RANK[f.severity] >= self.rank:
            self._run(obj)

    def anomaly(self, obj: dict[str, Any]) -> None:
        """An anomaly is told whatever the severity asked (it has none)."""
        self._run(obj)

    def _run(self, obj: dict[str, Any]) -> None:
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
        except OSError as err:
            self.warn(f"--alert-command: {self.argv[0]}: cannot run: {err.strerror or err}")
            return
        try:
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(obj).encode("utf-8") + b"\n")
            proc.stdin.close()
        except OSError:
            pass  # a command that does not read its input
        self.running.append(proc)
        self.reap()

    def reap(self, wait: bool = False) -> None:
        still = []
        for proc in self.running:
            code = proc.wait() if wait else proc.poll()
            if code is None:
                still.append(proc)
            elif code != 0:
                self.warn(f"--alert-command: {self.argv[0]} exited with status {code}")
        self.running = still


class Emitter:
    """The findings and heartbeats, written as asked; ``written`` is called after each finding."""

    def __init__(
        self,
        output: Output,
        format: str,
        alert: Alert | None = None,
        keeps: Callable[[Finding], bool] = lambda f: True,
    ):
        self.output, self.format, self.alert, self.keeps = output, format, alert, keeps
        self.count = 0
        self.anomalies = 0
        self.by_severity: dict[str, int] = {}
        self.written: Callable[[], None] = lambda: None
        #: the live page's board (``--serve``), told of each finding and anomaly written
        self.board: Board | None = None

    def finding(self, path: str, f: Finding) -> None:
        if not self.keeps(f):
            return
        obj = finding_object(f)
        self.output.write(_jsonl(obj) if self.format == "jsonl" else text_line(f))
        self.count += 1
        self.by_severity[f.severity] = self.by_severity.get(f.severity, 0) + 1
        self.written()
        if self.board is not None:
            self.board.finding(f)
        if self.alert is not None:
            self.alert(f, obj)

    def anomaly(self, a: LiveAnomaly) -> None:
        """A statistics' anomaly (never filtered by ``--select``: it is not a finding), alerted too."""
        obj = a.as_object()
        self.output.write(_jsonl(obj) if self.format == "jsonl" else anomaly_line(a))
        self.anomalies += 1
        self.written()
        if self.board is not None:
            self.board.anomaly(a)
        if self.alert is not None:
            self.alert.anomaly(obj)

    def status(self, **fields: Any) -> None:
        """A heartbeat (JSON lines only): the follow is alive, and how far it is."""
        if self.format == "jsonl":
            now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
            self.output.write(json.dumps({"type": "status", "time": now, **fields}) + "\n")
