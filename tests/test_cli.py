"""The command line as users and the nightly job meet it: exit codes, JSON contract, messages."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from in_process import audit as audit_here

from fixtures import read_fixture

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
THREE = ROOT / "fixtures" / "acceptance" / "three-breaches.del"
NIGHT = ROOT / "fixtures" / "nights" / "example-night.del"


def audit(*args: str, stdin: str | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """The command line in this process (tests/in_process.py), in the folder ``cwd``, ``stdin``
    its standard input."""
    return audit_here(*args, cwd=cwd, input=stdin)


def spec_examples() -> list[str]:
    spec = SHARED / "spec" / "del-format.md"
    if not spec.is_file():
        return []
    return re.findall(r"^```\n(.*?)^```$", spec.read_text(encoding="utf-8"), re.S | re.M)


def test_three_breaches_give_exactly_three_findings_and_exit_1():
    done = audit("check", "--format", "json", str(THREE.relative_to(ROOT)))
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    got = [
        (f["rule"], f["category"], f["line"], f["round"], f["table"]) for f in report["findings"]
    ]
    assert got == [
        ("FR-LATE-BET", "late-bet", 24, 1, "BAT-07"),
        ("FR-BURN-START", "missed-burn", 26, 1, "BAT-07"),
        ("FR-PAY-MAIN", "wrong-payout", 31, 1, "BAT-07"),
    ]
    assert sorted((r, line) for r, _, line, _, _ in got) == read_fixture(THREE).expected
    quoted = [
        "ne peuvent être placées, modifiées ou retirées après le",
        "brûle les cinq premières cartes du sabot",
        "payée une fois la mise",
    ]
    for f, words in zip(report["findings"], quoted):
        assert f["citation"].startswith("art. 55-19") and words in f["citation"]
        assert f["ruleset"] == "fr-bataille-2007"
    pay = report["findings"][2]
    assert pay["expected"] == "PAY seat=3 spot=main amount=50"
    assert pay["actual"] == "PAY seat=3 spot=main amount=40"
    assert report["summary"]["findings"] == {"error": 3, "warning": 0, "info": 0}


def test_json_report_follows_the_contract():
    done = audit("check", "--format", "json", str(THREE.relative_to(ROOT)))
    report = json.loads(done.stdout)
    assert report["format"] == "del-audit-report" and report["version"] == 1
    (inp,) = report["inputs"]
    assert inp["path"] == "fixtures/acceptance/three-breaches.del"
    assert re.fullmatch(r"[0-9a-f]{64}", inp["sha256"])
    assert inp["lines"] == len(THREE.read_text(encoding="utf-8").splitlines())
    assert set(report["summary"]) == {"tables", "rounds", "events", "findings"}
    keys = [
        "rule",
        "category",
        "severity",
        "path",
        "line",
        "table",
        "round",
        "message",
        "expected",
        "actual",
        "ruleset",
        "citation",
        "time",
        "dealer",
        "shoe",
    ]
    for f in report["findings"]:
        assert list(f) == keys


def test_same_input_same_bytes(tmp_path):
    a = audit("check", "--format", "json", str(THREE.relative_to(ROOT)))
    b = audit("check", "--format", "json", str(THREE.relative_to(ROOT)))
    assert a.stdout == b.stdout
    out = tmp_path / "r.json"
    c = audit("check", "--format", "json", "--output", str(out), str(THREE.relative_to(ROOT)))
    assert c.returncode == 1 and out.read_text(encoding="utf-8") == a.stdout


def test_findings_are_ordered_by_path_line_rule(tmp_path):
    done = audit("check", "--format", "json", "fixtures/rules")
    report = json.loads(done.stdout)
    keys = [(f["path"], f["line"], f["rule"]) for f in report["findings"]]
    assert keys == sorted(keys) and len(keys) > 1


def test_text_report_shows_summary_and_expected_beside_actual():
    done = audit("check", str(THREE.relative_to(ROOT)))
    assert done.returncode == 1
    out = done.stdout
    assert "3 error" in out and "table BAT-07, round 1" in out
    assert "expected: PAY seat=3 spot=main amount=50" in out
    assert "actual:   PAY seat=3 spot=main amount=40" in out


def test_fail_on_sets_the_failing_severity(tmp_path):
    log = tmp_path / "talon.del"
    text = THREE.read_text(encoding="utf-8")
    # a clean round but a talon a few cards short of a deck: a warning under the French text
    text = text.replace("talon=60", "talon=48").replace(
        "BURN 2C\n", "BURN 2C\n2026-11-20T21:00:45.000+01:00 BAT-07 BURN 3C\n"
    )
    text = text.replace("2026-11-20T21:01:10.500+01:00 BAT-07 BET seat=6 spot=main amount=20\n", "")
    text = text.replace("amount=40", "amount=XX").replace(
        "COLLECT seat=6 spot=main amount=XX", "COLLECT seat=6 spot=main amount=20"
    )
    text = text.replace("PAY seat=3 spot=main amount=XX", "PAY seat=3 spot=main amount=50")
    log.write_text(text, encoding="utf-8")
    assert audit("check", str(log)).returncode == 0
    warned = audit("check", "--fail-on", "warning", "--format", "json", str(log))
    assert warned.returncode == 1
    assert [f["rule"] for f in json.loads(warned.stdout)["findings"]] == ["FR-STOPCARD-APPROX"]


def test_standard_input_is_audited():
    done = audit("check", "--format", "json", "-", stdin=THREE.read_text(encoding="utf-8"))
    assert done.returncode == 1
    assert json.loads(done.stdout)["inputs"][0]["path"] == "<stdin>"


@pytest.mark.parametrize(
    "args, needle",
    [
        (["check", "no/such/file.del"], "no/such/file.del: no such file"),
        (["check", "--format", "xml", "x.del"], "xml"),
        (["check"], "Missing argument"),
    ],
)
def test_exit_2_when_the_audit_cannot_be_done(args, needle):
    done = audit(*args)
    assert done.returncode == 2
    assert needle in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_broken_overlay_stops_with_exit_2_naming_file_line_and_key(tmp_path):
    bad = tmp_path / "house.yaml"
    bad.write_text(
        "overlay: bad\nruleset: fr-bataille-2007\ntitle: t\nrules:\n  FR-PAY-MAIN:\n    severty: info\n",
        encoding="utf-8",
    )
    done = audit("check", "--house", str(bad), str(THREE.relative_to(ROOT)))
    assert done.returncode == 2
    assert f"{bad}, line 6: rules.FR-PAY-MAIN.severty: unknown key" in done.stderr
    assert "Traceback" not in done.stderr


def test_overlay_is_named_in_the_report():
    house = "rulesets/house/casino-exemple-fr.yaml"
    done = audit("check", "--format", "json", "--house", house, str(THREE.relative_to(ROOT)))
    fr = next(r for r in json.loads(done.stdout)["rulesets"] if r["id"] == "fr-bataille-2007")
    assert fr["overlay"]["id"] == "casino-exemple-fr"
    assert (
        "house rules: casino-exemple-fr"
        in audit("check", "--house", house, str(THREE.relative_to(ROOT))).stdout
    )


def test_rules_lists_every_rule_with_category_severity_and_citation():
    done = audit("rules", "fr-bataille-2007")
    assert done.returncode == 0
    assert "FR-PAY-MAIN  wrong-payout  error" in done.stdout
    assert '« La mise "égalité" paie 10 pour 1. »' in done.stdout
    assert audit("rules", "xx-nothing").returncode == 2


@pytest.mark.skipif(
    not spec_examples(), reason="../shared/spec/del-format.md is not beside the project"
)
@pytest.mark.parametrize("index", range(len(spec_examples()) or 1))
def test_every_example_of_the_format_spec_audits_clean(tmp_path, index):
    log = tmp_path / f"example-{index + 1}.del"
    log.write_text(spec_examples()[index], encoding="utf-8")
    done = audit("check", "--format", "json", str(log))
    assert done.returncode == 0, done.stdout
    assert json.loads(done.stdout)["findings"] == []


def test_example_night_is_clean_and_large_enough():
    done = audit("check", "--format", "json", str(NIGHT.relative_to(ROOT)))
    report = json.loads(done.stdout)
    assert done.returncode == 0, [f["message"] for f in report["findings"]][:10]
    assert report["findings"] == []
    assert report["summary"]["rounds"] >= 200 and report["summary"]["tables"] >= 2
    rulesets = set(re.findall(r"ruleset=(\S+)", NIGHT.read_text(encoding="utf-8")))
    assert {"fr-bataille-2007", "mc-sun-war-2006"} <= rulesets


def test_nothing_is_read_from_or_written_to_a_cache_folder(tmp_path):
    """The grammar is compiled and the rulesets read at every run: nothing outside the installation
    is read back at start-up. A cache folder is the audited party's to write on its machine; a
    compiled grammar there is Lark's pickle (code run on load), a ruleset's data could be changed,
    and no report would show either (docs/trust.md). What earlier versions kept there, and code
    planted under their names, is never read, and nothing new is written."""
    import os
    import pickle

    marker = tmp_path / "ran"

    class Runs:  # unpickled, it would make the marker
        def __reduce__(self):
            return open, (str(marker), "w")

    home = tmp_path / "home"
    cache = home / ".cache" / "del-audit"
    cache.mkdir(parents=True)
    for name in ("del-grammar-0123456789abcdef-lark-1.3.1.cache", "ruleset-0123.pickle"):
        (cache / name).write_bytes(pickle.dumps(Runs()))
    before = sorted(p.name for p in cache.iterdir())
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    done = subprocess.run(
        [sys.executable, "-m", "audit", "check", "--format", "json", str(THREE)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1 and json.loads(done.stdout)["summary"]["findings"], done.stderr
    assert not marker.exists() and sorted(p.name for p in cache.iterdir()) == before
    assert [p.name for p in (home / ".cache").iterdir()] == ["del-audit"]


def test_a_reader_that_stops_early_ends_the_output_quietly():
    """``audit simulate | head``: the process ends with its exit code and no noise once the reader
    has gone (the command line ends with a hard exit after flushing its streams)."""
    done = subprocess.run(
        f"{sys.executable} -m audit simulate --ruleset fr-bataille-2007 --tables 4 --rounds 400 | head -3",
        shell=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.stdout.count("\n") == 3 and done.stderr == "", done.stderr
    with open("/dev/full", "w") as device:  # every write fails: no space left
        full = subprocess.run(
            [
                sys.executable,
                "-m",
                "audit",
                "simulate",
                "--ruleset",
                "fr-bataille-2007",
                "--tables",
                "1",
                "--rounds",
                "5",
            ],
            cwd=ROOT,
            stdout=device,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
        )
    assert full.returncode == 2 and "standard output: cannot write" in full.stderr


def test_the_command_starts_with_the_collector_off_and_runs_with_it_as_before(monkeypatch):
    """``audit`` (``audit/__main__.py``) loads the command line without the cyclic collector, then
    runs the command with it on again and nothing left frozen (the replay freezes what it wants)."""
    import builtins
    import gc
    import signal

    import audit.__main__ as entry
    import audit.cli

    seen = []
    monkeypatch.setattr(
        audit.cli, "main", lambda args=None: seen.append((gc.isenabled(), gc.get_freeze_count()))
    )
    real_import = builtins.__import__

    def watching(name, *args, **kwargs):
        if name == "cli":  # ``from .cli import main``
            seen.append(("loading", gc.isenabled()))
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr("builtins.__import__", watching)
    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        entry.main()
    finally:
        for signum, handler in handlers.items():  # main() stops a run interrupted while it loads
            signal.signal(signum, handler)
    monkeypatch.undo()
    assert seen == [("loading", False), (True, 0)]
    assert gc.isenabled()
