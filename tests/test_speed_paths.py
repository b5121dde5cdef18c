"""The fast paths must change nothing: same events and errors as the grammar, same report with --jobs."""

from __future__ import annotations

import random
import subprocess
import sys
from datetime import UTC
from pathlib import Path

import pytest

from audit import events as ev
from audit.games.bataille import events as bat
from audit.parse import LineParser, Problem, parse_line
from audit.parse.digit_blind import digit_blind
from audit.parse.grammar import terminal_regex
from audit.parse.parsed import EVENT_TYPES
from audit.reporters import json_report
from audit.rulesets import Library
from audit.run import run_audit

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "fixtures").rglob("*.del"))


def _mutations(lines: list[str], seed: int) -> list[str]:
    """Lines broken the ways logs break: words dropped, swapped, garbled, blanks moved."""
    rng = random.Random(seed)
    out = []
    for text in lines:
        words = text.split(" ")
        op = rng.randrange(6)
        if op == 0 and len(words) > 3:
            del words[rng.randrange(len(words))]
        elif op == 1 and len(words) > 3:
            i, j = rng.randrange(len(words)), rng.randrange(len(words))
            words[i], words[j] = words[j], words[i]
        elif op == 2:
            i = rng.randrange(len(words))
            words[i] = words[i][:-1] + rng.choice("x9=.:-\t ")
        elif op == 3:
            words.insert(
                rng.randrange(len(words) + 1), rng.choice(["", "\t", "#", "amount=1.005", "seat=0"])
            )
        out.append(" ".join(words))
    return out


def test_fast_parser_gives_the_grammars_events_and_errors_on_every_fixture_line():
    """A parser of each file's own, and one parser over every fixture in turn (a night of many
    small files: its caches are kept from one input to the next, and depend on the text only),
    both give the grammar's events (the grammar, the slow part, parses each line once)."""
    checked, shared = 0, LineParser()
    for path in FIXTURES:
        fast = LineParser()
        for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            expected = parse_line(text, n)
            assert fast.parse(text, n) == expected, f"{path.name}:{n}"
            assert shared.parse(text, n) == expected, f"{path.name}:{n} (one parser for every file)"
            checked += 1
    assert checked > 10_000


def test_fast_parser_agrees_on_generated_and_mutated_logs():
    from datetime import datetime

    from audit.simulate import generated_tables, simulate

    lines = list(
        simulate(
            tables=generated_tables(3, 30), seed=5, start=datetime(2026, 11, 20, 21, tzinfo=UTC)
        )
    )
    fast = LineParser(max_cached=64)  # a small cache: clearing it must not change anything either
    for n, text in enumerate(lines + _mutations(lines, 1) + _mutations(lines, 2), start=1):
        got, want = fast.parse(text, n), parse_line(text, n)
        assert got == want and type(got) is type(want), f"line {n}: {text!r}"


@pytest.mark.parametrize("jobs", [2, 3])
def test_jobs_give_the_same_report_byte_for_byte(jobs):
    library = Library.load()
    for path in [*FIXTURES[jobs::9], ROOT / "fixtures" / "nights" / "mixed-night.del"]:
        one = json_report.render(run_audit(library, [str(path)]))
        assert json_report.render(run_audit(library, [str(path)], jobs=jobs)) == one, path.name


def test_jobs_across_files_and_on_the_command_line(tmp_path):
    files = [str(p.relative_to(ROOT)) for p in FIXTURES[:6]]
    args = [sys.executable, "-m", "audit", "check", "--format", "json", *files]
    one = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    two = subprocess.run([*args, "--jobs", "2"], cwd=ROOT, capture_output=True, text=True)
    assert one.returncode == two.returncode and one.stdout == two.stdout
    assert two.stderr == ""  # no progress bar when standard error is not a terminal


def test_standard_input_is_never_split_across_jobs():
    night = (ROOT / "fixtures" / "nights" / "mixed-night.del").read_text(encoding="utf-8")
    args = [sys.executable, "-m", "audit", "check", "--format", "json", "-"]
    one = subprocess.run(args, cwd=ROOT, input=night, capture_output=True, text=True)
    two = subprocess.run(
        [*args, "--jobs", "2"], cwd=ROOT, input=night, capture_output=True, text=True
    )
    assert one.returncode == 0 and one.stdout == two.stdout


# -- the fast parser's shortcuts, each against the grammar -------------------------------------

_WARM = [
    "2026-11-20T21:00:00.000+01:00 T1 BET seat=1 spot=main amount=10",
    "2026-11-20T21:00:59.500+01:00 T1 BET seat=2 spot=main amount=20 by=standing:P-1",
    "2026-11-20T22:30:07Z T1 PAY seat=1 spot=main amount=10",
    "2026-11-21T00:00:00.25-05:00 T1 SEAT 3 in player=P-2",
]


@pytest.mark.parametrize(
    "stamp",
    [
        "2026-11-20T21:00:59.000+01:00",
        "2026-11-20T22:30:00.500+01:00",
        "2026-11-21T00:00:07Z",
        "2026-11-20T21:00:60.000+01:00",
        "2026-11-20T24:00:00.000+01:00",
        "2026-13-20T21:00:00.000+01:00",
        "2026-11-20T21:00:00.000",
        "2026-11-20T21:00:00z",
        "2026-11-20 21:00:00+01:00",
        "2026-11-20T21:00:0.000+01:00",
        "2026-11-20T21:00:00.+01:00",
        "2026-11-20T21:00:00.000+0100",
        "x026-11-20T21:00:00.000+01:00",
        "2026-11-20T21:00:00.000+01:00x",
        "2026-02-30T21:00:00.000+01:00",
        "2026-11-20T21:00:00.25-05:00",
    ],
)
def test_timestamps_checked_by_their_shape_as_the_grammar_checks_them(stamp):
    """The fast parser remembers the shapes (digits as 0) of the stamps it accepted; a stamp of a
    shape it has seen is accepted without the terminal's regex."""
    fast = LineParser()
    for n, text in enumerate(_WARM, start=1):
        assert fast.parse(text, n) == parse_line(text, n)
    text = f"{stamp} T1 BET seat=1 spot=main amount=10"
    got, want = fast.parse(text, 9), parse_line(text, 9)
    assert got == want and type(got) is type(want)


@pytest.mark.parametrize(
    "pattern, blind",
    [
        (r"[0-9]{4}-[0-9]{2}", True),
        (r"(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})(?![^ \t])", True),
        (r"x|[0-9]", True),
        (r"(?=[0-9])a.", True),
        (r"[0-9a-f]+", True),
        (r"2026-[0-9]{2}", False),
        (r"[0-5][0-9]", False),
        (r"[^0]", False),
        (r"\d+", False),
        (r"(a)\1", False),
    ],
)
def test_a_pattern_is_digit_blind_only_when_every_digit_is_alike(pattern, blind):
    """What the shape shortcut relies on, checked on the pattern: a literal digit, a set holding
    some digits only, a category or a back-reference makes it fall back to the regex."""
    assert digit_blind(pattern) is blind


def test_the_grammars_timestamp_is_digit_blind_and_a_new_shape_goes_to_the_regex():
    assert digit_blind(terminal_regex("TIMESTAMP").pattern)
    fast = LineParser()
    first = fast.parse("2026-11-20T21:00:00.000+01:00 T1 BET seat=1 spot=main amount=10", 1)
    assert isinstance(first, bat.Bet) and fast._shapes == {b"0000-00-00T00:00:00.000+00:00"}
    # same shape, other digits: no new shape; a shape the terminal refuses is never remembered
    fast.parse("2019-01-31T09:59:58.999+05:30 T1 BET seat=1 spot=main amount=10", 2)
    bad = "2026-11-20T21:00:00.000+0100 T1 BET seat=1 spot=main amount=10"
    assert fast.parse(bad, 3) == parse_line(bad, 3) and isinstance(fast.parse(bad, 3), Problem)
    assert fast._shapes == {b"0000-00-00T00:00:00.000+00:00"}
    surrogate = "2026-11-20T21:00:00.000+01:00\ud800 T1 BET seat=1 spot=main amount=10"
    assert fast.parse(surrogate, 4) == parse_line(surrogate, 4)


@pytest.mark.parametrize(
    "rest",
    [
        "BET seat=7 spot=main amount=12.50",
        "BET seat=7 spot=war amount=3 by=seat:2 approved",
        "BET seat=7 spot=main amount=12.505",
        "BET seat=0 spot=main amount=5",
        "BET seat=100 spot=main amount=5",
        "BET seat=07 spot=main amount=5",
        "BET seat=3 spot=main amount=05",
        "BET seat=3 seat=4 spot=main amount=5",
        "BET seat=3 spot=main amount=5 amount=6",
        "BET seat=3 spot=main amount=5 by=standing:",
        "BET seat=3 spot=main",
        "BET seat=3 spot=main amount=999999999999.99",
        "BET seat=3 spot=main amount=1000000000000",
        "SEAT 4 in player=P-99",
        "SEAT 4 in player=-P",
        "CUT by=seat:0",
        "CUT by=dealer",
        "CUT refused by=seat:12",
        'NOTE "amount=5 seat=3"',
        "ANNOUNCE last-rounds n=0",
        "ANNOUNCE last-rounds n=7",
        "DEALER id=D-7",
        "STOPCARD talon=75",
        "LIMITS min=5 max=250 egalite-max=20",
    ],
)
def test_lines_that_differ_in_free_values_share_a_parse_and_keep_the_grammars_verdict(rest):
    """Amounts, seats, ids and owners are taken out of a line so that one parse by the grammar
    serves many lines: the event, or the error, must still be the grammar's."""
    fast = LineParser()
    for n, text in enumerate(_WARM, start=1):
        fast.parse(text, n)
    text = f"2026-11-20T21:00:01.000+01:00 T1 {rest}"
    got, want = fast.parse(text, 9), parse_line(text, 9)
    assert got == want and type(got) is type(want)
    assert fast.parse(text, 10) == parse_line(text, 10)  # the second time from the cache


def test_a_words_value_is_taken_out_once_and_the_memo_agrees_with_taking_it_out_afresh():
    """``_shape`` keeps what ``take_out`` made of each word: lines of new texts made of words already
    seen give the events the grammar gives, and every word kept is what ``take_out`` makes of it now."""
    from audit.parse.fast import _REFUSED, take_out

    words = [
        "seat=3",
        "seat=07",
        "seat=0",
        "seat=100",
        "spot=main",
        "spot=war",
        "amount=12.50",
        "amount=12.505",
        "amount=05",
        "amount=1000000000000",
        "by=seat:2",
        "by=seat:0",
        "by=standing:P-1",
        "by=standing:",
        "player=P-9",
        "player=-P",
        "approved",
        "n=0",
        "n=7",
    ]
    rng = random.Random(7)
    fast = LineParser(max_cached=16)  # small: the memo is cleared on the way, and filled again
    for n in range(1, 400):
        rest = " ".join(["BET", *rng.sample(words, rng.randrange(1, 6))])
        text = f"2026-11-20T21:00:01.000+01:00 T1 {rest}"
        got, want = fast.parse(text, n), parse_line(text, n)
        assert got == want and type(got) is type(want), rest
    assert fast._taken
    for word, kept in fast._taken.items():
        fresh = take_out(word)
        assert kept is fresh if fresh is None or fresh is _REFUSED else kept == fresh, word


@pytest.mark.parametrize(
    "rest",
    [
        "ROUND 7 begin",
        "ROUND 7 end",
        "ROUND 007 begin",
        "ROUND 0 begin",
        "ROUND 999999999 end",
        "ROUND 1000000000 begin",
        "ROUND 7  begin",
        "ROUND\t7 begin",
        "ROUND 7 begun",
        "ROUND -7 begin",
        "ROUND 7 begin x",
        "ROUND 7",
        "ROUND begin",
        "ROUND 7 begin #",
    ],
)
def test_round_lines_take_their_tables_round_fields_and_keep_the_grammars_verdict(rest):
    """A ROUND line's number changes every round: the fields of its table's ROUND lines are kept,
    and the number put in; the line cache then serves the other tables. Each table in turn,
    twice, then a bad table."""
    fast = LineParser()
    for n, text in enumerate(_WARM, start=1):
        fast.parse(text, n)
    for n, table in enumerate(["T1", "T2", "T1", "T2", "-T", "T" * 40], start=10):
        for end in ("\n", "\r\n", ""):
            text = f"2026-11-20T21:00:01.000+01:00 {table} {rest}"
            got, want = fast.parse(text + end, n), parse_line(text, n)
            assert got == want and type(got) is type(want), (table, repr(end))


@pytest.mark.parametrize(
    "rest", ["BET seat=3 spot=main amount=25", "DEAL seat=3 7H", "SHUFFLE", "BET seat=3 spot=main"]
)
def test_one_line_entry_serves_every_table_and_a_bad_table_keeps_the_grammars_verdict(rest):
    """The line cache is keyed by the text from the verb on: each table, known or new, valid or
    not (a table the grammar refuses, a tab, a blank too many, no stamp), gets its own event."""
    fast = LineParser()
    for n, table in enumerate(["T1", "T2", "T1", "-T", "T" * 40, "T3\tX", "", "T2", "T4"], start=1):
        for stamp in ("2026-11-20T21:00:01.000+01:00", "", "# x", "2026-11-20T21:00:01.000+01:00 "):
            text = f"{stamp} {table} {rest}"
            got, want = fast.parse(text + "\n", n), parse_line(text, n)
            assert got == want and type(got) is type(want), (stamp, table)
            if type(got) in EVENT_TYPES:
                assert got.table == table and fast.rest == rest


@pytest.mark.parametrize("end", ["\n", "\r\n", "  \n", "\t\r\n", ""])
def test_line_ends_as_read_give_the_grammars_events(end):
    """The cache keys lines with their line end as read; the event is the same whatever the end."""
    fast = LineParser()
    for n, text in enumerate(_WARM * 2, start=1):
        got = fast.parse(text + end, n)
        assert got == parse_line(text, n) and fast.rest == text.split(" ", 2)[2]


def test_jobs_see_time_go_back_across_their_tables_as_one_process_does(tmp_path):
    """With --jobs the other part's lines are read for the clock only when needed: an event behind
    another table's by more than the tolerance is still found, the report byte for byte the same."""
    lines = ["#DEL 1"]
    for t in ("A", "B", "C", "D"):
        lines.append(
            f"2026-11-20T21:00:00.000+01:00 {t} OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=500"
        )
    lines += [
        "2026-11-20T21:00:10.000+01:00 A DEALER id=D1",
        "2026-11-20T21:05:00.000+01:00 B DEALER id=D2",
        "2026-11-20T21:00:20.000+01:00 A SEAT 1 in",  # behind B's line by minutes: a time-order finding
        "2026-11-20T21:05:01Z C DEALER id=D3",  # another shape of stamp
        "2026-11-20T21:05:02.5+01:00 D DEALER id=D4",
        "2026-11-20T21:05:03.000+01:00 A CLOSE",
        "2026-11-20T21:05:04.000+01:00 B CLOSE",
        "2026-11-20T21:05:05.000+01:00 C CLOSE",
        "2026-11-20T21:05:06.000+01:00 D CLOSE",
    ]
    log = tmp_path / "clock.del"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    library = Library.load()
    one = run_audit(library, [str(log)])
    assert any(f.rule == "DEL-TIME-ORDER" and f.table == "A" for f in one.findings)
    for jobs in (2, 3):
        assert json_report.render(run_audit(library, [str(log)], jobs=jobs)) == json_report.render(
            one
        )


def test_jobs_send_odd_lines_to_one_part_and_report_them_as_one_process_does(tmp_path):
    """Each part picks its lines with a quick split on single spaces and leaves anything unusual
    to the full one. Tabs, other white space, leading blanks, a verb-like table id, comments whose
    second word is a table, a table with nothing after it: the report is the one of --jobs 1."""
    stamp = "2026-11-20T21:00:{:02d}.000+01:00"
    lines = ["#DEL 1"]
    for t in ("A", "BET", "B", "C"):  # A and BET go to different parts
        lines.append(
            f"{stamp.format(0)} {t} OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=500"
        )
    odd = [
        "{s}\tA DEALER id=D1",
        "{s}\tBET DEALER id=D2",
        "{s}\tA BET seat=1 spot=main amount=10",
        "{s}\x0bA BET seat=1 spot=main amount=10",
        "{s} A\tDEALER id=D3",
        " {s} B DEALER id=D4",
        "{s}  C DEALER id=D5",
        "# x BET y",
        "#note A y",
        "{s} A ",
        "{s} BET",
        "{s}\xa0BET DEALER id=D6",
        "{s} B DEALER\tid=D7",
        "{s} C DEALER id=D8 ",
        "{s} BET DEALER id=D9",
        "{s} Z DEALER id=D10",
        "{s} C",
    ]
    lines += [text.format(s=stamp.format(i + 1)) for i, text in enumerate(odd)]
    lines += [f"{stamp.format(40 + i)} {t} CLOSE" for i, t in enumerate(("A", "B", "BET", "C"))]
    log = tmp_path / "odd.del"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    library = Library.load()
    one = json_report.render(run_audit(library, [str(log)]))
    assert '"syntax"' in one and "DEL-TABLE-UNOPENED" in one
    for jobs in (2, 3, 4):
        assert json_report.render(run_audit(library, [str(log)], jobs=jobs)) == one, jobs


def _clock_cases() -> dict[str, str]:
    """Logs whose clock a part must get right when it skips the other parts' lines by chunk."""
    from datetime import datetime

    from audit.simulate import generated_tables, simulate

    night = list(
        simulate(
            tables=generated_tables(4, 12), seed=3, start=datetime(2026, 11, 20, 21, tzinfo=UTC)
        )
    )
    body = night[3:]
    assert all(line.startswith("2026-11-20T22:") and "+01:00 " in line for line in body)
    late = [
        line.replace("T22:0", "T21:5", 1) if n % 97 == 0 else line for n, line in enumerate(body)
    ]
    zones = [
        line.replace("T22:", "T21:", 1).replace("+01:00 ", "Z ", 1) if n % 50 < 5 else line
        for n, line in enumerate(body)
    ]  # the same times, written in UTC
    cases = {
        "night": night,
        "time goes back now and then": night[:3] + late,
        "offsets change": night[:3] + zones,
        "a comment and a blank line midway": night[:400] + ["# shift change", ""] + night[400:],
        "a table opened late": night[:3]
        + [
            body[0].split(" ", 1)[0] + " LATE OPEN game=bataille "
            "ruleset=fr-bataille-2007 seats=7 min=10 max=500"
        ]
        + body[1:],
        "#DEL 2 after events": night[:500] + ["#DEL 2"] + night[500:],
    }
    # one part replays its first table alone for a while, while the other has no event yet: both
    # must send each line, a table with nothing after it too, to the same part
    alone = [f"2026-11-20T21:00:{n:02d}.000+01:00 A DEALER id=D{n}" for n in range(1, 40)]
    alone[10], alone[20] = "2026-11-20T21:00:11.000+01:00 A ", "2026-11-20T21:00:21.000+01:00 A"
    cases["one part alone at first"] = [
        "#DEL 1",
        "2026-11-20T21:00:00.000+01:00 A OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=500",
        *alone,
        "2026-11-20T21:00:50.000+01:00 B OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=500",
        "2026-11-20T21:00:51.000+01:00 B DEALER id=D9",
        "2026-11-20T21:00:52.000+01:00 A CLOSE",
        "2026-11-20T21:00:53.000+01:00 B CLOSE",
    ]
    return {name: "\n".join(lines) + "\n" for name, lines in cases.items()}


@pytest.mark.parametrize("case", sorted(_clock_cases()))
def test_jobs_keep_the_files_clock_across_chunks_as_one_process_does(case, tmp_path, monkeypatch):
    """Each part keeps the other parts' lines unread while they cannot move the file's clock past
    its own events, across chunk boundaries too (small chunks here): the reports must be those of
    one process, byte for byte."""
    from audit import run as run_module
    from audit.stream import inputs

    monkeypatch.setattr(inputs, "CHUNK_BYTES", 600)  # about ten lines a chunk
    log = tmp_path / "night.del"
    data = _clock_cases()[case].encode("utf-8")
    if case == "night":
        data = data.replace(
            b"DEALER id=", b"DEALER id=\xff", 1
        )  # a line that is not UTF-8, read by part 0
    log.write_bytes(data)
    library = Library.load()
    report = run_audit(library, [str(log)])
    rules = {f.rule for f in report.findings}
    # each case holds what it is named for, so that the comparison below is not vacuous
    wanted = {
        "night": "DEL-SYNTAX",
        "time goes back now and then": "DEL-TIME-ORDER",
        "a table opened late": "DEL-TABLE-UNOPENED",
        "one part alone at first": "DEL-SYNTAX",
    }
    if case in wanted:
        assert wanted[case] in rules, (case, rules)
    one = json_report.render(report)
    for jobs in (2, 3):
        assert json_report.render(run_audit(library, [str(log)], jobs=jobs)) == one, jobs
    # the parts again, in this process, to see that they took chunks through the sieve
    from audit.stream.parts import Sieve

    sifted: list[bool] = []
    real = Sieve.sift
    monkeypatch.setattr(
        Sieve, "sift", lambda self, *a: sifted.append((own := real(self, *a)) is not None) or own
    )
    tasks = run_module._tasks([str(log)], 2)
    parts = run_module._merge(
        library, tasks, [run_module._audit_part(library, *task) for task in tasks]
    )
    assert json_report.render(parts) == one
    if case != "one part alone at first":  # (two short chunks, neither plain)
        assert sum(sifted) >= 10, (case, len(sifted))


def test_the_collector_is_tuned_while_a_log_streams_and_restored_after(tmp_path):
    """The cyclic collector runs less often during a replay (its thresholds raised, what was loaded
    before frozen out of its scans) and is as it was once the audit is over, even when it fails."""
    import gc

    from audit import collector
    from audit.stream import inputs

    seen = []
    real_feed = inputs.feed_lines

    def spy(*args, **kwargs):
        seen.append((gc.get_threshold(), gc.get_freeze_count()))
        return real_feed(*args, **kwargs)

    before = gc.get_threshold(), gc.get_freeze_count()
    library = Library.load()
    path = ROOT / "fixtures" / "nights" / "mixed-night.del"
    inputs.feed_lines = spy
    try:
        run_audit(library, [str(path)])
        assert gc.get_threshold() == before[0] and gc.get_freeze_count() == before[1]
        inputs.feed_lines = lambda *a, **k: (_ for _ in ()).throw(OSError(5, "Input/output error"))
        with pytest.raises(inputs.InputError):
            run_audit(library, [str(path)])
    finally:
        inputs.feed_lines = real_feed
    assert seen and seen[0][0] == collector.THRESHOLDS and seen[0][1] > 0
    assert gc.get_threshold() == before[0] and gc.get_freeze_count() == before[1]


# -- the sieve: a part picks its own lines out of a plain chunk -----------------------------------


def _window_lines(names: dict[str, str] | None = None) -> list[str]:
    """Event lines of a night at four tables, every stamp of one shape and in order; ``names``
    renames its tables."""
    from datetime import datetime

    from audit.simulate import generated_tables, simulate

    night = list(
        simulate(
            tables=generated_tables(4, 6), seed=11, start=datetime(2026, 11, 20, 21, tzinfo=UTC)
        )
    )
    lines = night[3:]
    if names:
        lines = [
            " ".join((stamp, names[table], rest))
            for stamp, table, rest in (line.split(" ", 2) for line in lines)
        ]
    return lines


def _broken(lines: list[str], rng: random.Random) -> tuple[str, list[str]]:
    """The window with one line broken one way; the way's name."""
    out = list(lines)
    i = (
        0 if rng.random() < 0.25 else rng.randrange(len(out))
    )  # the first line: nothing before it to be out of order with
    stamp, table, rest = out[i].split(" ", 2)
    kinds = {
        "out of order": lambda: (
            f"{out[i - 1].split(' ', 1)[0]} {table} {rest}" if i > 1 else out[i]
        ),
        "runs ahead": lambda: f"{stamp.replace('T2', 'T3', 1)} {table} {rest}",
        "falls behind": lambda: f"{stamp.replace('T2', 'T1', 1)} {table} {rest}",
        "other offset": lambda: f"{stamp[:-6]}+02:00 {table} {rest}",
        "blank in stamp": lambda: f"{stamp.replace('T', ' ', 1)} {table} {rest}",
        "tab in stamp": lambda: f"{stamp.replace('T', chr(9), 1)} {table} {rest}",
        "tab after table": lambda: f"{stamp} {table}\t{rest}",
        "not ASCII": lambda: f"{stamp} {table} {rest}".replace("id=", "id=\u00e9", 1) + " é",
        "comment": lambda: f"#{stamp[1:]} {table} {rest}",
        "table not dealt": lambda: f"{stamp} {table[:-1]}Q {rest}",
        "longer table": lambda: f"{stamp} {table}0 {rest}",
        "table alone": lambda: f"{stamp} {table} ",
        "blank line": lambda: "",
        "leading blank": lambda: f" {stamp} {table} {rest}",
        "shorter stamp": lambda: f"{stamp[:19]}{stamp[23:]} {table} {rest}",
    }
    kind = rng.choice(sorted(kinds))
    out[i] = kinds[kind]()
    return kind, out


def _own_lines_read_line_by_line(
    library: Library, lines: list[str], assigned: dict[str, int], part: tuple[int, int]
) -> list[bool]:
    """Which lines the part replays when it reads the chunk line by line, the plain path
    (``Part.owns``; its parser is a spy)."""
    from audit.stream.replay import FileReplay

    run = FileReplay(library, "x.del", part)
    run.part.tables.update(assigned)
    read: set[int] = set()
    run.parser = LineParser()  # a parser of its own to spy on: the thread's serves every replay
    run.parser.parse = lambda text, lineno: read.add(lineno)  # type: ignore[method-assign]
    run._feed(lines, range(1, len(lines) + 1), run.part.owns)
    return [n in read for n in range(1, len(lines) + 1)]


@pytest.mark.parametrize("names", ["as simulated", "T1 T12 T2 T123"])
def test_the_sieve_sends_each_line_where_the_line_by_line_reading_does_and_skips_no_clock_move(
    names,
):
    """On plain chunks and on chunks with one line broken each way a log breaks: the sieve either
    declines the chunk or picks exactly the lines the part would replay reading it line by line,
    and no other part's event in the chunk is later than the part's next event (which the
    file's clock would have needed). Table ids of one length, and of several (one the start of
    another)."""
    from audit.stream.parts import Sieve

    library = Library.load()
    night = _window_lines()
    if names != "as simulated":
        night = _window_lines(
            dict(zip(sorted({line.split(" ", 2)[1] for line in night}), names.split()))
        )
    tables = sorted({line.split(" ", 2)[1] for line in night})
    assigned = {t: n % 2 for n, t in enumerate(tables)}
    clock = night[0].split(" ", 1)[0]
    rng = random.Random(7)
    sifted: dict[str, int] = {}
    declined: dict[str, int] = {}
    for trial in range(400):
        start = rng.randrange(0, len(night) - 40)
        window = night[start : start + 40]
        kind, lines = ("plain", window) if trial % 4 == 0 else _broken(window, rng)
        chunk = [(text + "\n").encode("utf-8") for text in lines]
        for k in (0, 1):
            own = Sieve(k).sift(chunk, assigned, clock, "+01:00")
            if own is None:
                declined[kind] = declined.get(kind, 0) + 1
                continue
            sifted[kind] = sifted.get(kind, 0) + 1
            assert own == _own_lines_read_line_by_line(library, lines, assigned, (k, 2)), (kind, k)
            times = [
                p.ts if isinstance(p := parse_line(text), ev._Event) else None for text in lines
            ]
            for i, ts in enumerate(times):
                later_own = [t for j, t in enumerate(times) if j > i and own[j] and t is not None]
                if ts is not None and not own[i] and later_own:
                    assert ts <= later_own[0], (kind, k, lines[i])
    assert declined.get("plain", 0) == 0 and sifted["plain"] >= 100
    # each way of breaking a line was met, and each that must be declined was
    assert len(set(sifted) | set(declined)) == 16 and set(declined) >= {
        "runs ahead",
        "falls behind",
        "other offset",
        "blank in stamp",
        "tab in stamp",
        "not ASCII",
        "comment",
        "table not dealt",
        "longer table",
        "blank line",
        "leading blank",
        "shorter stamp",
    }, declined


def test_one_parser_serves_every_input_of_a_thread():
    """The inputs a thread reads share one parser (that it agrees across files is checked with the
    fixtures' lines in ``test_fast_parser_gives_the_grammars_events_and_errors_on_every_fixture_line``)."""
    import threading

    from audit.stream.replay import FileReplay

    library = Library.load()
    first, second = FileReplay(library, "a.del"), FileReplay(library, "b.del")
    assert first.parser is second.parser
    other: list = []
    thread = threading.Thread(target=lambda: other.append(FileReplay(library, "c.del").parser))
    thread.start()
    thread.join()
    assert (
        other[0] is not first.parser
    )  # a thread of its own (a cluster worker's threads): a parser of its own
