#!/usr/bin/env python3
"""The long fuzz run of the auditor (issue 6): at least a million generated lines.

    python3 fuzz/long_fuzz.py --lines 1000000 [--seed S] [--report FILE]

It writes log files of five kinds, in turn, until ``--lines`` lines are written:

- ``grammar``: whole logs of lines derived from the grammar itself (every rule
  and terminal of ``audit.parse.grammar()``, terminal regexes included),
  some values drawn from small realistic pools, the tables often opened first,
  times in order or not;
- ``raw``: lines of arbitrary text and bytes: NUL, invalid UTF-8, byte-order
  marks, CR, CR LF, gzip magic, control characters, a very long line now and then;
- ``mutated``: rule-abiding nights from ``audit.simulate`` with about one line
  in forty dropped, duplicated, swapped, corrupted, or replaced by a
  grammar-derived event at the same table and time;
- ``settlement``: rule-abiding nights (bataille FR, MC, chemin de fer) with a
  few PAY / COLLECT amounts changed to other valid amounts;
- every seventh file is also gzip-compressed (``.del.gz``).

Files are audited in chunks (several files in one ``run_audit``), with the
statistics as ``audit check`` computes them by default, and each input is
checked:

1. no exception; every line read is accounted for (events, comments, blank,
   headers, syntax, not audited add up to the lines; the lines are those of
   the file); size and SHA-256 are the file's; each syntax line has its
   ``DEL-SYNTAX`` finding; every finding is on a line of the file;
2. the report is deterministic: the chunk audited again gives the same bytes;
3. each file audited alone with ``jobs=2`` (its tables split over two
   processes) gives the same findings and accounting as in the chunk, and
   the same JSON report, statistics included, as alone with ``jobs=1``;
4. a compressed file gives the same lines, accounting and findings as its
   plain text (unless that text starts with gzip's magic bytes: it is then
   read as an archive, a damaged one);
5. a settlement night audits clean before the change, and after it every
   changed line has a ``wrong-payout`` finding and no other line has any.

It prints a summary (lines, files, findings by category, crashes, property
violations, seconds, peak memory) and writes it as JSON with ``--report``.
A file that breaks a property is kept (``--keep``, default a temporary
folder) and named in the summary. Exit status: 0 no crash and no violation,
1 otherwise, 2 usage error.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import platform
import random
import re
import resource
import shlex
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

try:  # Python 3.11+
    import re._parser as sre_parse  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover
    import sre_parse  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from audit import __version__  # noqa: E402
from audit.games.bataille.tables import FR, MC  # noqa: E402
from audit.games.chemin_de_fer.tables import CDF  # noqa: E402
from audit.parse import grammar  # noqa: E402
from audit.reporters.json_report import render  # noqa: E402
from audit.rulesets import Library  # noqa: E402
from audit.run import run_audit  # noqa: E402
from audit.simulate import TableSpec, simulate  # noqa: E402
from audit.stream.inputs import GZIP_MAGIC  # noqa: E402
from fuzz.regex_chars import char_class  # noqa: E402

D = Decimal
TZ = timezone(timedelta(hours=1))

# == random strings from the grammar ===============================================================

PRINTABLE = [chr(c) for c in range(32, 127)] + ["\t"]
#: characters a corrupted or hostile log may hold (never LF: that would be another line)
ODD = [
    "\x00",
    "\x01",
    "\x07",
    "\x08",
    "\x0b",
    "\x0c",
    "\r",
    "\x1b",
    "\x7f",
    "\x85",
    "\x9b",
    "\xa0",
    "é",
    "ß",
    "\u2028",
    "\u3000",
    "\ufeff",
    "\ufffd",
    "中",
    "\U0001f0a1",
    "\u200b",
]
REPEAT_CAP = 8


def wide_char(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.9:
        return rng.choice(PRINTABLE)
    if r < 0.97:
        return rng.choice(ODD)
    while True:
        c = rng.randrange(0x80, 0x110000)
        if not 0xD800 <= c <= 0xDFFF and c != 0x0A:
            return chr(c)


class RegexGen:
    """Random strings of one regex, read from its parse tree (look-arounds dropped: they only say
    what may follow a token, and a derived line puts a blank or the end there)."""

    def __init__(self, pattern: str):
        self.tree = list(sre_parse.parse(pattern))
        self._classes: dict[int, tuple[list[str] | None, object]] = {}

    def __call__(self, rng: random.Random) -> str:
        out: list[str] = []
        self._seq(self.tree, rng, out)
        return "".join(out)

    def _seq(self, items, rng, out) -> None:
        for op, av in items:
            self._node(str(op), av, rng, out)

    def _node(self, name, av, rng, out) -> None:
        if name == "LITERAL":
            out.append(chr(av))
        elif name == "NOT_LITERAL":
            c = wide_char(rng)
            out.append(c if ord(c) != av else "x")
        elif name == "ANY":
            out.append(wide_char(rng))
        elif name == "IN":
            out.append(self._char(av, rng))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, sub = av
            for _ in range(rng.randint(low, min(high, low + REPEAT_CAP))):
                self._seq(sub, rng, out)
        elif name == "SUBPATTERN":
            self._seq(av[-1], rng, out)
        elif name == "BRANCH":
            self._seq(rng.choice(av[1]), rng, out)
        elif name in ("ASSERT", "ASSERT_NOT", "AT"):
            pass
        else:
            raise NotImplementedError(f"regex node {name}")

    def _char(self, items, rng) -> str:
        key = id(items)
        if key not in self._classes:
            self._classes[key] = char_class(items)
        enumerable, member = self._classes[key]
        if enumerable is not None:
            return rng.choice(enumerable)
        for _ in range(100):
            c = wide_char(rng)
            if member(c):  # type: ignore[operator]
                return c
        return "x"


def _stamp(moment: datetime, frac: int | None, offset: str) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + ("" if frac is None else f".{frac:03d}") + offset


TABLES = ["BAT-01", "CDF-01", "T1"]
RULESET_IDS = ["fr-bataille-2007", "mc-sun-war-2006", "be-ostende-cdf", "del-v1", "xx-unknown"]
SMALL_AMOUNTS = ["0", "1", "5", "10", "12.50", "20", "25", "50", "100", "500", "1000", "0.01"]
CARDS = [
    r + s
    for r in ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2", "T"]
    for s in "SHDC"
]
BASE = datetime(2026, 11, 20, 21, 0)


EXTREMES = [datetime(1, 1, 1), datetime(1, 1, 1, 0, 0, 3), datetime(9999, 12, 31, 23, 59, 59)]


def _ts(rng: random.Random) -> str:
    moment = (
        BASE + timedelta(seconds=rng.randint(0, 600))
        if rng.random() < 0.98
        else rng.choice(EXTREMES)
    )
    return _stamp(
        moment,
        rng.choice([None, rng.randint(0, 999)]),
        rng.choice(["+01:00", "Z", "+00:00", "-05:00", "+14:00"]),
    )


#: realistic values for some terminals, drawn three times in four (else the grammar's own)
OVERRIDES = {
    "TIMESTAMP": _ts,
    "TABLE": lambda r: r.choice(TABLES),
    "RULESET_KV": lambda r: "ruleset=" + r.choice(RULESET_IDS),
    "SEATS_KV": lambda r: f"seats={r.randint(1, 10)}",
    "SEAT_KV": lambda r: f"seat={r.randint(1, 8)}",
    "SEAT_NUMBER": lambda r: str(r.randint(1, 8)),
    "BY_KV": lambda r: r.choice([f"by=seat:{r.randint(1, 8)}", "by=standing:S1"]),
    "ROUND_NUMBER": lambda r: str(r.randint(1, 4)),
    "AMOUNT_KV": lambda r: "amount=" + r.choice(SMALL_AMOUNTS),
    "MIN_KV": lambda r: "min=" + r.choice(SMALL_AMOUNTS),
    "MAX_KV": lambda r: "max=" + r.choice(SMALL_AMOUNTS),
    "DECKS_KV": lambda r: r.choice(["decks=6", "decks=8", "decks=1"]),
    "TALON_KV": lambda r: f"talon={r.randint(0, 90)}",
    "VERSION": lambda r: "1",
    "CARD": lambda r: r.choice(CARDS),
}


class GrammarGen:
    """Random lines derived from the compiled grammar: a rule is one of its expansions, an expansion
    its symbols in turn, a terminal its string or a string of its regex. ``biased``: realistic
    values three times in four, and a repeated argument list ``(_WS arg)+`` mostly as distinct
    arguments in any order (as a valid line has them)."""

    def __init__(self, rng: random.Random, biased: bool = True, max_depth: int = 12):
        lark = grammar()
        self.rng, self.biased, self.max_depth = rng, biased, max_depth
        self.literals: dict[str, str] = {}
        self.regexes: dict[str, RegexGen] = {}
        for t in lark.terminals:
            if t.pattern.type == "str":
                self.literals[t.name] = t.pattern.value
            else:
                self.regexes[t.name] = RegexGen(t.pattern.value)
        unknown = set(OVERRIDES) - set(self.literals) - set(self.regexes)
        if unknown:
            raise SystemExit(
                f"long_fuzz: overrides for terminals the grammar no longer has: {sorted(unknown)}"
            )
        self.rules: dict[str, list[list]] = defaultdict(list)
        for rule in lark.rules:
            self.rules[rule.origin.name].append(rule.expansion)
        self.args: dict[str, list[str]] = {}
        for name, alts in self.rules.items():
            base = [e for e in alts if not any(s.name == name for s in e)]
            if (
                len(base) == 1
                and len(base[0]) == 2
                and base[0][0].name == "_WS"
                and not base[0][1].is_term
            ):
                inner = self.rules.get(base[0][1].name, [])
                if inner and all(len(e) == 1 for e in inner):
                    self.args[name] = [e[0].name for e in inner]

    def term(self, name: str) -> str:
        if self.biased and name in OVERRIDES and self.rng.random() < 0.75:
            return OVERRIDES[name](self.rng)
        if name in self.literals:
            return self.literals[name]
        return self.regexes[name](self.rng)

    def rule(self, name: str, depth: int = 0) -> str:
        rng = self.rng
        if self.biased and name in self.args and rng.random() < 0.75:
            names = list(self.args[name])
            rng.shuffle(names)
            if rng.random() < 0.5:
                names = names[: rng.randint(1, len(names))]
            return "".join(" " + self.symbol_name(n, depth + 1) for n in names)
        alts = self.rules[name]
        if depth > self.max_depth:
            alts = [e for e in alts if not any(s.name == name for s in e)] or alts
        return "".join(self.symbol(s, depth + 1) for s in rng.choice(alts))

    def symbol(self, sym, depth: int) -> str:
        return self.term(sym.name) if sym.is_term else self.rule(sym.name, depth)

    def symbol_name(self, name: str, depth: int) -> str:
        return self.rule(name, depth) if name in self.rules else self.term(name)


# == the five kinds of file ==============================================================================

OPENINGS = [
    "2026-11-20T21:00:00+01:00 BAT-01 OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=500 "
    "egalite-min=5 egalite-max=50",
    "2026-11-20T21:00:00+01:00 T1 OPEN game=bataille ruleset=mc-sun-war-2006 seats=7 min=20 max=1000 "
    "egalite-min=5 egalite-max=100",
    "2026-11-20T21:00:00+01:00 CDF-01 OPEN game=chemin-de-fer ruleset=be-ostende-cdf seats=10 min=60 max=100000",
]
_LEADING = re.compile(r"^([ \t]*)(\S+)")


class Maker:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.biased = GrammarGen(self.rng, biased=True)
        self.pure = GrammarGen(self.rng, biased=False)

    # -- grammar-derived logs ----------------------------------------------------------------
    def grammar_file(self, target: int) -> bytes:
        rng = self.rng
        lines: list[str] = []
        while len(lines) < target:
            block: list[str] = []
            if rng.random() < 0.5:
                block += rng.sample(OPENINGS, len(OPENINGS))
            for _ in range(rng.randint(1, 60)):
                r = rng.random()
                if r < 0.6:
                    block.append(self.biased.rule("event_line"))
                elif r < 0.75:
                    block.append(self.biased.rule("start"))
                elif r < 0.9:
                    block.append(self.pure.rule("start"))
                else:
                    block.append(rng.choice(["", "  ", "\t"]))
            if rng.random() < 0.5:  # times in order, one second apart
                t0 = BASE + timedelta(minutes=len(lines))
                block = [
                    _LEADING.sub(
                        lambda m, i=i, t0=t0: (
                            m.group(1) + _stamp(t0 + timedelta(seconds=i), None, "+01:00")
                        ),
                        line,
                        count=1,
                    )
                    if line.lstrip()[:1].isdigit()
                    else line
                    for i, line in enumerate(block)
                ]
            lines += block
        return self._encode(lines)

    def _encode(self, lines: list[str]) -> bytes:
        rng = self.rng
        ending = rng.choice(["\n", "\r\n", "mixed"])
        out = []
        for line in lines:
            end = ending if ending != "mixed" else rng.choice(["\n", "\r\n", "\r\r\n"])
            out.append(line.encode("utf-8") + end.encode())
        data = b"".join(out)
        if rng.random() < 0.3:
            data = data.rstrip(b"\r\n")
        if rng.random() < 0.1:
            data = b"\xef\xbb\xbf" + data
        return data

    # -- raw text and bytes --------------------------------------------------------------------------
    SPECIAL = (
        b"\x00",
        b"\xef\xbb\xbf",
        b"\r",
        b"\r\n",
        b"\xff",
        b"\xfe\xff",
        b"\xc3",
        b"\xed\xa0\x80",
        b"\xf4\x90\x80\x80",
        b"\xc0\xaf",
        GZIP_MAGIC,
        b"\x85",
        b"\xe2\x80\xa8",
        b"\t",
        b" ",
        b"#",
        b'"',
        b"\x1b[2J",
        b"\xc2\xa0",
        b"\x0c",
    )

    def raw_line(self) -> bytes:
        rng = self.rng
        r = rng.random()
        if r < 0.3:
            return "".join(wide_char(rng) for _ in range(rng.randint(0, 80))).encode("utf-8")
        if r < 0.55:
            return bytes(rng.randrange(256) for _ in range(rng.randint(0, 40))).replace(b"\n", b"")
        if r < 0.8:
            return b"".join(
                rng.choice(self.SPECIAL)
                if rng.random() < 0.5
                else self.biased.rule("start").encode("utf-8")[: rng.randint(0, 60)]
                for _ in range(rng.randint(1, 5))
            )
        if r < 0.99995:
            return self.biased.rule("start").encode("utf-8")
        unit = rng.choice([b"A", b"ab ", b"\xff", b'"', b"\x00", b"9"])
        return unit * rng.randint(10_000, 1 << 20)

    def raw_file(self, target: int) -> bytes:
        rng = self.rng
        parts = [self.raw_line() for _ in range(target)]
        sep = rng.choice([b"\n", b"\n", b"\r\n", b"\r"])
        data = sep.join(parts)
        if sep == b"\r":
            data = b"\n".join(
                data[i : i + 200] for i in range(0, len(data), 200)
            )  # still many lines
        return data + (b"\n" if rng.random() < 0.5 else b"")

    # -- simulated nights, mutated ----------------------------------------------------------------------
    def night(self, rounds: int, kinds: str | None = None) -> list[str]:
        rng = self.rng
        d = D
        pool = {
            "fr": lambda i: TableSpec(
                f"BAT-{i:02d}",
                FR,
                rounds,
                7,
                d(10),
                d(500),
                d(5),
                d(50),
                rng.choice(["sabot", "shuffler", "shuffler-dealer"]),
            ),
            "mc": lambda i: TableSpec(
                f"MC-{i:02d}",
                MC,
                rounds,
                7,
                d(20),
                d(1000),
                d(5),
                d(100),
                rng.choice(["sabot", "shuffler", "shuffler-dealer"]),
            ),
            "cdf": lambda i: TableSpec(
                f"CDF-{i:02d}", CDF, rounds, rng.randint(8, 10), d(60), d(100000)
            ),
        }
        if kinds is None:
            choice = [rng.choice(sorted(pool)) for _ in range(rng.randint(1, 3))]
        else:
            choice = [kinds] * 2
        specs = [pool[k](i + 1) for i, k in enumerate(choice)]
        start = datetime(2026, 11, 20, 21, 0, tzinfo=TZ) + timedelta(seconds=rng.randint(0, 10_000))
        return list(simulate(tables=specs, seed=rng.getrandbits(32), start=start))

    def corrupt(self, line: str) -> str:
        rng = self.rng
        if not line:
            return "".join(wide_char(rng) for _ in range(rng.randint(1, 20)))
        i = rng.randrange(len(line))
        how = rng.choice(["char", "delete", "insert", "word", "cut", "case", "lead"])
        if how == "char":
            return line[:i] + wide_char(rng) + line[i + 1 :]
        if how == "delete":
            return line[:i] + line[i + 1 :]
        if how == "insert":
            return (
                line[:i]
                + rng.choice([" ", "\t", "=", "0", "9", ".", "-", "\x00", "é", "\xa0"])
                + line[i:]
            )
        if how == "cut":
            return line[:i]
        if how == "case":
            return line[:i] + line[i:].swapcase()
        if how == "lead":  # something before the line: blanks, or white space that is not a blank
            return rng.choice([" ", "\t", "  \t", "\x0c", "\x0b", "\xa0", "\u3000", "\x1c"]) + line
        words = line.split(" ")
        k = rng.randrange(len(words))
        words[k] = self.biased.term(
            rng.choice(
                [
                    "AMOUNT_KV",
                    "SEAT_KV",
                    "CARD",
                    "SPOT_KV",
                    "ROUND_NUMBER",
                    "BY_KV",
                    "TIMESTAMP",
                    "TABLE",
                    "SEAT_NUMBER",
                ]
            )
        )
        return " ".join(words)

    def mutated_file(self, target: int) -> bytes:
        rng = self.rng
        lines: list[str] = []
        while len(lines) < target:
            night = self.night(rng.randint(10, 80))
            for _ in range(max(1, len(night) // 40)):
                i = rng.randrange(len(night))
                op = rng.choice(
                    ["drop", "duplicate", "swap", "corrupt", "corrupt", "insert", "insert"]
                )
                if op == "drop":
                    del night[i]
                elif op == "duplicate":
                    night.insert(i, night[i])
                elif op == "swap":
                    j = min(len(night) - 1, max(0, i + rng.randint(-8, 8)))
                    night[i], night[j] = night[j], night[i]
                elif op == "corrupt":
                    night[i] = self.corrupt(night[i])
                else:
                    words = night[i].split(" ")
                    if len(words) >= 3 and not night[i].startswith("#"):
                        night.insert(i, f"{words[0]} {words[1]} {self.biased.rule('event')}")
                    else:
                        night.insert(i, self.biased.rule("start"))
            if rng.random() < 0.2:
                night = night[: rng.randrange(len(night))]  # cut short
            lines += night
        return self._encode(lines)

    # -- settlement amounts changed ---------------------------------------------------------------------
    _AMOUNT = re.compile(r"(?<= )amount=(\S+)")

    def settlement_night(self) -> tuple[bytes, bytes, list[int]]:
        """(clean night, the night with some settlement amounts changed, the changed line numbers)."""
        rng = self.rng
        lines = self.night(rng.randint(10, 40), kinds=rng.choice(["fr", "mc", "cdf"]))
        settles = [
            i for i, line in enumerate(lines) if re.search(r" (PAY|COLLECT) .*amount=", line)
        ]
        clean = "".join(f"{x}\n" for x in lines).encode()
        changed = (
            sorted(rng.sample(settles, min(len(settles), rng.randint(1, 15)))) if settles else []
        )
        for i in changed:
            old = D(self._AMOUNT.search(lines[i]).group(1))
            while True:
                r = rng.random()
                if r < 0.3:
                    new = old + rng.choice(
                        [D("0.01"), D("-0.01"), D(1), D(-1), D(5), D(-5), old, -old]
                    )
                elif r < 0.6:
                    new = D(rng.choice(SMALL_AMOUNTS + ["999999999999.99"]))
                else:
                    new = D(rng.randint(0, 10 ** rng.randint(1, 14) - 1)) / 100
                if D(0) <= new < D("1e12") and new != old:
                    break
            two = format(new.quantize(D("0.01")), "f")
            text = rng.choice(
                [two, two.rstrip("0").rstrip("."), two[:-1] if two.endswith("0") else two]
            )
            lines[i] = self._AMOUNT.sub(f"amount={text}", lines[i])
        return clean, "".join(f"{x}\n" for x in lines).encode(), [i + 1 for i in changed]


# == checking =============================================================================================


def expected_lines(data: bytes) -> int:
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def check_input(inp, findings, plain: bytes, stored: bytes) -> list[str]:
    """What must hold for every input: returns the properties broken (empty: none)."""
    bad = []
    acc = inp.accounting
    if any(v < 0 for v in acc.values()) or sum(acc.values()) != inp.lines:
        bad.append(f"accounting {acc} does not add up to {inp.lines} lines")
    if not plain.startswith(GZIP_MAGIC) and inp.lines != expected_lines(plain):
        bad.append(f"{inp.lines} lines read, the file has {expected_lines(plain)}")
    if inp.size != len(stored) or inp.sha256 != hashlib.sha256(stored).hexdigest():
        bad.append("size or sha256 is not the file's")
    syntax_lines = {f.line for f in findings if f.rule == "DEL-SYNTAX"}
    if len(syntax_lines) != acc.get("syntax"):
        bad.append(
            f"{acc.get('syntax')} syntax lines counted, DEL-SYNTAX findings on {len(syntax_lines)} lines"
        )
    outside = [f.line for f in findings if not 1 <= f.line <= max(inp.lines, 1)]
    if outside:
        bad.append(f"findings on lines {outside[:5]} of a {inp.lines}-line file")
    if not plain.startswith(GZIP_MAGIC) and not outside:
        lines = plain.split(b"\n")
        for f in findings:
            if f.rule != "DEL-SYNTAX" or _WHOLE.match(f.message):
                continue
            m = _COLUMN.match(f.message)
            body = lines[f.line - 1].rstrip(b"\r\n")
            if f.line == 1 and body.startswith(b"\xef\xbb\xbf"):
                body = body[3:]
            if not m or not 1 <= int(m.group(2)) <= len(body) + 1:
                bad.append(
                    f"line {f.line}: syntax finding without a byte column in the line: {f.message[:80]!r}"
                )
                break
    return bad


_COLUMN = re.compile(r"^(column|byte) (\d+): ")
#: a syntax finding about a whole line or file, which has no column to give: a line over the limit,
#: a file in another encoding (issue 15)
_WHOLE = re.compile(r"^(\d+ bytes, longer than the|the file is not UTF-8 text)")


def _per_input(report) -> dict[str, tuple]:
    by: dict[str, list] = defaultdict(list)
    for f in report.findings:
        by[f.path].append(f.model_dump(mode="json"))
    return {i.path: (i.lines, i.accounting, i.sha256, by.get(i.path, [])) for i in report.inputs}


class Run:
    def __init__(self, args):
        self.args = args
        self.library = Library.load()
        self.library.statistics = True  # as ``audit check`` computes them by default
        self.maker = Maker(args.seed)
        self.keep = Path(args.keep or tempfile.mkdtemp(prefix="long-fuzz-failures-"))
        self.lines = 0
        self.bytes = 0
        self.files = 0
        self.by_kind: Counter = Counter()
        self.lines_by_kind: Counter = Counter()
        self.categories: Counter = Counter()
        self.accounting: Counter = Counter()
        self.crashes: list[dict] = []
        self.violations: list[dict] = []
        self.settlements_changed = 0
        self.settlements_reported = 0
        self.jobs_compared = 0
        self.gzip_compared = 0
        self.kept = 0

    def save(self, name: str, data: bytes) -> str:
        self.keep.mkdir(parents=True, exist_ok=True)
        self.kept += 1
        path = self.keep / f"{self.kept:04d}-{name}"
        path.write_bytes(data)
        return str(path)

    def violation(self, what: str, name: str, data: bytes, detail: str) -> None:
        if len(self.violations) < 200:
            self.violations.append(
                {"property": what, "file": self.save(name, data), "detail": detail[:2000]}
            )

    def audit(self, paths: list[str], jobs: int = 1):
        return run_audit(self.library, paths, jobs=jobs)

    def chunk(self, tmp: Path, files: list[tuple[str, str, bytes, bytes]], settle: dict) -> None:
        """files: (kind, name, plain bytes, stored bytes); settle: name -> changed lines."""
        paths = []
        for _kind, name, _plain, stored in files:
            p = tmp / name
            p.write_bytes(stored)
            paths.append(str(p))
        data_of = {
            str(tmp / name): (kind, name, plain, stored) for kind, name, plain, stored in files
        }
        try:
            report = self.audit(paths)
            text = render(report)
        except Exception:  # a crash: find the file that does it
            for path, (_kind, name, _plain, stored) in data_of.items():
                try:
                    render(self.audit([path]))
                except Exception as err:
                    self.crashes.append(
                        {
                            "file": self.save(name, stored),
                            "error": f"{type(err).__name__}: {err}",
                            "traceback": traceback.format_exc()[-3000:],
                        }
                    )
            return
        for f in report.findings:
            self.categories[f.category] += 1
        for i in report.inputs:
            for k, v in i.accounting.items():
                self.accounting[k] += v
        # 1. every input
        by_path = {i.path: i for i in report.inputs}
        findings_of: dict[str, list] = defaultdict(list)
        for f in report.findings:
            findings_of[f.path].append(f)
        for path, (_kind, name, plain, stored) in data_of.items():
            for bad in check_input(by_path[path], findings_of[path], plain, stored):
                self.violation("input", name, stored, bad)
        # 2. deterministic
        try:
            again = render(self.audit(paths))
            if again != text:
                self.violation(
                    "deterministic",
                    "chunk",
                    b"\n".join(p.encode() for p in paths),
                    "the same chunk audited twice gave different reports",
                )
        except Exception as err:
            self.crashes.append({"file": "chunk", "error": f"{type(err).__name__}: {err}"})
        # 3. each file alone, jobs=2 (tables split over two processes)
        mine = _per_input(report)
        for index, (path, (_kind, name, _plain, stored)) in enumerate(data_of.items()):
            if not self.args.jobs_every or (self.files + index) % self.args.jobs_every:
                continue
            try:
                split = self.audit([path], jobs=2)
                whole = self.audit([path])
            except Exception as err:
                self.crashes.append(
                    {
                        "file": self.save(name, stored),
                        "error": f"jobs=2: {type(err).__name__}: {err}",
                    }
                )
                continue
            self.jobs_compared += 1
            if render(split) != render(whole):  # the whole report, statistics included
                self.violation(
                    "jobs-report", name, stored, "jobs=2 and jobs=1 wrote different JSON reports"
                )
            alone = _per_input(split)
            if alone[path] != mine[path]:
                a, b = alone[path], mine[path]
                detail = f"accounting jobs=2 {a[1]} vs jobs=1 {b[1]}; " if a[1] != b[1] else ""
                key = lambda f: (f["rule"], f["line"], f["message"][:60])  # noqa: E731
                only2 = sorted((Counter(map(key, a[3])) - Counter(map(key, b[3]))).elements())[:5]
                only1 = sorted((Counter(map(key, b[3])) - Counter(map(key, a[3]))).elements())[:5]
                self.violation(
                    "jobs",
                    name,
                    stored,
                    f"{detail}only with jobs=2: {only2}; only with jobs=1: {only1}",
                )
        # 4. a compressed log is audited as its plain text is
        for path, (_kind, name, plain, stored) in data_of.items():
            if stored is plain or plain.startswith(GZIP_MAGIC):
                continue  # (a text that starts with the magic bytes is read as a damaged archive)
            p = tmp / ("plain-" + name[: -len(".gz")])
            p.write_bytes(plain)
            try:
                flat = _per_input(self.audit([str(p)]))[str(p)]
            except Exception as err:
                self.crashes.append(
                    {
                        "file": self.save(name, stored),
                        "error": f"plain: {type(err).__name__}: {err}",
                    }
                )
                continue
            self.gzip_compared += 1
            packed = mine[path]
            strip = lambda fs: [{**f, "path": None} for f in fs]  # noqa: E731
            if (flat[0], flat[1], strip(flat[3])) != (packed[0], packed[1], strip(packed[3])):
                self.violation(
                    "gzip",
                    name,
                    stored,
                    f"plain: {flat[0]} lines {flat[1]}, {len(flat[3])} findings; "
                    f"gzip: {packed[0]} lines {packed[1]}, {len(packed[3])} findings",
                )
        # 5. settlements
        for path, (_kind, name, _plain, stored) in data_of.items():
            if name not in settle:
                continue
            changed = settle[name]
            lines = {f.line for f in findings_of[path]}
            self.settlements_changed += len(changed)
            missed = [
                n
                for n in changed
                if not any(f.line == n and f.category == "wrong-payout" for f in findings_of[path])
            ]
            self.settlements_reported += len(changed) - len(missed)
            extra = sorted(lines - set(changed))
            if missed or extra:
                self.violation(
                    "settlement",
                    name,
                    stored,
                    f"changed lines {changed}: not reported {missed}; findings on other lines {extra[:10]}",
                )

    def go(self) -> dict:
        args = self.args
        t0 = time.time()
        kinds = ["grammar", "raw", "mutated", "settlement", "mutated"]
        with tempfile.TemporaryDirectory(prefix="long-fuzz-") as tmpdir:
            tmp = Path(tmpdir)
            k = 0
            while self.lines < args.lines:
                files, settle = [], {}
                for _ in range(args.files_per_chunk):
                    kind = kinds[k % len(kinds)]
                    k += 1
                    target = self.maker.rng.randint(args.file_lines // 2, args.file_lines)
                    name = f"f{self.files:05d}-{kind}.del"
                    if kind == "grammar":
                        plain = self.maker.grammar_file(target)
                    elif kind == "raw":
                        plain = self.maker.raw_file(target)
                    elif kind == "mutated":
                        plain = self.maker.mutated_file(target)
                    else:
                        clean, plain, changed = self.maker.settlement_night()
                        report = self.audit_clean(tmp, name, clean)
                        if report:
                            self.violation("simulated night is clean", name, clean, report)
                            continue
                        settle[name] = changed
                    stored = plain
                    if self.files % 7 == 3 and kind != "settlement":
                        stored = gzip.compress(plain, mtime=0)
                        name += ".gz"
                    files.append((kind, name, plain, stored))
                    self.files += 1
                    self.by_kind[kind] += 1
                    n = expected_lines(plain)
                    self.lines += n
                    self.lines_by_kind[kind] += n
                    self.bytes += len(plain)
                self.files -= len(files)  # the chunk numbers its files from the first
                self.chunk(tmp, files, settle)
                self.files += len(files)
                for p in tmp.iterdir():
                    p.unlink()
                if args.progress:
                    print(
                        f"  {self.lines:>9} lines, {self.files} files, {len(self.crashes)} crash(es), "
                        f"{len(self.violations)} violation(s), {time.time() - t0:.0f} s",
                        file=sys.stderr,
                    )
        return self.summary(time.time() - t0)

    def audit_clean(self, tmp: Path, name: str, data: bytes) -> str:
        p = tmp / ("clean-" + name)
        p.write_bytes(data)
        report = self.audit([str(p)])
        p.unlink()
        return "; ".join(f"{f.rule} line {f.line}" for f in report.findings[:5])

    def summary(self, seconds: float) -> dict:
        me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        return {
            "date": datetime.now(UTC).astimezone().isoformat(timespec="seconds"),
            "machine": f"{platform.node()} {platform.machine()}, {os.cpu_count()} CPU(s), {platform.system()} "
            f"{platform.release()}",
            "python": platform.python_version(),
            "auditor": __version__,
            "command": "python3 fuzz/long_fuzz.py "
            + " ".join(shlex.quote(a) for a in sys.argv[1:]),
            "seed": self.args.seed,
            "lines": self.lines,
            "files": self.files,
            "bytes": self.bytes,
            "files_by_kind": dict(sorted(self.by_kind.items())),
            "lines_by_kind": dict(sorted(self.lines_by_kind.items())),
            "accounting": dict(self.accounting),
            "findings_by_category": dict(sorted(self.categories.items(), key=lambda kv: -kv[1])),
            "settlements_changed": self.settlements_changed,
            "settlements_reported": self.settlements_reported,
            "jobs2_files_compared": self.jobs_compared,
            "gzip_files_compared": self.gzip_compared,
            "crashes": len(self.crashes),
            "crash_details": self.crashes[:20],
            "violations": self.violations,
            "kept_in": str(self.keep) if self.kept else None,
            "seconds": round(seconds, 1),
            "peak_rss_mb": round(me / 1024, 1),
            "peak_rss_children_mb": round(kids / 1024, 1),
        }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="fuzz/long_fuzz.py", description=__doc__.split("\n")[0])
    ap.add_argument(
        "--lines", type=int, default=1_000_000, help="lines to generate, at least (default 1000000)"
    )
    ap.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the generator (default 0): same seed, same files",
    )
    ap.add_argument("--report", help="write the summary as JSON to this file")
    ap.add_argument(
        "--file-lines", type=int, default=4000, help="lines per file, at most (default 4000)"
    )
    ap.add_argument(
        "--files-per-chunk", type=int, default=5, help="files audited together (default 5)"
    )
    ap.add_argument(
        "--jobs-every",
        type=int,
        default=3,
        help="audit every N-th file alone with jobs=2 too (default 3; 0: never)",
    )
    ap.add_argument(
        "--keep",
        help="folder for the files that crash or break a property (default: a temporary one)",
    )
    ap.add_argument(
        "--progress", action="store_true", help="a progress line per chunk on standard error"
    )
    args = ap.parse_args(argv)
    if args.lines < 1 or args.file_lines < 2 or args.files_per_chunk < 1:
        ap.error("--lines, --file-lines and --files-per-chunk must be positive")
    result = Run(args).go()
    if args.report:
        Path(args.report).write_text(
            json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    print(
        f"long fuzz: {result['lines']} lines in {result['files']} files ({result['bytes']} bytes), "
        f"seed {result['seed']}, {result['seconds']} s, peak memory {result['peak_rss_mb']} MB "
        f"(children {result['peak_rss_children_mb']} MB)"
    )
    print(f"  lines by kind: {result['lines_by_kind']}")
    print(f"  accounting: {result['accounting']}")
    print(f"  findings by category: {result['findings_by_category']}")
    print(
        f"  settlement amounts changed: {result['settlements_changed']}, reported: {result['settlements_reported']}"
    )
    print(
        f"  files compared with jobs=2: {result['jobs2_files_compared']}, "
        f"compressed files compared with their plain text: {result['gzip_files_compared']}"
    )
    print(f"  crashes={result['crashes']} violations={len(result['violations'])}")
    for c in result["crash_details"][:10]:
        print(f"  CRASH {c['file']}: {c['error']}")
    for v in result["violations"][:20]:
        print(f"  VIOLATION {v['property']} {v['file']}: {v['detail'][:300]}")
    return 0 if not result["crashes"] and not result["violations"] else 1


if __name__ == "__main__":
    sys.exit(main())
