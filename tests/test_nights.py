"""The shipped nights: rule-abiding, large and varied enough to mean something when they audit clean."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from audit import events as ev
from audit.games.chemin_de_fer import events as cdf
from audit.games.chemin_de_fer.cards import BACCARA_POINTS
from audit.games.chemin_de_fer.drawing import points
from audit.parse import parse_line

ROOT = Path(__file__).resolve().parent.parent
NIGHTS = ROOT / "fixtures" / "nights"


def _audit_json(path: Path) -> tuple[int, dict]:
    done = subprocess.run(
        [sys.executable, "-m", "audit", "check", "--format", "json", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.returncode, json.loads(done.stdout)


def _events(path: Path):
    with path.open(encoding="utf-8") as lines:
        for n, text in enumerate(lines, start=1):
            parsed = parse_line(text.rstrip("\n"), n)
            if parsed is not None and hasattr(parsed, "verb"):
                yield parsed


def test_chemin_de_fer_night_is_clean_and_covers_the_rule():
    path = NIGHTS / "cdf-night.del"
    code, report = _audit_json(path)
    assert code == 0 and report["findings"] == []
    assert report["summary"]["rounds"] >= 300
    text = path.read_text(encoding="utf-8")
    for needle in (
        " PASS",
        "how=auction",
        " AWARD ",
        "how=taux",
        "how=taken",
        "ABAT ponte",
        "ABAT banker",
        "mode=table",
        "mode=suivi",
        " ASSOCIATE ",
        " TABLEAU banker",
        "ADVICE ponte non",
    ):
        assert needle in text, needle
    assert len(set(re.findall(r" HAND seat=(\d+)", text))) >= 4  # several bankers


def test_chemin_de_fer_night_visits_every_cell_of_the_drawing_table():
    """Recomputed from the cards, independently of the engine: (banker's point, ponte's third card or NON)."""
    cells: set[tuple[int, str]] = set()
    coups: dict[str, dict] = defaultdict(dict)
    for e in _events(NIGHTS / "cdf-night.del"):
        coup = coups[e.table]
        if isinstance(e, ev.Round) and e.action == "begin":
            coups[e.table] = {"ponte": [], "banker": []}
        elif isinstance(e, ev.Deal) and e.to in ("ponte", "banker"):
            coup[e.to].append(e.card)
        elif isinstance(e, cdf.Call) and e.side == "banker":
            third = BACCARA_POINTS[coup["ponte"][2].rank] if len(coup["ponte"]) == 3 else "NON"
            cells.add((points(coup["banker"][:2]), str(third)))
    wanted = {(b, str(c)) for b in range(8) for c in [*range(10), "NON"]}
    assert wanted <= cells, sorted(wanted - cells)


def test_mixed_night_audits_each_table_under_its_own_ruleset():
    path = NIGHTS / "mixed-night.del"
    code, report = _audit_json(path)
    assert code == 0 and report["findings"] == []
    opened = dict(
        re.findall(
            r"^\S+ (\S+) OPEN game=\S+ ruleset=(\S+)", path.read_text(encoding="utf-8"), re.M
        )
    )
    assert {t["table"]: t["ruleset"] for t in report["table_summaries"]} == opened
    assert {"fr-bataille-2007", "mc-sun-war-2006", "be-ostende-cdf"} <= set(opened.values())


def test_a_breach_in_the_mixed_night_is_judged_by_its_tables_ruleset(tmp_path):
    text = (NIGHTS / "mixed-night.del").read_text(encoding="utf-8")
    cdf_pay = re.search(r"^(\S+ (CDF-\S+) PAY by=\S+ amount=)(\d+)$", text, re.M)
    assert cdf_pay
    broken = text.replace(cdf_pay.group(0), cdf_pay.group(1) + str(int(cdf_pay.group(3)) + 1), 1)
    log = tmp_path / "mixed.del"
    log.write_text(broken, encoding="utf-8")
    code, report = _audit_json(log)
    assert code == 1
    assert [(f["rule"], f["table"], f["ruleset"]) for f in report["findings"]] == [
        ("CDF-SETTLE", cdf_pay.group(2), "be-ostende-cdf")
    ]
