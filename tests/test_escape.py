"""Text from outside is escaped before it reaches a terminal, and kept exact in the data reports (issue 15, items 9, 12)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit.escape import for_terminal, lines_for_terminal, undecodable_escaped

HOSTILE = [
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
    "\u200b",
    "\u200d",
    "\u2060",
    "\ufeff",
    "\u2028",
    "\u2029",
    "\x1b",
    "\x07",
    "\r",
    "\n",
    "\t",
    "\x7f",
    "\x85",
    "\xa0",
]


@pytest.mark.parametrize("char", HOSTILE)
def test_hostile_characters_are_written_as_escapes(char):
    shown = for_terminal(f"paid{char}50")
    assert char not in shown
    assert (
        shown
        == "paid"
        + char.encode("unicode_escape")
        .decode("ascii")
        .replace("\\t", "\\x09")
        .replace("\\n", "\\x0a")
        .replace("\\r", "\\x0d")
        + "50"
    )


def test_printable_text_is_left_alone():
    text = "Casino de Monte-Carlo — « la mise » 50,00 € seat=3"
    assert for_terminal(text) is text


@given(st.text())
def test_nothing_unprintable_is_left_and_printable_text_survives(text):
    shown = for_terminal(text)
    assert shown.isprintable()
    kept = [c for c in text if c.isprintable()]
    assert all(c in shown for c in kept)
    assert all(unicodedata.category(c) not in ("Cc", "Cf", "Zl", "Zp") for c in shown)


def test_an_undecodable_byte_of_a_file_name_is_written_as_the_byte():
    name = os.fsdecode(b"caf\xe9\xff.del")  # the bytes that are not UTF-8 held as lone surrogates
    assert for_terminal(name) == undecodable_escaped(name) == "caf\\xe9\\xff.del"
    dumped = json.dumps({"path": name}, ensure_ascii=False)
    assert json.loads(undecodable_escaped(dumped, "\\\\").encode("utf-8")) == {
        "path": "caf\\xe9\\xff.del"
    }
    assert (
        undecodable_escaped("« la mise » \u202e") == "« la mise » \u202e"
    )  # data reports keep the rest exact


def test_several_lines_keep_their_line_feeds():
    assert lines_for_terminal("a\u202e\nb\tc\n") == "a\\u202e\nb\\x09c\n"


# --- through the command line: reports and messages ---------------------------------------------

ROOT = Path(__file__).resolve().parent.parent
THREE = ROOT / "fixtures" / "acceptance" / "three-breaches.del"
#: what a hostile log, file name or overlay may hold: bidi, zero-width, line separator, ESC sequences
RAW = ["\u202e", "\u2066", "\u2069", "\u200b", "\u2028", "\x1b"]


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "audit", *args],
        cwd=cwd,
        capture_output=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def assert_escaped(shown: str, *escapes: str) -> None:
    assert not [c for c in RAW if c in shown], shown
    for escape in escapes:
        assert escape in shown, (escape, shown)


def hostile_log(folder: Path) -> Path:
    """Three-breaches' opening, then two lines that do not parse: a bidi control in a table id, and
    a NOTE of hidden characters and an ESC sequence followed by an argument too many."""
    lines = THREE.read_text(encoding="utf-8").splitlines()[:8]
    lines.append('2026-11-20T21:00:05.000+01:00 BAT\u202e07 NOTE "hello"')
    lines.append(
        '2026-11-20T21:00:06.000+01:00 BAT-07 NOTE "x\u2066y\u2069\u2028z\u200b\x1b[2J" extra=1'
    )
    log = folder / "ev\u202e\x1b[31m.del"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return log


def test_the_text_report_escapes_log_text_and_file_names(tmp_path):
    hostile_log(tmp_path)
    done = run("check", ".", cwd=tmp_path)
    text = done.stdout.decode("utf-8")
    assert done.returncode == 1 and "DEL-SYNTAX" in text
    assert_escaped(
        text, "ev\\u202e\\x1b[31m.del", "BAT\\u202e07", "x\\u2066y\\u2069\\u2028z\\u200b\\x1b[2J"
    )
    run("check", "-o", "report.txt", ".", cwd=tmp_path)
    assert_escaped((tmp_path / "report.txt").read_text(encoding="utf-8"), "BAT\\u202e07")


def test_the_data_reports_keep_the_text_exact(tmp_path):
    log = hostile_log(tmp_path)
    report = json.loads(run("check", "-f", "json", ".", cwd=tmp_path).stdout)
    assert report["inputs"][0]["path"] == log.name
    actual = [f["actual"] for f in report["findings"] if f["rule"] == "DEL-SYNTAX"]
    assert any("BAT\u202e07" in a for a in actual) and any(
        "\u2028z\u200b\x1b[2J" in a for a in actual
    )
    junit = run("check", "-f", "junit", ".", cwd=tmp_path).stdout.decode("utf-8")
    suite = ET.fromstring(junit).find("testsuite")
    assert (
        suite.get("name") == "ev\u202e\\x1b[31m.del"
    )  # XML cannot carry ESC: escaped, the rest kept


def test_messages_escape_what_they_quote(tmp_path):
    config = tmp_path / "audit.toml"
    config.write_text('"fail\\u202eon\\u001b[31m" = "error"\n', encoding="utf-8")
    done = run("check", str(THREE), cwd=tmp_path)
    message = done.stderr.decode("utf-8")
    assert done.returncode == 2 and message.count("\n") == 1
    assert_escaped(message, "fail\\u202eon\\x1b[31m: unknown key")
    config.unlink()
    overlay = tmp_path / "house.yaml"
    overlay.write_text(
        "overlay: house\nruleset: fr-bataille-2007\ntitle: t\n"
        'rules:\n  "FR-PAY\\u2066MAIN\\e[2J": {enabled: true}\n',
        encoding="utf-8",
    )
    done = run("check", "--house", str(overlay), str(THREE), cwd=tmp_path)
    message = done.stderr.decode("utf-8")
    assert done.returncode == 2 and "no such rule" in message
    assert_escaped(message, "FR-PAY\\u2066MAIN\\x1b[2J")
    done = run("check", "missing\u2028\x1b[2J\u202e.del", cwd=tmp_path)
    assert done.returncode == 2
    assert_escaped(done.stderr.decode("utf-8"), "missing\\u2028\\x1b[2J\\u202e.del: no such file")


def test_overlay_titles_and_readings_are_escaped_where_shown(tmp_path):
    overlay = tmp_path / "house.yaml"
    overlay.write_text(
        'overlay: house\nruleset: fr-bataille-2007\ntitle: "House\\u202e\\e[31m rules"\n'
        'rules:\n  FR-PAY-MAIN: {reading: "read\\u2028this\\u200b\\e]0;x\\a"}\n',
        encoding="utf-8",
    )
    explained = run("explain", "FR-PAY-MAIN", "--house", str(overlay), cwd=tmp_path)
    assert explained.returncode == 0, explained.stderr
    assert_escaped(
        explained.stdout.decode("utf-8"),
        "House\\u202e\\x1b[31m rules",
        "read\\u2028this\\u200b\\x1b]0;x\\x07",
    )
    folder = (
        tmp_path / "rulesets"
    )  # a rulesets folder of one's own: its titles are text from outside
    folder.mkdir()
    for ruleset in (ROOT / "rulesets").glob("*.yaml"):
        text = ruleset.read_text(encoding="utf-8")
        (folder / ruleset.name).write_text(
            text.replace(
                "\ntitle: La bataille", '\ntitle: "La\\u2069\\e[5m bataille \\u2028\\u200b"\n#'
            ),
            encoding="utf-8",
        )
    listed = run("rules", "fr-bataille-2007", "--rulesets", str(folder), cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert_escaped(listed.stdout.decode("utf-8"), "La\\u2069\\x1b[5m bataille \\u2028\\u200b")


def test_a_file_name_that_is_not_utf8_is_named_by_its_bytes(tmp_path):
    """The undecodable bytes are written \\xNN in every report (percent-encoded in a SARIF URI), and
    every report is valid UTF-8, on standard output as in a file."""
    name = os.fsdecode(b"caf\xe9\xff.del")
    (tmp_path / name).write_bytes(THREE.read_bytes())
    shown = "caf\\xe9\\xff.del"
    report = json.loads(run("check", "-f", "json", ".", cwd=tmp_path).stdout.decode("utf-8"))
    assert [i["path"] for i in report["inputs"]] == [shown] and {
        f["path"] for f in report["findings"]
    } == {shown}
    sarif = json.loads(run("check", "-f", "sarif", ".", cwd=tmp_path).stdout.decode("utf-8"))
    assert sarif["runs"][0]["artifacts"][0]["location"]["uri"] == "caf%E9%FF.del"
    junit = ET.fromstring(run("check", "-f", "junit", ".", cwd=tmp_path).stdout.decode("utf-8"))
    assert junit.find("testsuite").get("name") == shown
    text = run("check", ".", cwd=tmp_path).stdout.decode("utf-8")
    assert text.startswith(f"audit: {shown}\n")
    done = run(
        "check", "-o", "r.json", "-o", "r.sarif", "-o", "r.xml", "-o", "r.txt", ".", cwd=tmp_path
    )
    assert done.returncode == 1 and done.stderr == b""
    files = {
        name: (tmp_path / name).read_bytes().decode("utf-8")
        for name in ("r.json", "r.sarif", "r.xml", "r.txt")
    }
    assert json.loads(files["r.json"])["inputs"][0]["path"] == shown
    assert json.loads(files["r.sarif"])["runs"][0]["artifacts"][0]["properties"]["path"] == shown
    assert f'name="{shown}"' in files["r.xml"] and files["r.txt"].startswith(f"audit: {shown}\n")
    done = run("baseline", "create", ".", "-o", "baseline.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (
        json.loads((tmp_path / "baseline.json").read_bytes().decode("utf-8"))["entries"][0]["path"]
        == shown
    )
