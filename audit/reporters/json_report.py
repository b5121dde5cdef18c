"""The JSON report of the findings contract (format ``del-audit-report``, version 1)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import Any

from .. import __version__
from ..engine.stats import TableStats
from ..escape import undecodable_escaped
from ..report import Report
from ..statistics import CORRECTION
from . import json_pieces

FORMAT = "del-audit-report"
VERSION = 1


def _as_dict(report: Report, findings: Any, groups: bool = True) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "auditor": {"name": "del-audit", "version": __version__},
        "inputs": [
            {
                "path": i.path,
                "sha256": i.sha256,
                "lines": i.lines,
                "size": i.size,
                "accounting": i.accounting,
            }
            for i in report.inputs
        ],
        "summary": {
            "tables": report.tables,
            "rounds": report.rounds,
            "events": report.events,
            "findings": report.counts(),
        },
        **(
            {}
            if report.configuration is None
            else {"configuration": report.configuration.as_json()}
        ),
        "findings": findings,
        "table_summaries": [table_summary(report, t) for t in report.table_stats],
        "suppressed": [
            {
                **s.finding.model_dump(mode="json"),
                "fingerprint": s.fingerprint,
                "justification": s.justification,
            }
            for s in report.suppressed
        ],
        "baseline": None
        if report.baseline is None
        else {"path": report.baseline, "stale": report.stale},
        **({} if report.statistics is None else {"statistics": statistics(report, groups)}),
        "rulesets": [
            {
                "id": r.id,
                "sha256": r.sha256,
                "overlay": None
                if r.overlay is None
                else {
                    "id": r.overlay.model.overlay,
                    "path": r.overlay.path.as_posix(),
                    "sha256": r.overlay.sha256,
                },
            }
            for r in report.rulesets
        ],
    }


CENT = Decimal("0.01")


def money(value: Decimal) -> str:
    """Amounts are strings with two decimals: exact, whatever the reader's number type.

    ``str`` of an amount quantized to the cent is ``format(..., "f")``'s text (an exponent of -2 is
    never written as one), at a fifth of its cost: a long night's groups hold a hundred thousand."""
    return str(value.quantize(CENT))


def table_summary(report: Report, t: TableStats) -> dict[str, Any]:
    return {
        "path": t.path,
        "table": t.table,
        "ruleset": t.ruleset,
        "overlay": t.overlay,
        "game": t.game,
        "rounds": t.rounds,
        "findings": report.findings_by_category(t.path, t.table),
        "drop": money(t.drop),
        "paid": money(t.paid),
        "collected": money(t.collected),
        "house_win": money(t.house_win),
        "hold_percent": None if t.hold is None else format(t.hold, "f"),
        "banked_by": "house" if t.house_banked else "player",
    }


#: where ``render`` writes the groups (a string JSON escapes as no report's text can be: a NUL)
GROUPS_HERE = "\x00groups"
#: a group's members as ``json.dumps(indent=2)`` lays them out at its depth in the report
_MEMBERS = ",\n        "


def statistics(report: Report, groups: bool = True) -> dict[str, Any]:
    """The ``statistics`` section (statistics contract, section 2); without ``groups``, a mark where they go."""
    stats = report.statistics
    assert stats is not None  # called only for a report with statistics
    found = stats.anomalies()
    return {
        "alpha": stats.alpha,
        "correction": CORRECTION,
        "tested": stats.tested,
        "listed": len(stats.groups),
        "groups": [_group(g) for g in stats.groups] if groups else GROUPS_HERE,
        "anomalies": [anomaly(a) for a in found],
    }


def anomaly(a) -> dict[str, Any]:
    """An anomaly with what an officer needs to pull the footage and the rounds (contract, section 3)."""
    g = a.group
    out: dict[str, Any] = {"scope": g.scope, "id": g.id}
    if g.scope == "pair":
        out.update(dealer=g.dealer, player=g.player)
    out.update(
        path=g.path,
        table=g.table,
        test=g.test,
        dealers=list(g.dealers),
        shoes=list(g.shoes),
        first_line=g.first_line,
        last_line=g.last_line,
        first_time=g.first_time,
        last_time=g.last_time,
        rounds=g.rounds,
        handle=None if g.handle is None else money(g.handle),
        result=None if g.result is None else money(g.result),
        expected=None if g.expected is None else money(g.expected),
        sd=None if g.sd is None else money(g.sd),
    )
    if g.test == "units":
        out.update(
            bets=g.bets,
            units=str(g.units),
            units_expected=str(g.units_expected),
            units_sd=str(g.units_sd),
        )
    out.update(
        z=g.z,
        p=g.p,
        p_adjusted=a.p_adjusted,
        message=a.message,
    )
    if a.linked:
        out["linked_shoes"] = list(a.linked)
    return out


def _group(g) -> dict[str, Any]:
    out: dict[str, Any] = {
        "scope": g.scope,
        "id": g.id,
        **({"dealer": g.dealer, "player": g.player} if g.scope == "pair" else {}),
        "path": g.path,
        "table": g.table,
        "ruleset": g.ruleset,
        "test": g.test,
        "rounds": g.rounds,
    }
    if g.test == "result":
        out.update(
            handle=money(g.handle),
            result=money(g.result),
            expected=money(g.expected),
            sd=money(g.sd),
        )
    elif g.test == "units":
        out.update(
            bets=g.bets,
            units=str(g.units),
            units_expected=str(g.units_expected),
            units_sd=str(g.units_sd),
        )
    else:
        out.update(cards=g.cards, statistic=g.statistic)
    out.update(z=g.z, p=g.p)
    return out


def pieces(report: Report) -> Iterator[str]:
    """The report as UTF-8 text, a finding at a time (never all in memory): a file name's bytes
    that are not UTF-8 are written ``\\xNN``."""
    findings = (f.model_dump(mode="json") for f in report.findings)
    document = _as_dict(report, json_pieces.MARK, groups=False)
    mark = json.dumps(GROUPS_HERE)  # the statistics' groups, after the findings
    for piece in json_pieces.pieces(document, findings, _escaped):
        if report.statistics is not None and mark in piece:
            before, _, after = piece.partition(mark)
            yield before
            yield from map(_escaped, _groups_pieces(report.statistics.groups))
            yield after
        else:
            yield piece
    yield "\n"


def _escaped(text: str) -> str:
    return undecodable_escaped(text, "\\\\")


def render(report: Report) -> str:
    """The report as UTF-8 text, whole."""
    return "".join(pieces(report))


def _groups_pieces(groups: Iterable) -> Iterator[str]:
    """The statistics' groups (tens of thousands on a long log) as ``json.dumps(indent=2)`` lays them
    out in the report, one flat object at a time (``_group_text``): the same bytes, without the
    pure-Python encoder's pieces of every group, or the groups themselves, held at once."""
    first = True
    for g in groups:
        yield ("[\n      " if first else ",\n      ") + _group_text(g)
        first = False
    yield "[]" if first else "\n    ]"


def _group_text(g) -> str:
    """``_group(g)`` as ``json.dumps(indent=2)`` writes it at its depth in the report, each member's
    value encoded as the C encoder does (``_value``), without the dictionary or the encoder's set-up:
    the same text (a test compares the two). The members a night's groups share, their path, table,
    ruleset and test, are encoded once (``_placed``); a string member is encoded by the C encoder's
    function, a count by ``int``'s; each test's members are one f-string (one string built, where
    pieces were joined)."""
    scope, test = g.scope, g.test
    placed = _PLACED.get((g.path, g.table, g.ruleset, test)) or _placed(g)
    if scope == "pair":
        head = (
            f'{{\n        "scope": "pair",\n        "id": {_string(g.id)},\n        "dealer": '
            f'{_string(g.dealer)},\n        "player": {_string(g.player)},\n        {placed},\n'
            f'        "rounds": {int.__repr__(g.rounds)},\n        '
        )
    else:
        head = (
            f'{{\n        "scope": {_string(scope)},\n        "id": {_string(g.id)},\n        '
            f'{placed},\n        "rounds": {int.__repr__(g.rounds)},\n        '
        )
    if test == "result":
        return (
            f'{head}"handle": "{money(g.handle)}",\n        "result": "{money(g.result)}",\n'
            f'        "expected": "{money(g.expected)}",\n        "sd": "{money(g.sd)}",\n'
            f'        "z": {_value(g.z)},\n        "p": {_value(g.p)}\n      }}'
        )
    if test == "units":
        return (
            f'{head}"bets": {_value(g.bets)},\n        "units": "{g.units!s}",\n'
            f'        "units_expected": "{g.units_expected!s}",\n        "units_sd": "{g.units_sd!s}",\n'
            f'        "z": {_value(g.z)},\n        "p": {_value(g.p)}\n      }}'
        )
    return (
        f'{head}"cards": {_value(g.cards)},\n        "statistic": {_value(g.statistic)},\n'
        f'        "z": {_value(g.z)},\n        "p": {_value(g.p)}\n      }}'
    )


#: by (path, table, ruleset, test): those members as ``_placed`` wrote them (a few a night; bounded)
_PLACED: dict[tuple, str] = {}


def _placed(g) -> str:
    """The path, table, ruleset and test members of a group, encoded and kept for the next groups."""
    if len(_PLACED) >= 1024:
        _PLACED.clear()
    text = _PLACED[(g.path, g.table, g.ruleset, g.test)] = _MEMBERS.join(
        (
            '"path": ' + _value(g.path),
            '"table": ' + _value(g.table),
            '"ruleset": ' + _value(g.ruleset),
            '"test": ' + _value(g.test),
        )
    )
    return text


#: a string as ``json.dumps(..., ensure_ascii=False)`` writes it (the C encoder's function)
_string = json.encoder.encode_basestring


def _value(value: str | int | float | None) -> str:
    """A member's value as ``json.dumps`` writes it: a string, an integer, a float (``repr``, or
    NaN and the infinities as JSON's encoder names them), or null."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return _string(value)
    kind = type(value)
    if kind is int:
        return int.__repr__(value)
    if kind is float and math.isfinite(value):
        return float.__repr__(value)
    return json.dumps(value)
