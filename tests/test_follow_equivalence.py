"""audit follow finds what audit check finds: a log written in pieces of any size, lines cut
anywhere, followed to its end, gives the findings of the complete log (rule, line, table, round)."""

from __future__ import annotations

import os
import tempfile
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.follow.tail import Follower
from audit.rulesets import Library
from audit.run import run_audit
from audit.simulate import cli_tables, simulate
from audit.simulate.night import EXAMPLE_START
from fixtures import read_fixture, rule_fixtures

FIXTURES = rule_fixtures()


@cache
def library(house: tuple[Path, ...] = ()) -> Library:
    return Library.load(overlays=list(house)) if house else Library.load()


@cache
def night(seed: int) -> bytes:
    tables = cli_tables(["fr-bataille-2007", "be-ostende-cdf"], 2, 30)
    return "".join(
        line + "\n" for line in simulate(tables=tables, seed=seed, start=EXAMPLE_START)
    ).encode()


def keys(findings) -> list[tuple]:
    return sorted(
        (f.rule, f.line, f.table or "", -1 if f.round is None else f.round) for f in findings
    )


def checked(lib: Library, path: str) -> list[tuple]:
    return keys(run_audit(lib, [path]).findings)


def followed(lib: Library, path: str, data: bytes, cuts: list[int]) -> list[tuple]:
    """``data`` appended to ``path`` in the pieces ``cuts`` gives (each looked at as it lands), then complete."""
    found = []
    follower = Follower(lib, [path], lambda p, f: found.append(f))
    with open(path, "ab", buffering=0) as out:
        at = 0
        for size in cuts:
            if at >= len(data):
                break
            out.write(data[at : at + size])
            at += size
            follower.poll()
        out.write(data[at:])
    follower.poll()
    follower.finish()
    follower.close()
    return keys(found)


def compare(lib: Library, data: bytes, cuts: list[int]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "live.del").as_posix()
        open(path, "wb").close()
        got = followed(lib, path, data, cuts)
        assert got == checked(lib, path)


SOURCES = [("fixture", i) for i in range(len(FIXTURES))] + [("night", seed) for seed in (1, 2, 3)]


@settings(max_examples=70, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    source=st.sampled_from(SOURCES),
    cuts=st.lists(st.integers(1, 700), min_size=1, max_size=60),
    data=st.data(),
)
def test_follow_finds_what_check_finds(source, cuts, data):
    kind, which = source
    if kind == "fixture":
        fx = read_fixture(FIXTURES[which])
        lib, content = library(tuple(fx.house)), FIXTURES[which].read_bytes()
    else:
        lib, content = library(), night(which)
        # a night is long: its pieces are larger, some cut at random points
        cuts = [c * data.draw(st.integers(1, 40)) for c in cuts]
    compare(lib, content, cuts)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_every_rule_fixture_followed_byte_by_byte_groups(path):
    """Every rule fixture, in pieces of 37 bytes (lines cut everywhere)."""
    fx = read_fixture(path)
    compare(library(tuple(fx.house)), path.read_bytes(), [37] * (path.stat().st_size // 37 + 1))


@pytest.mark.parametrize(
    "content",
    [
        b"",  # empty: one finding, as audit check
        b"\xef\xbb\xbf",  # a byte-order mark alone
        b"\xef\xbb\xbf#DEL 1\n",
        b"#DEL 1\n2026-11-20T21:00:00.000+01:00 T1 OPEN",  # a last line without its end
        "#DEL 1\n".encode("utf-16"),  # another encoding
        b"#DEL 1\n"
        + b"x" * ((1 << 20) + 10)
        + b"\n2026-11-20T21:00:00Z T1 OPEN game=bataille ruleset=fr-bataille-2007\n",
        b"#DEL 1\n" + b"x" * ((1 << 20) + 10),  # a line over the limit, at the end
        b"#DEL 1\n\xff\xfe bad\n",  # not UTF-8
        b"#DEL 2\n2026-11-20T21:00:00Z T1 OPEN\n",  # another version
    ],
    ids=[
        "empty",
        "bom-alone",
        "bom",
        "unended",
        "utf-16",
        "long-line",
        "long-last-line",
        "not-utf8",
        "del-2",
    ],
)
@pytest.mark.parametrize("piece", [1, 5, 4096, 1 << 21])
def test_edge_files(content, piece):
    if piece < 4096 and len(content) > 10000:  # (a long line in small pieces: slow, nothing more)
        piece = 3001
    compare(library(), content, [piece] * (len(content) // piece + 1))


def test_a_line_being_written_is_not_read_before_its_end(tmp_path):
    """Half a line is not a syntax finding: it waits for its line end."""
    lib = library()
    path = (tmp_path / "t.del").as_posix()
    found = []
    follower = Follower(lib, [path], lambda p, f: found.append(f))
    head = b"".join(night(1).splitlines(keepends=True)[:4])  # the headers and the first OPEN
    with open(path, "wb", buffering=0) as out:
        out.write(head[:-20])
        follower.poll()
        assert found == [] and follower.files[path].lineno == 3
        out.write(head[-20:])
        follower.poll()
    assert found == [] and follower.files[path].lineno == 4
    follower.finish()
    assert {f.line for f in found} == {4}  # the table is left open at the end: line 4, now the last


def test_a_finding_is_reported_when_its_line_is_read(tmp_path):
    """A syntax finding at line 2 is reported by the look that reads line 2, the file still open."""
    lib = library()
    path = (tmp_path / "t.del").as_posix()
    found = []
    follower = Follower(lib, [path], lambda p, f: found.append(f))
    with open(path, "wb", buffering=0) as out:
        out.write(b"#DEL 1\nthis is not an event\n")
        follower.poll()
        assert [(f.line, f.category) for f in found] == [(2, "syntax")]


def test_rotation_reads_the_old_file_to_its_end_then_the_new_from_its_start(tmp_path):
    lib = library()
    data = night(1)
    half = data.index(b"\n", len(data) // 2) + 1
    path = tmp_path / "t.del"
    found = []
    follower = Follower(lib, [path.as_posix()], lambda p, f: found.append(f))
    path.write_bytes(data[: half // 2])
    follower.poll()
    with open(path, "ab") as out:  # the writer goes on before the rotation is seen
        out.write(data[half // 2 : half])
    os.rename(path, tmp_path / "t.del.1")
    path.write_bytes(data[half:])  # a new file at the path: another inode
    follower.poll()
    follower.finish()
    old, new = tmp_path / "old.del", tmp_path / "new.del"
    old.write_bytes(data[:half])
    new.write_bytes(data[half:])
    expected = keys(run_audit(lib, [old.as_posix()]).findings) + keys(
        run_audit(lib, [new.as_posix()]).findings
    )
    assert keys(found) == sorted(expected)
    assert all(f.path == path.as_posix() for f in found)


def test_truncation_reads_the_file_again_from_its_start(tmp_path):
    lib = library()
    data = night(2)
    path = tmp_path / "t.del"
    found = []
    follower = Follower(lib, [path.as_posix()], lambda p, f: found.append(f))
    path.write_bytes(data[:5000])
    follower.poll()
    first = len(found)
    with open(path, "r+b") as out:  # truncated in place (the inode stays), then written again
        out.truncate(0)
    follower.poll()
    path.write_bytes(data)
    follower.poll()
    follower.finish()
    part = tmp_path / "part.del"
    part.write_bytes(data[:5000])
    expected = keys(run_audit(lib, [part.as_posix()]).findings) + checked(lib, path.as_posix())
    assert first > 0 or keys(found) == sorted(expected)
    assert keys(found) == sorted(expected)


def test_a_new_log_in_a_followed_folder_is_followed(tmp_path):
    lib = library()
    found = []
    follower = Follower(lib, [tmp_path.as_posix()], lambda p, f: found.append(f))
    follower.poll()
    (tmp_path / "ignored.txt").write_bytes(b"not a log\n")
    (tmp_path / "night").mkdir()
    log = tmp_path / "night" / "FR-01.del"
    log.write_bytes(b"#DEL 1\nnot an event\n")
    follower.poll()
    assert [(f.path, f.line) for f in found] == [(log.as_posix(), 2)]


def test_memory_does_not_grow_with_the_length_of_the_log(tmp_path, monkeypatch):
    """A night eight times longer, followed in pieces, peaks at about the same memory; the findings
    reported are handed on, not kept. (The line parser's caches, bounded, are those of audit check:
    made small here, so that both nights fill them.)"""
    import tracemalloc

    from audit.parse import LineParser
    from audit.stream import replay

    monkeypatch.setattr(replay._PARSERS, "parser", LineParser(max_cached=100), raising=False)

    def peak(rounds: int, name: str) -> int:
        tables = cli_tables(["fr-bataille-2007", "be-ostende-cdf"], 2, rounds)
        data = "".join(
            line + "\n" for line in simulate(tables=tables, seed=1, start=EXAMPLE_START)
        ).encode()
        data += b"garbled\n" * 50  # findings too
        path = (tmp_path / name).as_posix()
        found = []
        follower = Follower(library(), [path], lambda p, f: found.append(f.line))
        tracemalloc.start()
        with open(path, "ab", buffering=0) as out:
            for at in range(0, len(data), 4000):
                out.write(data[at : at + 4000])
                follower.poll()
        high = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert len(found) == 50 and len(follower.files[path].replay.findings) == 0
        return high

    peak(20, "warm.del")  # the parser's caches and the rulesets' lazy parts, once
    short, long = peak(50, "short.del"), peak(400, "long.del")
    assert long < short * 1.5, (short, long)


def test_a_log_in_a_folder_that_cannot_be_read_is_left_out_and_named(tmp_path):
    if os.geteuid() == 0:
        bad = tmp_path / "fifo.del"  # root reads any file: a FIFO is what cannot be followed
        os.mkfifo(bad)
    else:
        bad = tmp_path / "locked.del"
        bad.write_bytes(b"#DEL 1\n")
        bad.chmod(0)
    good = tmp_path / "good.del"
    good.write_bytes(b"#DEL 1\nnot an event\n")
    told, found = [], []
    follower = Follower(
        library(), [tmp_path.as_posix()], lambda p, f: found.append(f), warn=told.append
    )
    follower.poll()
    follower.poll()
    assert [f.path for f in found] == [good.as_posix()]
    assert len(told) == 1 and told[0].startswith(bad.as_posix()) and told[0].endswith("left out")
