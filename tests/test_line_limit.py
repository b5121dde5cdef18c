"""A line longer than the auditor holds (1 MiB) is one syntax finding, read past in constant
memory, and the audit goes on (issue 15, item 4)."""

from __future__ import annotations

import gzip
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from audit.stream import inputs, replay

ROOT = Path(__file__).resolve().parent.parent
THREE = ROOT / "fixtures" / "acceptance" / "three-breaches.del"
MIB = 1 << 20
#: the bound on the auditor's peak memory whatever the input (docs/report.md)
PEAK_BOUND_MIB = 200
NEEDS_PROC = pytest.mark.skipif(
    not Path("/proc/self/status").is_file(), reason="reads the peak memory in /proc"
)


#: runs the auditor as ``python -m audit`` does, and writes its own peak memory (VmHWM, in KiB) to
#: the file $PEAK_FILE as it exits (the auditor ends with ``os._exit``): a child's ``ru_maxrss``
#: counts the memory of the process it was forked from (pytest's, here), this does not
LAUNCH = """
import os, runpy, sys
hard_exit = os._exit
def peak_then_exit(code):
    with open("/proc/self/status") as status, open(os.environ["PEAK_FILE"], "w") as out:
        out.write(next(line for line in status if line.startswith("VmHWM:")).split()[1])
    hard_exit(code)
os._exit = peak_then_exit
sys.argv[0] = "audit"
runpy.run_module("audit", run_name="__main__", alter_sys=True)
"""


def audit(*args: str, stdin=None) -> tuple[int, bytes, bytes, int]:
    """Run the auditor: status, output, error, and its own peak memory in MiB. Its address space
    is capped, so that a failure here is a failure, not a machine out of memory."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    with tempfile.TemporaryDirectory() as tmp:
        peak_file = Path(tmp) / "peak"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PEAK_FILE": str(peak_file)}
        done = subprocess.run(
            [sys.executable, "-c", LAUNCH, *args],
            cwd=ROOT,
            env=env,
            preexec_fn=cap,
            stdin=stdin,
            capture_output=True,
            timeout=300,
        )
        return done.returncode, done.stdout, done.stderr, int(peak_file.read_text()) // 1024


def with_long_line(length: int, at: int = 12) -> tuple[bytes, int]:
    """The three-breaches night with a NOTE of ``length`` bytes (its end not counted) put in as
    line ``at``: the log, and that line's number."""
    lines = THREE.read_bytes().splitlines(keepends=True)
    head = b'2026-11-20T21:14:03.000+01:00 BAT-07 NOTE text="'
    long = head + b"x" * (length - len(head) - 1) + b'"\n'
    return b"".join(lines[: at - 1] + [long] + lines[at - 1 :]), at


@NEEDS_PROC
def test_a_line_over_the_limit_is_one_finding_and_the_audit_goes_on(tmp_path):
    log, at = with_long_line(3 * MIB)
    plain = tmp_path / "long.del"
    plain.write_bytes(log)
    packed = tmp_path / "long.del.gz"
    packed.write_bytes(gzip.compress(log, mtime=0))
    for path in (plain, packed):
        status, out, err, peak = audit("check", "-f", "json", str(path))
        report = json.loads(out)
        assert status == 1 and b"Traceback" not in err, err
        too_long = [f for f in report["findings"] if f["rule"] == "DEL-SYNTAX"]
        assert [(f["line"], f["message"], f["actual"], f["time"]) for f in too_long] == [
            (
                at,
                f"{3 * MIB} bytes, longer than the 1048576 bytes (1 MiB) a line may hold; the line is not read",
                None,
                "2026-11-20T21:14:03.000+01:00",
            )
        ]
        # the breaches of the night after the long line are found as without it
        assert [f["rule"] for f in report["findings"] if f["rule"] != "DEL-SYNTAX"] == [
            "FR-LATE-BET",
            "FR-BURN-START",
            "FR-PAY-MAIN",
        ]
        (summary,) = report["inputs"]
        assert summary["lines"] == log.count(b"\n") and summary["accounting"]["syntax"] == 1
        assert sum(summary["accounting"].values()) == summary["lines"]
        assert peak < PEAK_BOUND_MIB, (path.name, peak)
    jobs = audit("check", "-f", "json", "--jobs", "2", str(plain))
    assert jobs[1] == audit("check", "-f", "json", str(plain))[1]


def test_a_line_of_the_limit_is_read():
    """1 MiB exactly is held; one byte more is not."""
    for length in (MIB, MIB + 1):
        log = b"# " + b"c" * (length - 2) + b"\n"
        seen = _FakeReplay()
        inputs.feed_lines(io.BufferedReader(io.BytesIO(log)), seen)  # type: ignore[arg-type]
        assert seen.lines == ([(1, log[:-1])] if length == MIB else [(1, ("too long", length))])


@NEEDS_PROC
@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gzip"])
def test_a_run_of_zeros_is_read_in_flat_memory(compressed, tmp_path):
    """``head -c 300M /dev/zero | audit check -``: one line of 300 MiB of NUL, never held; a gzip
    of zeros (a decompression bomb) the same."""
    size = 300 * MIB
    if compressed:
        bomb = tmp_path / "zeros.del.gz"
        with gzip.open(bomb, "wb", compresslevel=1) as out:
            zeros = bytes(MIB)
            for _ in range(size // MIB):
                out.write(zeros)
        status, out, err, peak = audit("check", "-f", "json", str(bomb))
    else:
        zeros = subprocess.Popen(["head", "-c", str(size), "/dev/zero"], stdout=subprocess.PIPE)
        try:
            status, out, err, peak = audit("check", "-f", "json", "-", stdin=zeros.stdout)
        finally:
            zeros.stdout.close()  # type: ignore[union-attr]
            zeros.wait()
    report = json.loads(out)
    assert status == 1 and b"Traceback" not in err, err
    (finding,) = report["findings"]
    assert finding["line"] == 1 and finding["message"].startswith(f"{size} bytes, longer than")
    assert report["inputs"][0]["lines"] == 1 and report["inputs"][0]["accounting"]["syntax"] == 1
    assert peak < PEAK_BOUND_MIB, peak


class _FakeReplay:
    """What ``feed_lines`` hands a replay: (number, line) or (number, ("too long", length))."""

    def __init__(self) -> None:
        self.lines: list[tuple[int, object]] = []

    def feed_chunk(self, lines: list[bytes], lineno: int) -> int:
        self.lines.extend(enumerate(lines, lineno + 1))
        return lineno + len(lines)

    def too_long(self, lineno: int, length: int, head: bytes) -> int:
        assert len(head) <= 64
        self.lines.append((lineno, ("too long", length)))
        return lineno


class _Trickle(io.RawIOBase):
    """A pipe that gives at most a few bytes at a time."""

    def __init__(self, data: bytes, sizes: list[int]):
        self.data, self.sizes, self.at, self.k = data, sizes, 0, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        n = min(len(buffer), self.sizes[self.k % len(self.sizes)])
        self.k += 1
        piece = self.data[self.at : self.at + n]
        buffer[: len(piece)] = piece
        self.at += len(piece)
        return len(piece)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.lists(
        st.one_of(st.binary(max_size=12), st.integers(0, 40).map(lambda n: b"a" * n)), max_size=12
    ),
    st.booleans(),
    st.integers(1, 9),
    st.integers(1, 12),
    st.lists(st.integers(1, 20), min_size=1, max_size=4),
    st.booleans(),
)
def test_lines_are_split_as_the_file_holds_them_whatever_the_chunks(
    parts, ends, limit, chunk, sizes, bom
):
    """Every line once, numbered in order, as ``bytes.split`` gives them (a last empty piece is no
    line); those over the limit as their length; whatever the chunk size and the pipe's pieces."""
    data = (inputs.BOM if bom else b"") + b"\n".join(parts) + (b"\n" if ends and parts else b"")
    body = data[len(inputs.BOM) :] if bom else data
    assume(bom or not data.startswith(inputs.BOM))  # a first part that is a BOM is one
    assume(
        all(inputs.foreign_encoding(body[:n]) is None for n in range(len(body) + 1))
    )  # (tests/test_encodings.py)
    pieces = body.split(b"\n")
    if pieces[-1] == b"" and (len(pieces) > 1 or not bom):  # (a BOM alone is a blank line, as ever)
        pieces.pop()
    expected = [
        (n, line if len(line) <= limit else ("too long", len(line)))
        for n, line in enumerate(pieces, 1)
    ]
    old = inputs.MAX_LINE_BYTES, inputs.CHUNK_BYTES
    inputs.MAX_LINE_BYTES, inputs.CHUNK_BYTES = limit, max(chunk, 1)
    try:
        if limit + 1 < inputs.CHUNK_BYTES:
            inputs.CHUNK_BYTES = (
                limit + 1
            )  # the reader's own bound: a chunk is never longer than the limit
        for stream in (
            io.BufferedReader(io.BytesIO(data), buffer_size=8),
            io.BufferedReader(_Trickle(data, sizes)),
        ):
            seen = _FakeReplay()
            ticks: list[int] = []
            inputs.feed_lines(stream, seen, ticks.append)  # type: ignore[arg-type]
            assert seen.lines == expected
            assert sum(ticks) == len(data)
    finally:
        inputs.MAX_LINE_BYTES, inputs.CHUNK_BYTES = old


def test_the_limit_and_the_chunk_agree():
    """No line but a chunk's first can be over the limit only because no chunk is longer."""
    assert (
        inputs.CHUNK_BYTES <= inputs.MAX_LINE_BYTES + 1
        and inputs.MAX_LINE_BYTES == replay.MAX_LINE_BYTES == MIB
    )
