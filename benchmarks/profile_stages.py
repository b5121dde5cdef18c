#!/usr/bin/env python3
"""Where a line's time goes in ``audit check``: each stage timed apart, and a cProfile by stage (issue 21).

Two views of one log, in this process, on this checkout's ``audit``:

1. **Stages timed by difference**, without a profiler, in CPU time (on a shared
   machine wall time says more about the neighbours than about the code; each
   the best of ``--repeat``): the lines read in chunks as the audit reads them; then also
   decoded; then also parsed into events by the audit's ``LineParser`` (the
   event's construction measured apart, by building the same events again from
   the parser's templates); then the whole replay (``audit_input``: clock,
   dispatch, checks, accounting), statistics off and on. Each stage is the
   difference from the one before. The audit as the command line runs it (a
   child process: start-up, the replay, the report) and the start-up alone (an
   empty log) are timed too, in the CPU time of the child. The parser's two
   caches are counted on a pass of their own: how many lines the line cache
   (verb on as read, at a table already checked) answers, and how many of the
   others the template cache (verb on) answers.
2. **A cProfile** of the replay, statistics off and on, its own time per
   function summed by stage from the module and the function's name, a
   built-in's time given to the stage of its callers: decoding, parsing,
   clock and dispatch, checks (``verify_*``, the flagger), accounting
   (``apply_*``, the tables' and rounds' state, the tallies), statistics. The
   profiler slows small functions most, so its shares are a guide, the timed
   stages the figures.

    python3 benchmarks/profile_stages.py LOG                 # both views, text
    python3 benchmarks/profile_stages.py LOG --top 40 --pstats prof.out --json stages.json
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for where in (HERE, ROOT):
    if str(where) not in sys.path:
        sys.path.insert(0, str(where))

from measures import audit, machine, revision  # noqa: E402

from audit.parse.fast import LineParser  # noqa: E402
from audit.rulesets import Library  # noqa: E402
from audit.stream.inputs import CHUNK_BYTES, audit_input  # noqa: E402

STAGES = (
    "reading",
    "decoding",
    "parsing",
    "event construction",
    "clock and dispatch",
    "checks",
    "accounting",
    "statistics",
    "other",
)


def best(runs: int, job: Callable[[], object]) -> float:
    """The least CPU time of ``runs`` runs of ``job`` in this process."""
    times = []
    for _ in range(runs):
        start = time.process_time()
        job()
        times.append(time.process_time() - start)
    return min(times)


def cache_counts(path: Path) -> dict:
    """How a fresh parser's caches answer the log's lines: line cache hits, template cache hits
    among the misses (one lookup each, before the line is parsed), and the rest."""
    parser = LineParser()
    lines_hit = templates_hit = rounds = other = 0
    n = 0
    with path.open("rb") as f:
        for raw in f:
            n += 1
            text = raw.decode()
            table, _, key = text.partition(" ")[2].partition(" ")
            if key in parser._lines and table in parser._tables:
                lines_hit += 1
            elif (rest := key.rstrip()) in parser._cache:
                templates_hit += 1
            elif rest.startswith(
                "ROUND"
            ):  # new at its first table: the number is put in a template
                rounds += 1
            else:
                other += 1
            parser.parse(text, n)
    return {
        "lines": n,
        "line_cache_hits": lines_hit,
        "template_cache_hits": templates_hit,
        "round_lines": rounds,
        "neither": other,
    }


def chunks(path: Path) -> list[list[bytes]]:
    out = []
    with path.open("rb") as f:
        while chunk := f.readlines(CHUNK_BYTES):
            out.append(chunk)
    return out


def read_only(path: Path) -> None:
    with path.open("rb") as f:
        while f.readlines(CHUNK_BYTES):
            pass


def read_decode(path: Path) -> None:
    with path.open("rb") as f:
        while chunk := f.readlines(CHUNK_BYTES):
            for raw in chunk:
                raw.decode()


def read_decode_parse(path: Path) -> LineParser:
    parser = LineParser()
    parse = parser.parse
    n = 0
    with path.open("rb") as f:
        while chunk := f.readlines(CHUNK_BYTES):
            for raw in chunk:
                n += 1
                parse(raw.decode(), n)
    return parser


def construction(parser: LineParser, path: Path) -> float:
    """The time to build again, as ``LineParser.parse`` does, the events of the lines its line cache
    holds, once per line of the log that hits it: the event's share of the parse."""
    _new = object.__new__
    templates = parser._lines
    hits = []
    with path.open("rb") as f:
        for raw in f:
            text = raw.decode()
            known = templates.get(text.partition(" ")[2].partition(" ")[2])
            if known is not None:
                hits.append(known)
    start = time.process_time()
    for cls, fields, _ in hits:
        obj = _new(cls)
        values = obj.__dict__
        values.update(fields)
        values["ts"] = None
        values["table"] = None
        values["line"] = 0
    seconds = time.process_time() - start
    return seconds * (sum(1 for _ in path.open("rb")) / max(len(hits), 1))


def replay(library: Library, path: Path, statistics: bool) -> None:
    library.statistics = statistics
    audit_input(library, str(path))


# -- the profile by stage --------------------------------------------------------------------


def stage_of(func: tuple[str, int, str]) -> str | None:
    """The stage of a profiled function (None: a built-in, whose time goes to its callers' stages)."""
    file, _, name = func
    if file == "~":
        return "decoding" if "decode" in name else None
    path = file.replace("\\", "/")
    if "/lark/" in path or "/audit/parse/" in path:
        return "parsing"
    if "/audit/statistics/" in path or path.endswith("/engine/surveillance.py"):
        return "statistics"
    if path.endswith(("/stream/replay.py", "/stream/clock.py", "/stream/parts.py")) or name in (
        "handle",
        "_handlers",
    ):
        return "clock and dispatch"
    if path.endswith("/stream/inputs.py"):
        return "reading"
    if (
        "/audit/games/" in path
        or "/audit/engine/" in path
        or path.endswith(("/findings.py", "/events.py"))
    ):
        if name.startswith(("verify", "_verify", "_check", "check")) or path.endswith(
            ("/flagger.py", "/findings.py", "/limits.py")
        ):
            return "checks"
        return "accounting"
    return "other"


def by_stage(stats: pstats.Stats) -> dict[str, float]:
    """Own time per stage; a built-in's own time shared among its callers' stages as they called it."""
    raw = stats.stats  # type: ignore[attr-defined]
    out = dict.fromkeys(STAGES, 0.0)
    for func, (_, _, tt, _, callers) in raw.items():
        stage = stage_of(func)
        if stage is not None:
            out[stage] += tt
            continue
        total = sum(c[2] for c in callers.values()) or 1.0
        for caller, c in callers.items():
            out[stage_of(caller) or "other"] += tt * c[2] / total
    return out


def profile(library: Library, path: Path, statistics: bool, top: int, dump: Path | None) -> dict:
    prof = cProfile.Profile()
    library.statistics = statistics
    prof.enable()
    audit_input(library, str(path))
    prof.disable()
    if dump is not None:
        prof.dump_stats(str(dump))
    stats = pstats.Stats(prof)
    stages = by_stage(stats)
    total = sum(stages.values())
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]  # type: ignore[attr-defined]
    return {
        "seconds": round(total, 3),
        "stages": {k: round(v, 3) for k, v in stages.items()},
        "top": [
            {
                "function": f"{Path(f[0]).name}:{f[1]}({f[2]})" if f[0] != "~" else f[2],
                "calls": nc,
                "own_seconds": round(tt, 3),
                "cumulative_seconds": round(ct, 3),
                "stage": stage_of(f) or "(built-in)",
            }
            for f, (_, nc, tt, ct, _) in rows
        ],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python3 benchmarks/profile_stages.py", description=__doc__.split("\n")[0]
    )
    ap.add_argument("log", type=Path)
    ap.add_argument(
        "--repeat",
        type=int,
        default=2,
        help="time each stage this many times, keep the best (default 2)",
    )
    ap.add_argument("--top", type=int, default=30, help="functions listed by own time (default 30)")
    ap.add_argument(
        "--pstats", type=Path, help="also write the profile (statistics off) for pstats or snakeviz"
    )
    ap.add_argument("--json", type=Path, help="also write the figures as JSON")
    ap.add_argument("--no-profile", action="store_true", help="the timed stages only, no cProfile")
    args = ap.parse_args(argv)
    path = args.log
    library = Library.load()
    events = sum(1 for raw in path.open("rb") if raw.strip() and not raw.startswith(b"#"))

    t_read = best(args.repeat, lambda: read_only(path))
    t_decode = best(args.repeat, lambda: read_decode(path))
    t_parse = best(args.repeat, lambda: read_decode_parse(path))
    t_build = construction(read_decode_parse(path), path)
    t_replay = best(args.repeat, lambda: replay(library, path, False))
    t_stats = best(args.repeat, lambda: replay(library, path, True))
    with tempfile.TemporaryDirectory(prefix="audit-profile-") as tmp_name:
        tmp = Path(tmp_name)
        empty = tmp / "empty.del"
        empty.write_text("#DEL 1\n", encoding="utf-8")
        t_start = min(
            audit(empty, tmp / "e.json", tmp, "1").run.cpu_seconds for _ in range(args.repeat)
        )
        t_cli = min(
            audit(path, tmp / "r.json", tmp, "1").run.cpu_seconds for _ in range(args.repeat)
        )
    caches = cache_counts(path)
    timed = {
        "reading (chunks of lines)": t_read,
        "decoding": t_decode - t_read,
        "parsing, the event's construction apart": t_parse - t_decode - t_build,
        "event construction (estimated)": t_build,
        "replay: clock, dispatch, checks, accounting": t_replay - t_parse,
        "statistics (--statistics)": t_stats - t_replay,
        "start-up (an empty log's audit)": t_start,
        "the rest of the command: collector, merge, report": t_cli - t_start - t_replay,
    }
    no_profile = {"seconds": 0, "stages": {}, "top": []}
    prof_off = (
        no_profile if args.no_profile else profile(library, path, False, args.top, args.pstats)
    )
    prof_on = no_profile if args.no_profile else profile(library, path, True, args.top, None)

    out = [
        f"profile of {path} ({events:,} event lines) at {revision() or 'unknown revision'}",
        f"machine: {machine()['cpu']}, {machine()['cores']} cores; {machine()['python']}",
        "",
        f"stages timed by difference (best of {args.repeat}, CPU seconds, in this process unless said)",
        f"{'':52}{'seconds':>9}{'us/line':>9}{'share':>8}",
    ]
    base = t_cli  # the command's whole time, statistics off
    for label, s in timed.items():
        out.append(f"{label:52}{s:>9.2f}{s / events * 1e6:>9.2f}{s / base:>8.1%}")
    out.append(
        f"{'the command, audit check -f json --jobs 1 (child)':52}{t_cli:>9.2f}{t_cli / events * 1e6:>9.2f}"
    )
    out += [
        "",
        f"the parser's caches, over {caches['lines']:,} lines: the line cache (verb on) answers "
        f"{caches['line_cache_hits'] / caches['lines']:.1%}, the template cache (verb on) "
        f"{caches['template_cache_hits'] / caches['lines']:.1%}, ROUND lines (a template of their own) "
        f"{caches['round_lines'] / caches['lines']:.1%}, neither {caches['neither'] / caches['lines']:.1%}",
    ]
    for label, prof in (("statistics off", prof_off), ("--statistics", prof_on)):
        if not prof["seconds"]:
            continue
        out += [
            "",
            f"cProfile of the replay, {label}: {prof['seconds']:.2f} s of own time (profiler included), by stage",
        ]
        for stage, s in prof["stages"].items():
            out.append(f"    {stage:30}{s:>8.2f} s {s / prof['seconds']:>7.1%}")
    if prof_off["top"]:
        out += [
            "",
            f"top {args.top} functions by own time, statistics off:",
            f"{'own s':>8}{'cum s':>8}{'calls':>11}  {'stage':20}function",
        ]
    for row in prof_off["top"]:
        out.append(
            f"{row['own_seconds']:>8.2f}{row['cumulative_seconds']:>8.2f}{row['calls']:>11,}  "
            f"{row['stage']:20}{row['function']}"
        )
    print("\n".join(out))
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "log": str(path),
                    "event_lines": events,
                    "revision": revision(),
                    "timed": {k: round(v, 3) for k, v in timed.items()},
                    "command_cpu_seconds": round(t_cli, 3),
                    "caches": caches,
                    "profile_off": prof_off,
                    "profile_on": prof_on,
                },
                indent=2,
            )
            + "\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
