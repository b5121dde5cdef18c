"""The JSON report's fast text for amounts and statistics' groups against the plain versions beside it."""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

from audit.reporters import json_report
from audit.rulesets import Library
from audit.run import run_audit

ROOT = Path(__file__).resolve().parent.parent


def plain_money(value: Decimal) -> str:
    return format(value.quantize(Decimal("0.01")), "f")


def plain_group_text(g) -> str:
    """What the report wrote before: the group's dictionary by the C encoder, at its depth."""
    members = json.dumps(
        json_report._group(g), ensure_ascii=False, separators=(",\n        ", ": ")
    )
    return "{\n        " + members[1:-1] + "\n      }"


def test_money_is_the_amount_to_the_cent_in_fixed_notation():
    rng = random.Random(3)
    values = [Decimal("-0"), Decimal("-0.001"), Decimal("0E+3"), Decimal("1E+20"), Decimal("1E-9")]
    values += [Decimal("123456789012345678901234.005"), Decimal("0.005"), Decimal("0.015")]
    for _ in range(20_000):
        digits = rng.randrange(0, 10 ** rng.randrange(1, 24))
        values.append(
            Decimal(digits).scaleb(-rng.randrange(-3, 9)).copy_negate()
            if rng.random() < 0.5
            else Decimal(digits).scaleb(-rng.randrange(-3, 9))
        )
    for value in values:
        assert json_report.money(value) == plain_money(value), value


def test_a_group_s_text_is_the_encoder_s(tmp_path):
    """Every group of a night with pairs, the units test and card tests, and groups made odd on
    purpose (no table, quotes, accents, a control character, infinite and NaN figures)."""
    library = Library.load()
    library.statistics = True
    report = run_audit(library, [str(ROOT / "fixtures" / "nights" / "mixed-night.del")])
    groups = list(report.statistics.groups)
    assert {g.test for g in groups} >= {"result", "units", "ranks", "order"}
    assert any(g.scope == "pair" for g in groups)
    money = next(g for g in groups if g.test == "result")
    cards = next(g for g in groups if g.test == "ranks")
    odd = [
        replace(money, id='P"7\\é\u2028\x01', table=None, ruleset=None, z=None, p=None),
        replace(money, z=math.inf, p=-math.inf),
        replace(cards, statistic=math.nan, cards=None, z=-0.0, p=5e-324),
        replace(money, scope="pair", id="D1+P1", dealer="D1", player="P1", path="é/night.del"),
    ]
    for g in groups + odd:
        assert json_report._group_text(g) == plain_group_text(g)
