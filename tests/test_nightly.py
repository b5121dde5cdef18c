"""The nightly job: baselines and configuration, as a CI pipeline uses them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from in_process import audit as audit_here

ROOT = Path(__file__).resolve().parent.parent
THREE = ROOT / "fixtures" / "acceptance" / "three-breaches.del"
HOUSE = ROOT / "rulesets" / "house" / "casino-exemple-fr.yaml"


def audit(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """The auditor of this checkout (not another one installed), run from ``cwd``, in this process
    (tests/in_process.py)."""
    return audit_here(*args, cwd=cwd)


def _night(tmp_path: Path) -> Path:
    log = tmp_path / "logs" / "night.del"
    log.parent.mkdir()
    log.write_text(THREE.read_text(encoding="utf-8"), encoding="utf-8")
    return log


def test_a_baselined_night_passes_and_a_new_breach_fails_alone(tmp_path):
    log = _night(tmp_path)
    base = tmp_path / "baseline.json"
    made = audit(
        "baseline",
        "create",
        str(log),
        "--output",
        str(base),
        "--justification",
        "reviewed by compliance",
    )
    assert made.returncode == 0, made.stderr
    entries = json.loads(base.read_text(encoding="utf-8"))["entries"]
    assert len(entries) == 3 and {e["justification"] for e in entries} == {"reviewed by compliance"}

    again = audit("check", "--format", "json", "--baseline", str(base), str(log))
    assert again.returncode == 0, again.stdout
    report = json.loads(again.stdout)
    assert report["findings"] == [] and len(report["suppressed"]) == 3
    assert report["baseline"]["stale"] == []

    # one more line above everything shifts every line number: fingerprints do not move
    text = log.read_text(encoding="utf-8").replace(
        "#casino Casino-Exemple\n", "#casino Casino-Exemple\n# shifted\n"
    )
    # and one new breach: seat 6 collected twice
    text = text.replace(
        "2026-11-20T21:01:30.000+01:00 BAT-07 ROUND 1 end",
        "2026-11-20T21:01:19.000+01:00 BAT-07 COLLECT seat=6 spot=main amount=40\n"
        "2026-11-20T21:01:30.000+01:00 BAT-07 ROUND 1 end",
    )
    log.write_text(text, encoding="utf-8")
    new = audit("check", "--format", "json", "--baseline", str(base), str(log))
    assert new.returncode == 1
    report = json.loads(new.stdout)
    assert [f["rule"] for f in report["findings"]] == ["FR-SETTLE-ONCE"]
    assert len(report["suppressed"]) == 3


def test_a_removed_breach_leaves_a_stale_entry(tmp_path):
    log = _night(tmp_path)
    base = tmp_path / "baseline.json"
    audit("baseline", "create", str(log), "--output", str(base))
    fixed = log.read_text(encoding="utf-8").replace(
        "PAY seat=3 spot=main amount=40", "PAY seat=3 spot=main amount=50"
    )
    log.write_text(fixed, encoding="utf-8")
    done = audit("check", "--format", "json", "--baseline", str(base), str(log))
    assert done.returncode == 0
    stale = json.loads(done.stdout)["baseline"]["stale"]
    assert [e["rule"] for e in stale] == ["FR-PAY-MAIN"]
    assert "stale" in audit("check", "--baseline", str(base), str(log)).stdout


def test_a_broken_baseline_stops_with_exit_2(tmp_path):
    bad = tmp_path / "b.json"
    bad.write_text(
        '{"format": "del-audit-baseline", "version": 1, "entries": [{"rule": 1}]}', encoding="utf-8"
    )
    done = audit("check", "--baseline", str(bad), str(THREE))
    assert done.returncode == 2 and "entries.0" in done.stderr and "Traceback" not in done.stderr


def test_configuration_is_found_upwards_and_the_command_line_wins(tmp_path):
    log = _night(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "nights"\n\n[tool.audit]\nfail-on = "info"\n'
        'reports = [{format = "json", output = "out/report.json"}]\n',
        encoding="utf-8",
    )
    (tmp_path / "out").mkdir()
    deep = tmp_path / "logs"
    done = audit("check", "night.del", cwd=deep)
    assert done.returncode == 1
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert len(report["findings"]) == 3
    # the command line wins: text to standard output, not the configured JSON file
    done = audit("check", "--format", "text", "--fail-on", "error", str(log), cwd=deep)
    assert "3 error" in done.stdout


def test_audit_toml_maps_house_overlays_to_tables_by_pattern(tmp_path):
    log = _night(tmp_path)
    (tmp_path / "audit.toml").write_text(
        f'[house]\n"BAT-0*" = "{HOUSE.as_posix()}"\n"X-*" = "nope.yaml"\n', encoding="utf-8"
    )
    bad = audit("check", str(log), cwd=tmp_path)
    assert bad.returncode == 2 and "nope.yaml" in bad.stderr
    (tmp_path / "audit.toml").write_text(
        f'[house]\n"BAT-0*" = "{HOUSE.as_posix()}"\n', encoding="utf-8"
    )
    done = audit("check", "--format", "json", str(log), cwd=tmp_path)
    (summary,) = json.loads(done.stdout)["table_summaries"]
    assert summary["overlay"] == "casino-exemple-fr"


def test_a_bad_configuration_names_the_key(tmp_path):
    (tmp_path / "audit.toml").write_text('fail_on = "error"\ncolour = "red"\n', encoding="utf-8")
    done = audit("check", str(THREE), cwd=tmp_path)
    assert done.returncode == 2
    assert (
        "audit.toml: fail_on: unknown key" in done.stderr
        or "audit.toml: colour: unknown key" in done.stderr
    )


def test_several_reports_in_one_run(tmp_path):
    out_json, out_txt = tmp_path / "r.json", tmp_path / "r.txt"
    done = audit(
        "check",
        "--format",
        "json",
        "--output",
        str(out_json),
        "--format",
        "text",
        "--output",
        str(out_txt),
        str(THREE),
    )
    assert done.returncode == 1 and done.stdout == ""
    assert len(json.loads(out_json.read_text(encoding="utf-8"))["findings"]) == 3
    assert "expected: PAY seat=3 spot=main amount=50" in out_txt.read_text(encoding="utf-8")
    assert audit("check", "--format", "json", "--format", "text", str(THREE)).returncode == 2


def test_table_summary_ties_the_report_to_the_evidence():
    done = audit("check", "--format", "json", "fixtures/nights/example-night.del")
    report = json.loads(done.stdout)
    (inp,) = report["inputs"]
    import hashlib

    assert (
        inp["sha256"]
        == hashlib.sha256((ROOT / "fixtures/nights/example-night.del").read_bytes()).hexdigest()
    )
    fr = next(t for t in report["table_summaries"] if t["ruleset"] == "fr-bataille-2007")
    assert fr["rounds"] > 0 and fr["banked_by"] == "house"
    from decimal import Decimal

    win = Decimal(fr["collected"]) - Decimal(fr["paid"])
    assert Decimal(fr["house_win"]) == win
    assert Decimal(fr["hold_percent"]) == (win * 100 / Decimal(fr["drop"])).quantize(
        Decimal("0.01")
    )


def test_configuration_can_point_at_another_rulesets_folder(tmp_path):
    import shutil

    folder = tmp_path / "regs"
    shutil.copytree(ROOT / "rulesets", folder, ignore=shutil.ignore_patterns("house"))
    fr = folder / "fr-bataille-2007.yaml"
    fr.write_text(
        fr.read_text(encoding="utf-8").replace("params: {odds: 1}", "params: {odds: 0.8}", 1),
        encoding="utf-8",
    )
    (tmp_path / "audit.toml").write_text('rulesets = "regs"\n', encoding="utf-8")
    log = _night(tmp_path)
    done = audit("check", "--format", "json", str(log), cwd=tmp_path)
    pay = [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "FR-PAY-MAIN"]
    assert pay == []  # 40 on a stake of 50 is right at 0.8 to 1
    assert "FR-PAY-MAIN" in [
        f["rule"]
        for f in json.loads(
            audit(
                "check",
                "--format",
                "json",
                "--rulesets",
                str(ROOT / "rulesets"),
                str(log),
                cwd=tmp_path,
            ).stdout
        )["findings"]
    ]


def test_a_stale_entry_shows_what_it_was_never_none(tmp_path):
    """A syntax finding has no table and no round: its stale entry says so in words."""
    log = _night(tmp_path)
    text = log.read_text(encoding="utf-8")
    log.write_text(text + "not an event at all\n", encoding="utf-8")
    base = tmp_path / "baseline.json"
    assert audit("baseline", "create", str(log), "--output", str(base)).returncode == 0
    log.write_text(
        text.replace("PAY seat=3 spot=main amount=40", "PAY seat=3 spot=main amount=50"),
        encoding="utf-8",
    )
    shown = audit("check", "--baseline", str(base), str(log)).stdout
    stale = [line.strip() for line in shown.splitlines() if line.strip().startswith("stale ")]
    assert len(stale) == 2 and not any("None" in line for line in stale)
    assert stale[0].startswith(
        f"stale FR-PAY-MAIN {log.as_posix()}, table BAT-07, round 1: seat 3 main: paid 40"
    )
    assert stale[1].startswith(f"stale DEL-SYNTAX {log.as_posix()}, (no table): ")
    assert stale[1].endswith("(matches nothing any more)")
