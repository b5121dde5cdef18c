"""`audit simulate`: a night of very few rounds breaks no rule either.

The ends of a night are where a simulated table is most likely to skip what the
rules ask (a Monaco table announces its end of play before its last rounds, and
a night shorter than them has its last shoe announced instead). Every small
round count, in both styles, over several seeds and numbers of tables, is
simulated and audited in this process.
"""

from __future__ import annotations

import json

import pytest
from in_process import audit

#: (seed, tables): the realistic style without a ruleset needs a table for each shipped ruleset
NIGHTS = ((1, 24), (2, 5), (3, 3))


@pytest.mark.parametrize("style", ["plain", "realistic"])
@pytest.mark.parametrize("rounds", range(6))
def test_a_short_night_audits_clean(tmp_path, style, rounds):
    log = tmp_path / "night.del"
    broken = {}
    for seed, tables in NIGHTS:
        made = audit(
            "simulate",
            *("--tables", str(tables), "--rounds", str(rounds), "--seed", str(seed)),
            *("--style", style, "--output", str(log)),
        )
        assert made.returncode == 0, made.stderr
        done = audit("check", "--format", "json", str(log))
        report = json.loads(done.stdout)
        assert report["summary"]["rounds"] == tables * rounds
        if done.returncode or report["findings"]:
            broken[seed, tables] = sorted(
                f"{f['table']}:{f['line']} {f['rule']}" for f in report["findings"]
            )
    assert broken == {}
