"""``time``, ``dealer`` and ``shoe`` of every finding, recomputed from the fixture's own lines.

The contract: ``time`` is the stamp of the line of the finding as written, ``dealer`` the last
``DEALER`` of that table up to and including that line, ``shoe`` the number of that table's
``SHOE new`` lines up to and including it. The test reads them off the text with its own
patterns, not the auditor's, and checks every format's report with ``--jobs 2`` too.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import datetime

import pytest

from audit.reporters.json_report import render
from audit.rulesets import Library
from audit.run import run_audit
from fixtures import RULE_FIXTURES, read_fixture, rule_fixtures

STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)")
DEALER = re.compile(r"^\S+ (\S+) DEALER id=(\S+)\s*$")
SHOE = re.compile(r"^\S+ (\S+) SHOE new ")
WITH_TABLE = [
    p
    for p in rule_fixtures()
    if re.search(r"^\S+\s+\S+\s+OPEN\b", p.read_text(encoding="utf-8"), re.M)
]


def expected_fields(
    lines: list[str], line: int, table: str | None
) -> tuple[str | None, str | None, int | None]:
    words = lines[line - 1].split(None, 1) if 0 < line <= len(lines) else []
    time = words[0] if words and STAMP.fullmatch(words[0]) and real(words[0]) else None
    dealer, shoes = None, 0
    for text in lines[:line] if table is not None else ():
        if (m := DEALER.match(text)) and m.group(1) == table:
            dealer = m.group(2)
        elif (m := SHOE.match(text)) and m.group(1) == table:
            shoes += 1
    return time, dealer, shoes or None


def real(stamp: str) -> bool:
    """A stamp of a real date and time (not the 31st of November): a readable one."""
    try:
        datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("path", WITH_TABLE, ids=lambda p: p.relative_to(RULE_FIXTURES).as_posix())
def test_every_finding_carries_its_time_dealer_and_shoe(path):
    fx = read_fixture(path)
    library = Library.load(overlays=fx.house)
    report = run_audit(library, [str(path)])
    lines = path.read_text(encoding="utf-8").splitlines()
    assert report.findings
    for f in report.findings:
        want = expected_fields(lines, f.line, f.table)
        assert (f.time, f.dealer, f.shoe) == want, f"line {f.line} {f.rule}: {f.message}"
        if (
            f.actual is not None and f.category != "syntax"
        ):  # the event of its line, an earlier one too
            assert f.actual == lines[f.line - 1].split(None, 2)[2].strip(), (
                f"line {f.line} {f.rule}"
            )
    assert render(run_audit(library, [str(path)], jobs=2)) == render(report)


def test_the_fields_follow_citation_in_the_json_report():
    path = next(p for p in WITH_TABLE if p.name == "FR-PAY-MAIN.del")
    finding = run_audit(Library.load(), [str(path)]).findings[0].model_dump()
    keys = list(finding)
    assert keys[keys.index("citation") + 1 :] == ["time", "dealer", "shoe"]
    assert finding["time"] and finding["dealer"] and finding["shoe"] == 1


def test_a_stake_over_the_limit_shows_its_bet_as_actual():
    path = next(p for p in WITH_TABLE if p.name == "FR-BET-LIMITS.del")
    report = run_audit(Library.load(), [str(path)])
    limits = [f for f in report.findings if f.rule == "FR-BET-LIMITS"]
    assert limits and all(f.actual and f.actual.split()[0] in ("BET", "WITHDRAW") for f in limits)


@pytest.mark.parametrize(
    "last",
    [
        "2026-11-20T21:00:09.100+01:00 BAT-02 BET seat=x",
        "# the end",
        "",
        '2026-11-20T21:00:09.100+01:00 BAT-02 NOTE "other table"',
    ],
)
def test_the_end_of_log_findings_take_the_last_lines_stamp_whatever_the_jobs(tmp_path, last):
    log = tmp_path / "end.del"
    log.write_text(
        """#DEL 1
2026-11-20T21:00:00.100+01:00 BAT-01 OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=1000
2026-11-20T21:00:00.200+01:00 BAT-02 OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=1000
2026-11-20T21:00:01.100+01:00 BAT-01 DEALER id=D07
2026-11-20T21:00:02.100+01:00 BAT-01 SHOE new decks=6 procedure=sabot
2026-11-20T21:00:06.100+01:00 BAT-01 ROUND 1 begin
"""
        + last
        + "\n",
        encoding="utf-8",
    )
    library = Library.load()
    report = run_audit(library, [str(log)])
    lines = log.read_text(encoding="utf-8").splitlines()
    end = [f for f in report.findings if f.line == 7]
    assert {f.rule for f in end} >= {"DEL-ROUND-OPEN", "DEL-TABLE-UNCLOSED"}
    for f in end:
        assert (f.time, f.dealer, f.shoe) == expected_fields(lines, 7, f.table)
    assert render(run_audit(library, [str(log)], jobs=2)) == render(report)


def test_a_table_reopened_keeps_its_dealer_and_counts_its_shoes_on(tmp_path):
    log = tmp_path / "reopen.del"
    log.write_text(
        """#DEL 1
2026-11-20T21:00:00.100+01:00 BAT-01 OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=1000
2026-11-20T21:00:01.100+01:00 BAT-01 DEALER id=D07
2026-11-20T21:00:02.100+01:00 BAT-01 SHOE new decks=6 procedure=sabot
2026-11-20T21:00:03.100+01:00 BAT-01 CLOSE
2026-11-20T21:00:04.100+01:00 BAT-01 OPEN game=bataille ruleset=fr-bataille-2007 seats=9 min=10 max=1000
2026-11-20T21:00:05.100+01:00 BAT-01 SHOE new decks=6 procedure=sabot
2026-11-20T21:00:06.100+01:00 BAT-01 ROUND 1 begin
""",
        encoding="utf-8",
    )
    report = run_audit(Library.load(), [str(log)])
    by_line = {f.line: f for f in report.findings}
    assert (by_line[6].time, by_line[6].dealer, by_line[6].shoe) == (
        "2026-11-20T21:00:04.100+01:00",
        "D07",
        1,
    )
    end = [f for f in report.findings if f.line == 8]
    assert end and all(
        (f.time, f.dealer, f.shoe) == ("2026-11-20T21:00:06.100+01:00", "D07", 2) for f in end
    )


# -- the reports ------------------------------------------------------------------------------

MIXED = "tests/golden/logs/mixed-faulty.del"


def _mixed():
    return run_audit(Library.load(), [MIXED])


def test_sarif_and_junit_carry_the_fields():
    from audit.reporters import junit, sarif

    report = _mixed()
    results = [r for run in sarif.as_dict(report)["runs"] for r in run["results"]]
    assert [
        (r["properties"]["time"], r["properties"]["dealer"], r["properties"]["shoe"])
        for r in results
    ] == [(f.time, f.dealer, f.shoe) for f in report.findings]
    xml = junit.render(report)
    for f in report.findings:
        if f.table is not None:
            assert f"time: {f.time}, dealer: {f.dealer}, shoe: {f.shoe}" in xml


def test_the_text_report_links_each_finding_and_says_when_and_who():
    from audit.reporters import text

    report = _mixed()
    out = text.render(report)
    for f in report.findings:
        head = f"  {f.path}:{f.line}: {f.severity} {f.rule} ({f.category})"
        head += f" at {f.time}" + (
            f", dealer {f.dealer}, shoe {f.shoe}" if f.table is not None else ""
        )
        assert head in out.splitlines()
    assert "    Monaco AM 2006-369, art. 1er: « Une fois mélangées" in out
    assert (
        ".816000" not in out
        and "2026-11-20T21:21:59.816+01:00 after 2026-11-20T21:22:01.816+01:00" in out
    )


def test_the_text_report_tallies_rules_categories_and_dealers():
    from audit.reporters import text

    report = _mixed()
    out = text.render(report).split("\nfindings by rule\n", 1)[1]
    by_rule, rest = out.split("findings by category\n")
    by_category, by_dealer = rest.split("by dealer\n")
    rules = {line.split()[1]: int(line.split()[0]) for line in by_rule.splitlines()}
    assert rules == {
        f.rule: sum(g.rule == f.rule for g in report.findings) for f in report.findings
    }
    categories = {line.split()[1]: int(line.split()[0]) for line in by_category.splitlines()}
    assert categories == {
        f.category: sum(g.category == f.category for g in report.findings) for f in report.findings
    }
    # rounds per dealer, counted from the log's own lines: the last DEALER of the table at each ROUND begin
    dealer_of: dict[str, str] = {}
    rounds: dict[str, int] = {}
    with open(MIXED, encoding="utf-8") as log:
        for line in log:
            words = line.split()
            if len(words) > 3 and words[2] == "DEALER":
                dealer_of[words[1]] = words[3].removeprefix("id=")
            elif len(words) > 4 and words[2] == "ROUND" and words[4] == "begin":
                who = dealer_of.get(words[1], "(no dealer logged)")
                rounds[who] = rounds.get(who, 0) + 1
    shown = {}
    for line in by_dealer.splitlines():
        m = re.fullmatch(r"  (.+): (\d+) round\(s\) dealt, (\d+) finding\(s\)", line)
        assert m, line
        shown[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    found = {d: sum(f.dealer == d for f in report.findings if f.table) for d in rounds}
    assert shown == {d: (rounds[d], found[d]) for d in rounds}
    assert sum(n for _, n in shown.values()) == sum(1 for f in report.findings if f.table)


def test_a_line_number_is_never_an_emoji():
    from audit.reporters import text

    path = next(p for p in WITH_TABLE if p.name == "DEL-SYNTAX.del")
    report = run_audit(Library.load(), [str(path)])
    assert any(f.line == 100 for f in report.findings)
    assert f"{path}:100: error" in text.render(report)


def test_the_text_report_quotes_a_line_as_written_never_with_emoji(tmp_path):
    """rich turns ``:smile:`` into an emoji unless told not to: a report quotes the log's own characters."""
    log = tmp_path / "emoji.del"
    log.write_text(
        "#DEL 1\n2026-01-01T20:00:01Z T1 FOO :thumbs_up: :smile: :1:\n", encoding="utf-8"
    )
    for args in (["-f", "text"], ["-f", "text", "--color", "always"]):
        done = subprocess.run(
            [sys.executable, "-m", "audit", "check", *args, str(log)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=60,
        )
        quoted = [line for line in done.stdout.splitlines() if "actual:" in line]
        assert quoted and all(line.endswith("FOO :thumbs_up: :smile: :1:") for line in quoted), (
            done.stdout
        )
        assert (
            "\N{THUMBS UP SIGN}" not in done.stdout
            and "\N{SMILING FACE WITH OPEN MOUTH AND SMILING EYES}" not in done.stdout
        )


@pytest.mark.parametrize(
    "name, said",
    [
        ("FR-SEAT-RANGE", "taken at a table of"),
        ("MC-BURN-OTHER", "between rounds"),
        ("DEL-ROUND-OPEN", ""),
        ("MC-DEALER-RELIEF", ""),
        ("MC-BURN-START-EXTRA", ""),
        ("MC-BURN-RESUME-EXTRA", ""),
    ],
)
def test_a_table_finding_says_what_was_expected(name, said):
    path = next(p for p in WITH_TABLE if p.stem == name)
    fx = read_fixture(path)
    report = run_audit(Library.load(overlays=fx.house), [str(path)])
    mine = [f for f in report.findings if f.rule == name and said in f.message]
    assert mine and all(f.expected for f in mine)


def test_an_unknown_ruleset_names_the_known_ones_of_its_game_nearest_first(tmp_path):
    log = tmp_path / "typo.del"
    log.write_text(
        "#DEL 1\n2026-11-20T21:00:00+01:00 T1 OPEN game=bataille ruleset=mc-sun-war-2060 seats=7 "
        "min=10 max=100\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "audit", "check", "-f", "json", str(log)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    (finding,) = json.loads(done.stdout)["findings"]
    assert finding["rule"] == "DEL-RULESET-UNKNOWN"
    assert finding["message"] == (
        "no ruleset 'mc-sun-war-2060' is known (the bataille rulesets: "
        "mc-sun-war-2006, fr-bataille-2007); table T1 is not audited"
    )
