#!/usr/bin/env python3
"""The fuzz run of what surrounds a log (issue 15): file names, folder trees, configuration,
output files, interruption and the history store, each drawn at random and given to ``audit`` as
a user would.

    python3 fuzz/surroundings.py --cases 200 [--seed S] [--kinds names,trees,...] [--report FILE]

Six kinds of case, in turn:

- ``names``: a log saved under a random name (bytes that are not UTF-8, bidi and zero-width
  characters, control characters, spaces, a leading dash), audited by name and in its folder;
  the report names it as docs/report.md says (``\\xNN`` for a byte that is not UTF-8), every
  report is valid UTF-8, and no character that does not print reaches the text report raw;
- ``trees``: a random folder tree of logs, other files, links (to logs, to folders, broken),
  FIFOs and sockets; the audit reads exactly the regular logs the fuzzer's own model of the
  walk finds, or, when the tree holds a path that cannot be read, exits 2 naming every one;
- ``config``: an ``audit.toml`` with random keys and values (known keys with wrong types,
  unknown keys, tables, control and bidi characters); the audit runs or exits 2 with one
  escaped ``audit:`` line, never a traceback;
- ``outputs``: random ``-o`` targets beside previous reports (the input itself, a missing
  folder, a folder, two formats to one file, a link); on exit 2 every previous file is as it
  was, otherwise each report is whole; no temporary file is left;
- ``interrupt``: an audit reading a FIFO stopped by SIGINT or SIGTERM after a random part of a
  night: exit 130, one ``audit: interrupted`` line, the previous report intact, nothing left;
- ``store``: a recorded history store with one cell set to a value of any type SQLite keeps
  (the store is the audited party's): ``history verify`` says whether it changed, a view and
  ``check --store`` never fail with a traceback or an internal error, and the check's report is
  always written (a store that cannot be opened, or whose month cannot be read, then exit 2).

Every check is a property of the case; a case that breaks one is kept (``--keep``) and named.
Exit status: 0 no violation, 1 otherwise, 2 usage error.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
THREE = ROOT / "fixtures" / "acceptance" / "three-breaches.del"
NIGHT = ROOT / "fixtures" / "nights" / "mixed-night.del"
KINDS = ("names", "trees", "config", "outputs", "interrupt", "store")
LOG_SUFFIXES = (".del", ".log", ".del.gz", ".log.gz")
#: characters a hostile name or key is made of, beside plain letters
NASTY = [
    "\u202e",
    "\u2066",
    "\u2069",
    "\u200b",
    "\u2028",
    "\x1b[2J",
    "\t",
    " ",
    "\r",
    "é",
    "-",
    "\\xe9",
    "'",
    '"',
]
OLD = "the previous report\n"


class Violation(Exception):
    """A property a case broke."""


def audit(args: list[str], cwd: Path, timeout: float = 120, **popen) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "audit", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=timeout,
        **popen,
    )


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise Violation(what)


def no_traceback(done: subprocess.CompletedProcess, besides: str | None = None) -> None:
    """No traceback, a known exit status, exit 2 with one ``audit:`` line (``besides``: the start of
    a line that is no error's, such as the recording line of ``--store``)."""
    err = done.stderr if isinstance(done.stderr, str) else done.stderr.decode("utf-8", "replace")
    if besides is not None:
        err = "".join(line for line in err.splitlines(True) if not line.startswith(besides))
    expect(
        "Traceback" not in err and "internal error" not in err,
        f"a traceback or internal error: {err[-500:]}",
    )
    expect(done.returncode in (0, 1, 2), f"exit status {done.returncode}")
    if done.returncode == 2:
        lines = err.splitlines()
        expect(
            len(lines) == 1 and lines[0].startswith("audit: "),
            f"exit 2 without one audit: line: {err!r}",
        )


def printable_only(text: str, where: str) -> None:
    """Nothing from outside reaches a terminal raw: every character prints, or is a line feed."""
    bad = {c for c in text if not c.isprintable() and c != "\n"}
    expect(not bad, f"{where}: characters that do not print, unescaped: {sorted(map(repr, bad))}")


def escaped_name(raw: bytes) -> str:
    """A file name as the reports write it: UTF-8 as is, each other byte ``\\xNN``."""
    text = os.fsdecode(raw)
    return "".join(f"\\x{ord(c) - 0xDC00:02x}" if 0xDC80 <= ord(c) <= 0xDCFF else c for c in text)


# -- names --------------------------------------------------------------------------------------


def random_name(rng: random.Random) -> bytes:
    parts: list[bytes] = []
    for _ in range(rng.randint(1, 5)):
        choice = rng.random()
        if choice < 0.3:
            parts.append(rng.choice(NASTY).encode("utf-8"))
        elif choice < 0.5:
            parts.append(bytes([rng.randint(0x80, 0xFF)]))  # not UTF-8 alone
        else:
            parts.append(
                "".join(rng.choice("abcXYZ019_.") for _ in range(rng.randint(1, 6))).encode()
            )
    name = b"".join(parts).replace(b"/", b"_").replace(b"\x00", b"_")
    return name + rng.choice([b".del", b".log"])


def case_names(rng: random.Random, tmp: Path) -> str:
    raw = random_name(rng)
    folder = tmp / "logs"
    folder.mkdir()
    path = os.path.join(os.fsencode(folder), raw)
    with open(path, "wb") as out:
        out.write(THREE.read_bytes())
    shown = escaped_name(os.path.join(b"logs", raw))
    for target in ([os.fsdecode(os.path.join(b"logs", raw))], ["logs"]):
        done = audit(["check", "-f", "json", *target], tmp)
        no_traceback(done)
        expect(done.returncode == 1, f"exit {done.returncode} for a log with three breaches")
        report = json.loads(done.stdout.decode("utf-8"))  # valid UTF-8, or this raises
        expect(
            [i["path"] for i in report["inputs"]] == [shown],
            f"named {report['inputs'][0]['path']!r}, not {shown!r}",
        )
        text = audit(["check", *target], tmp)
        printable_only(text.stdout.decode("utf-8"), "text report")
        sarif = audit(["check", "-f", "sarif", *target], tmp)
        json.loads(sarif.stdout.decode("utf-8"))
    return "named"


# -- trees --------------------------------------------------------------------------------------


def case_trees(rng: random.Random, tmp: Path) -> str:
    top = tmp / "night"
    top.mkdir()
    folders = [top]
    logs: list[Path] = []  # what the walk must read (the model)
    problems: list[Path] = []  # what it must name
    listener: list[socket.socket] = []
    try:
        for n in range(rng.randint(1, 14)):
            where = rng.choice(folders)
            kind = rng.choices(
                [
                    "log",
                    "other",
                    "folder",
                    "link-log",
                    "link-folder",
                    "broken",
                    "fifo",
                    "socket",
                    "gz",
                ],
                [6, 2, 3, 1, 1, 1, 1, 1, 1],
            )[0]
            name = f"f{n}" + (
                "" if kind in ("folder", "link-folder", "other") else rng.choice(LOG_SUFFIXES[:2])
            )
            path = where / name
            if kind == "log":
                path.write_bytes(THREE.read_bytes())
                logs.append(path)
            elif kind == "gz":
                import gzip

                path = where / f"f{n}.del.gz"
                path.write_bytes(gzip.compress(THREE.read_bytes(), mtime=0))
                logs.append(path)
            elif kind == "other":
                (where / f"f{n}.txt").write_text("not a log")
            elif kind == "folder":
                path.mkdir()
                folders.append(path)
            elif kind == "link-log" and logs:
                path.symlink_to(rng.choice(logs))
                logs.append(path)
            elif kind == "link-folder":
                path.symlink_to(
                    rng.choice(folders)
                )  # not walked: its logs are not read twice, nor looped
            elif kind == "broken":
                path.symlink_to(where / "nowhere")
                problems.append(path)
            elif kind == "fifo":
                os.mkfifo(path)
                problems.append(path)
            elif kind == "socket":
                sock = socket.socket(socket.AF_UNIX)
                try:
                    sock.bind(str(path))
                except OSError:  # a path too long for a socket
                    sock.close()
                    continue
                listener.append(sock)
                problems.append(path)
        done = audit(["check", "-f", "json", "night"], tmp)
    finally:
        for sock in listener:
            sock.close()
    no_traceback(done)
    if problems:
        expect(
            done.returncode == 2,
            f"exit {done.returncode}, yet {len(problems)} paths cannot be read",
        )
        err = done.stderr.decode("utf-8")
        for path in problems:
            expect(str(path.relative_to(tmp)) in err, f"{path.name} not named: {err}")
        return "refused"
    if not logs:
        expect(
            done.returncode == 2 and b"holds no log" in done.stderr,
            "a tree without logs is not refused",
        )
        return "no log"
    report = json.loads(done.stdout)
    read = sorted(i["path"] for i in report["inputs"])
    expect(
        read == sorted(str(p.relative_to(tmp)) for p in logs), f"read {read}, the tree holds {logs}"
    )
    return "read"


# -- config -------------------------------------------------------------------------------------


def toml_value(rng: random.Random, depth: int = 0) -> str:
    pick = rng.randint(0, 7 if depth < 2 else 4)
    if pick == 0:
        return str(rng.randint(-5, 10**6))
    if pick == 1:
        return rng.choice(["true", "false", "3.5", "1979-05-27"])
    if pick in (2, 3):
        return json.dumps(
            rng.choice(
                [
                    "error",
                    "warning",
                    "info",
                    "json",
                    "DEL-SYNTAX",
                    "syntax",
                    "nowhere",
                    "",
                    "rulesets",
                    "../..",
                    "local:2",
                    "tcp://x:1",
                ]
            )
            + rng.choice(["", *NASTY])
        )
    if pick == 4:
        return json.dumps("".join(rng.choice(NASTY + ["a", "b"]) for _ in range(rng.randint(0, 4))))
    if pick == 5:
        return "[" + ", ".join(toml_value(rng, depth + 1) for _ in range(rng.randint(0, 3))) + "]"
    return (
        "{"
        + ", ".join(
            f"{toml_key(rng)} = {toml_value(rng, depth + 1)}" for _ in range(rng.randint(0, 2))
        )
        + "}"
    )


def toml_key(rng: random.Random) -> str:
    known = [
        "rulesets",
        "baseline",
        "fail-on",
        "reports",
        "select",
        "ignore",
        "cluster",
        "house",
        "format",
        "output",
    ]
    key = (
        rng.choice(known)
        if rng.random() < 0.7
        else "k" + rng.choice(NASTY) + str(rng.randint(0, 9))
    )
    return key if key.replace("-", "").isalnum() else json.dumps(key)


#: settings a valid configuration is drawn from, key by key
VALID = {
    "fail-on": ['"error"', '"warning"', '"info"'],
    "ignore": ["[]", '["DEL-TIME-ORDER"]', '["syntax", "FR-"]'],
    "select": ['["FR-"]', '["late-bet", "DEL-SYNTAX"]'],
    "reports": [
        '[{format = "json", output = "report.json"}, {format = "text"}]',
        '[{format = "sarif"}]',
        '[{format = "junit", output = "r.xml"}]',
    ],
    "house": ['{"BAT-*" = "house.yaml"}'],
}


def case_config(rng: random.Random, tmp: Path) -> str:
    shutil.copy(THREE, tmp / "night.del")
    valid = rng.random() < 0.5
    if valid:  # known keys, good values: the audit must run
        lines = [
            f"{key} = {rng.choice(VALID[key])}"
            for key in rng.sample(sorted(VALID), rng.randint(1, 3))
        ]
        shutil.copy(ROOT / "rulesets" / "house" / "casino-exemple-fr.yaml", tmp / "house.yaml")
    else:
        lines = [f"{toml_key(rng)} = {toml_value(rng)}" for _ in range(rng.randint(1, 4))]
        if rng.random() < 0.3:
            lines.append(f"[{toml_key(rng)}]\n{toml_key(rng)} = {toml_value(rng)}")
    (tmp / "audit.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = audit(["check", "night.del"], tmp, timeout=60, stdin=subprocess.DEVNULL)
    no_traceback(done)
    expect(
        not valid or done.returncode in (0, 1),
        f"a valid configuration refused: {lines}: {done.stderr[-300:]!r}",
    )
    printable_only(done.stderr.decode("utf-8"), "message")
    if done.returncode != 2:
        printable_only(done.stdout.decode("utf-8", "replace"), "report")
    return f"exit {done.returncode}"


# -- outputs ------------------------------------------------------------------------------------


def snapshot(tmp: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(tmp)): p.read_bytes()
        for p in sorted(tmp.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def case_outputs(rng: random.Random, tmp: Path) -> str:
    (tmp / "logs").mkdir()
    shutil.copy(THREE, tmp / "logs" / "night.del")
    for name in ("a.json", "b.sarif", "c.txt"):
        (tmp / name).write_text(OLD, encoding="utf-8")
    (tmp / "folder").mkdir()
    (tmp / "link.json").symlink_to(tmp / "a.json")
    targets = [
        "a.json",
        "b.sarif",
        "c.txt",
        "new.json",
        "logs/night.del",
        "logs/../logs/night.del",
        "missing/x.json",
        "folder",
        "link.json",
        "logs/new.xml",
    ]
    formats = ["json", "sarif", "junit", "text"]
    args = ["check"]
    outs = []
    for _ in range(rng.randint(1, 3)):
        fmt, target = rng.choice(formats), rng.choice(targets)
        args += ["-f", fmt, "-o", target]
        outs.append(target)
    args.append(rng.choice(["logs/night.del", "logs"]))
    before = snapshot(tmp)
    done = audit(args, tmp)
    no_traceback(done)
    after = snapshot(tmp)
    expect(not [p for p in after if p.endswith(".part")], f"temporary files left: {list(after)}")
    if done.returncode == 2:
        expect(
            after == before,
            f"exit 2 yet files changed: {sorted(set(after.items()) ^ set(before.items()))[:3]}",
        )
        return "refused"
    expect(after["logs/night.del"] == THREE.read_bytes(), "the log was overwritten")
    for target in outs:
        body = (tmp / target).read_bytes()
        expect(body != OLD.encode() and body, f"{target} not written")
    return "written"


# -- interrupt ----------------------------------------------------------------------------------


def case_interrupt(rng: random.Random, tmp: Path) -> str:
    (tmp / "report.json").write_text(OLD, encoding="utf-8")
    fifo = tmp / "night.del"
    os.mkfifo(fifo)
    night = NIGHT.read_bytes()
    cut = rng.randint(0, len(night))
    signum = rng.choice([signal.SIGINT, signal.SIGTERM])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "audit", "check", "-f", "json", "-o", "report.json", "night.del"],
        cwd=tmp,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    writer = os.open(fifo, os.O_WRONLY)  # returns once the audit reads it
    try:
        os.write(writer, night[:cut])
        time.sleep(rng.random() * 0.2)
        proc.send_signal(signum)
    finally:
        os.close(writer)
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise Violation("the interrupted audit did not end") from None
    expect(
        (proc.returncode, err, out) == (130, b"audit: interrupted\n", b""),
        f"exit {proc.returncode}, stderr {err[-300:]!r}",
    )
    expect(
        (tmp / "report.json").read_text(encoding="utf-8") == OLD, "the previous report was replaced"
    )
    expect(
        sorted(p.name for p in tmp.iterdir()) == ["night.del", "report.json"],
        f"left: {list(tmp.iterdir())}",
    )
    return signal.Signals(signum).name


# -- store --------------------------------------------------------------------------------------

#: the history views a case reads (verify and check run in every case)
VIEWS = ("nights", "tables", "compare", "dealers", "rules", "anomalies")
#: the tables a recording writes (schema version aside), and where a recorded night lies
STORE_TABLES = (
    "audit_input",
    "audit_table_night",
    "audit_dealer_night",
    "audit_finding",
    "audit_stat_group",
)
#: the nights of the base store: a night's every kind of group, and findings
STORE_NIGHTS = (ROOT / "fixtures" / "nights" / "example-night.del", THREE)
#: a recorded store, made once a run (``base_store``)
_BASE: list[Path] = []


def base_store() -> Path:
    """A store with two nights recorded (findings, dealers, every kind of group), made once."""
    if not _BASE:
        folder = Path(tempfile.mkdtemp(prefix="surroundings-store-"))
        atexit.register(shutil.rmtree, folder, True)
        for night in STORE_NIGHTS:
            done = audit(["check", "-q", "--store", "base.sqlite", str(night)], folder)
            if done.returncode not in (0, 1):  # the fuzzer's own set-up, not a case's violation
                raise RuntimeError(f"could not record the base store: {done.stderr!r}")
        _BASE.append(folder / "base.sqlite")
    return _BASE[0]


def hostile_value(rng: random.Random) -> object:
    """A value of any type SQLite keeps, some of the right type but no recording's."""
    return rng.choice(
        [
            lambda: bytes(rng.randrange(256) for _ in range(rng.randint(0, 4))),
            lambda: "".join(
                rng.choice(NASTY + ["x", "+", "1", "."]) for _ in range(rng.randint(0, 5))
            ),
            lambda: rng.choice([0, 1, -1, 7, 2**31, -(2**62), 2**63 - 1]),
            lambda: rng.choice([0.5, -1e308, 1e308, float("inf"), float("-inf"), float("nan")]),
            lambda: rng.choice(
                ["12.34", "-0.01", "1e9", "NaN", "2026-02-30", "2026-11-20", "DX+P"]
            ),
            lambda: None,
        ]
    )()


def case_store(rng: random.Random, tmp: Path) -> str:
    import sqlite3

    store = tmp / "h.sqlite"
    shutil.copy(base_store(), store)
    if rng.random() < 0.15:
        return _store_broken(rng, tmp, store)
    table = rng.choice(STORE_TABLES)
    value = hostile_value(rng)
    with contextlib.closing(sqlite3.connect(store)) as db:
        columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})") if row[1] != "id"]
        column = rng.choice(columns)
        ids = [row[0] for row in db.execute(f"SELECT id FROM {table}")]
        row = rng.choice(ids)
        (before,) = db.execute(f"SELECT {column} FROM {table} WHERE id = ?", (row,)).fetchone()
        try:
            with db:
                db.execute(f"UPDATE {table} SET {column} = ? WHERE id = ?", (value, row))
        except sqlite3.Error:
            return "refused by SQLite (a constraint)"
        (after,) = db.execute(f"SELECT {column} FROM {table} WHERE id = ?", (row,)).fetchone()
    changed = (type(before), repr(before)) != (type(after), repr(after))
    where = f"{table}.{column} of row {row} := {after!r}"
    verify = audit(["history", "verify", "--store", "h.sqlite", "-f", "json"], tmp, timeout=60)
    no_traceback(verify)
    expect(
        verify.returncode == (1 if changed else 0),
        f"{where}: verify exit {verify.returncode}, the value {'changed' if changed else 'as it was'}",
    )
    view = rng.choice(VIEWS)
    shown = audit(
        ["history", view, "--store", "h.sqlite", "-f", rng.choice(["text", "json", "csv"])],
        tmp,
        timeout=60,
    )
    no_traceback(shown)
    printable_only(shown.stderr.decode("utf-8"), f"{where}: history {view}'s message")
    night = tmp / "night.del"
    shutil.copy(NIGHT, night)
    check = audit(
        ["check", "-f", "json", "-o", "report.json", "--store", "h.sqlite", "night.del"],
        tmp,
        timeout=120,
    )
    no_traceback(check, besides="audit: recorded ")  # the recording line, then the error
    printable_only(check.stderr.decode("utf-8"), f"{where}: check's message")
    report = tmp / "report.json"
    expect(report.exists(), f"{where}: no report, and {check.stderr[-300:]!r}")
    stored = json.loads(report.read_text(encoding="utf-8"))["configuration"]["store"]
    troubled = stored["damaged"] is not None or stored["unopened"] is not None
    expect(
        not troubled or check.returncode == 2,
        f"{where}: a store that could not be used, and exit {check.returncode}",
    )
    said = (
        "store not opened"
        if stored["unopened"]
        else "damaged"
        if stored["damaged"]
        else f"exit {check.returncode}"
    )
    return f"{'changed' if changed else 'unchanged'}, view {'refused' if shown.returncode == 2 else 'read'}, check {said}"


def _store_broken(rng: random.Random, tmp: Path, store: Path) -> str:
    """The store broken as a whole: its schema version set to a hostile value, its header
    overwritten, the file cut short, or a FIFO in the place of a file of it (opening one to read
    waits for a writer). ``check --store`` still audits the night and writes its
    report, which says why the store was not used; the run ends with exit 2, and a store it could
    not open is left as it was."""
    import sqlite3

    how = rng.choice(["version", "header", "cut", "fifo"])
    if how == "fifo":  # a FIFO in the place of the database or of one of its journals
        end = rng.choice(["", "-journal", "-wal", "-shm"])
        fifo = store.with_name(store.name + end)
        fifo.unlink(missing_ok=True)
        os.mkfifo(fifo)
    elif how == "version":
        with contextlib.closing(sqlite3.connect(store)) as db, db:
            db.execute("UPDATE alembic_version SET version_num = ?", (hostile_value(rng),))
    elif how == "header":
        with store.open("r+b") as f:
            f.write(bytes(rng.randrange(256) for _ in range(rng.randint(1, 100))))
    else:
        with store.open("r+b") as f:
            f.truncate(rng.randrange(store.stat().st_size))
    before = _regular_files(store)
    verify = audit(["history", "verify", "--store", "h.sqlite"], tmp, timeout=60)
    no_traceback(verify)
    shutil.copy(NIGHT, tmp / "night.del")
    check = audit(
        ["check", "-f", "json", "-o", "report.json", "--store", "h.sqlite", "night.del"],
        tmp,
        timeout=120,
    )
    no_traceback(check, besides="audit: recorded ")
    printable_only(check.stderr.decode("utf-8"), f"store {how}: check's message")
    report = tmp / "report.json"
    expect(report.exists(), f"store {how}: no report, and {check.stderr[-300:]!r}")
    stored = json.loads(report.read_text(encoding="utf-8"))["configuration"]["store"]
    if stored["unopened"] is not None:
        expect(check.returncode == 2, f"store {how}: not opened, and exit {check.returncode}")
        expect(_regular_files(store) == before, f"store {how}: not opened, yet changed")
        return f"{how}: store not opened, report written"
    if stored["damaged"] is not None:
        expect(check.returncode == 2, f"store {how}: damaged, and exit {check.returncode}")
        return f"{how}: damaged, report written"
    return f"{how}: check exit {check.returncode}"


def _regular_files(store: Path) -> dict[str, bytes]:
    """The bytes of each regular file of a SQLite store (the database and its journals); a FIFO's
    are not read (that would wait for a writer)."""
    files = [store.with_name(store.name + end) for end in ("", "-journal", "-wal", "-shm")]
    return {f.name: f.read_bytes() for f in files if f.is_file()}


CASES = {
    "names": case_names,
    "trees": case_trees,
    "config": case_config,
    "outputs": case_outputs,
    "interrupt": case_interrupt,
    "store": case_store,
}


def run(cases: int, seed: int, kinds: tuple[str, ...] = KINDS, keep: Path | None = None) -> dict:
    """``cases`` cases of each kind, seeded; the summary (violations listed)."""
    outcomes: Counter[str] = Counter()
    violations: list[dict] = []
    started = time.monotonic()
    for n in range(cases):
        for kind in kinds:
            rng = random.Random(f"{seed}:{kind}:{n}")
            tmp = Path(tempfile.mkdtemp(prefix=f"surroundings-{kind}-"))
            try:
                outcomes[f"{kind}: {CASES[kind](rng, tmp)}"] += 1
            except (
                Violation,
                json.JSONDecodeError,
                UnicodeDecodeError,
                subprocess.TimeoutExpired,
            ) as err:
                kept = None
                if keep is not None:
                    kept = keep / tmp.name
                    shutil.copytree(
                        tmp,
                        kept,
                        symlinks=True,
                        ignore_dangling_symlinks=True,
                        ignore=lambda d, names: [x for x in names if not _copyable(Path(d) / x)],
                    )
                violations.append(
                    {
                        "kind": kind,
                        "case": n,
                        "seed": seed,
                        "what": str(err)[:800],
                        "kept": str(kept) if kept else None,
                    }
                )
            finally:
                _remove(tmp)
    return {
        "seed": seed,
        "cases": cases,
        "kinds": list(kinds),
        "outcomes": dict(sorted(outcomes.items())),
        "violations": violations,
        "seconds": round(time.monotonic() - started, 1),
    }


def _copyable(path: Path) -> bool:
    try:
        mode = path.lstat().st_mode
    except OSError:
        return False
    return stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)


def _remove(tmp: Path) -> None:
    for folder, dirs, _ in os.walk(tmp):
        for d in dirs:
            with contextlib.suppress(OSError, NotImplementedError):
                os.chmod(os.path.join(folder, d), 0o755, follow_symlinks=False)
    shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=50, help="cases of each kind")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--kinds", default=",".join(KINDS), help=f"some of {','.join(KINDS)}")
    ap.add_argument("--keep", type=Path, help="where to keep the cases that break a property")
    ap.add_argument("--report", type=Path, help="write the summary as JSON here")
    args = ap.parse_args(argv)
    kinds = tuple(k for k in args.kinds.split(",") if k)
    if not kinds or set(kinds) - set(KINDS) or args.cases < 1:
        ap.error(f"--kinds takes some of {','.join(KINDS)}; --cases at least 1")
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    summary = run(args.cases, args.seed, kinds, args.keep)
    text = json.dumps(summary, indent=2, ensure_ascii=False)
    print(text)
    if args.report is not None:
        args.report.write_text(text + "\n", encoding="utf-8")
    return 1 if summary["violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
