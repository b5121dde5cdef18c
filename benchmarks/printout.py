"""The benchmark's figures as text: the machine and the command, then each night's figures and ratios.

The old night's lines are those issue 5's benchmark printed, in the same order;
the realistic and the small-files nights follow, each under its own title.
"""

from __future__ import annotations

from measures import mb
from targets import (
    BUSY_LOAD,
    TARGET_JOBS_SPEEDUP,
    TARGET_MEMORY_BYTES,
    TARGET_MEMORY_RATIO,
    TARGET_SMALL_GAIN,
    TARGET_SPEEDUP,
    TARGET_STATISTICS_COST,
)


def verdict(met: bool, judged: bool) -> str:
    if not judged:
        return "(not judged: --quick)"
    return "target met" if met else "TARGET NOT MET"


def log_line(log: dict) -> str:
    where = f"{log['files']} files, one table each, " if log.get("files", 1) > 1 else ""
    return (
        f"{log['event_lines']:,} event lines ({log['lines']:,} lines), {where}{log['tables']} tables x "
        f"{log['rounds_per_table']:,} rounds, seed {log['seed']}, {mb(log['bytes'])}"
    )


def texts_line(texts: dict) -> str:
    return (
        f"distinct line texts: {texts['share_after_stamp']:.1%} of the event lines after the time stamp "
        f"({texts['distinct_after_stamp']:,}), {texts['share_from_verb']:.1%} from the verb on "
        f"({texts['distinct_from_verb']:,})"
    )


def statistics_cost(night: dict) -> float:
    """The CPU time of the audit with the statistics over the CPU time without them, whichever way
    (b) ran and the switched run went: the median of the paired runs' ratios where there are pairs."""
    s = night["statistics"]
    switched_on = "--statistics" in s["options"]
    pairs = s.get("cpu_pairs")
    if pairs:
        ratios = sorted(
            (switched / plain) if switched_on else (plain / switched) for plain, switched in pairs
        )
        middle = len(ratios) // 2
        return ratios[middle] if len(ratios) % 2 else (ratios[middle - 1] + ratios[middle]) / 2
    with_them, without = (s, night["audit"]) if switched_on else (night["audit"], s)
    return with_them["cpu_seconds"] / without["cpu_seconds"]


def _pairs_said(s: dict) -> str:
    """The paired runs the cost is the median of, with and without, in CPU seconds."""
    pairs = s.get("cpu_pairs") or []
    if len(pairs) < 2:
        return ""
    on = "--statistics" in s["options"]
    said = ", ".join(
        f"{switched:.2f}/{plain:.2f}" if on else f"{plain:.2f}/{switched:.2f}"
        for plain, switched in pairs
    )
    return f" (median of {len(pairs)} pairs, with/without: {said})"


def statistics_line(night: dict, judged: bool = False) -> list[str]:
    """(b) timed again with the statistics switched the other way, when it was, and their cost in CPU."""
    if "statistics" not in night:
        return []
    s = night["statistics"]
    cost = s["seconds"] / night["audit"]["seconds"] - 1
    ratio = statistics_cost(night)
    return [
        f"statistics switched ({' '.join(s['options'])}): {s['seconds']:.2f} s "
        f"({s['cpu_seconds']:.2f} s CPU), {cost:+.0%} against (b); b/a {s['naive_over_audit']:.2f}x",
        f"    their cost: {ratio:.2f}x the CPU time without them{_pairs_said(s)}   "
        f"[target < {TARGET_STATISTICS_COST:g}x: {verdict(ratio < TARGET_STATISTICS_COST, judged)}]",
    ]


def night_lines(f: dict, target: float | None, judged: bool) -> list[str]:
    """(a), (b), (c), b/a, b/c, the peak memory, the memory check and --jobs of one night."""
    out = [f"{'':46}{'seconds':>10}{'event lines/s':>16}{'cpu s':>10}"]
    rows = [
        ("(a) naive: plain Lark(parser='lalr'), tree", f["naive"]),
        ("(b) audit check --format json (full)", f["audit"]),
        ("(c) floor: read + split on whitespace", f["floor"]),
    ]
    for label, r in rows:
        out.append(
            f"{label:46}{r['seconds']:>10.2f}{r['event_lines_per_second']:>16,}{r['cpu_seconds']:>10.2f}"
        )
    r = f["ratios"]
    judge = "" if target is None else f"; target >= {target:g}x: {verdict(bool(r['met']), judged)}"
    out += [
        "",
        f"    (a) grammar compilation, not in (a): {f['naive']['grammar_build_seconds']:.2f} s; "
        f"(b) includes start-up: {f['startup']['seconds']:.2f} s to audit an empty log",
        f"    (b) ran: {f['audit']['command']}",
        "",
        f"b/a: audit is {r['naive_over_audit']:.2f}x faster than the naive parse   [time(a)/time(b){judge}]",
        f"    ({r['naive_over_audit_cpu']:.2f}x in CPU time)",
        f"b/c: audit takes {r['audit_over_floor']:.1f}x the floor's time   [time(b)/time(c)]",
        f"peak memory of (b): {mb(f['audit']['peak_rss_bytes'])}",
    ]
    mem = f["memory"]
    if mem["skipped"]:
        out.append(f"memory check: skipped ({mem['reason']})")
    else:
        out += [
            f"memory check: 10x longer log {mb(mem['long_peak_rss_bytes'])} ({mem['long_event_lines']:,} event lines) "
            f"vs {mb(mem['short_peak_rss_bytes'])} ({mem['short_event_lines']:,} event lines): ratio {mem['ratio']:.2f}",
            f"    [target <= {TARGET_MEMORY_RATIO:g} and < {mb(TARGET_MEMORY_BYTES)}: {verdict(bool(mem['met']), judged)}]",
        ]
        if "long_seconds" in mem:
            out.append(
                f"    (the 10x audit took {mem['long_seconds']:.1f} s, "
                f"{mem['long_event_lines_per_second']:,} event lines/s)"
            )
    j = f["jobs"]
    if not j["available"]:
        out.append("--jobs: skipped: `audit check --help` lists no --jobs option yet")
    else:
        out += [
            f"--jobs 2 vs --jobs 1: {j['jobs2_seconds']:.2f} s vs {j['jobs1_seconds']:.2f} s (best of "
            f"{len(j['pairs'])}): {j['speedup']:.2f}x faster (median of the pairs: "
            + ", ".join(f"{a:.2f}/{b:.2f}" for a, b in j["pairs"])
            + f"); JSON reports {'byte-identical' if j['reports_identical'] else 'DIFFERENT'}",
            f"    (CPU time of all processes: {j['jobs2_cpu_seconds']:.2f} s vs {j['jobs1_cpu_seconds']:.2f} s)",
            f"    [target >= {TARGET_JOBS_SPEEDUP:g}x and identical: {verdict(bool(j['met']), judged)}]"
            if j["target_speedup"] is not None
            else "    [reported only: start-up dominates]",
        ]
    return out


def print_table(f: dict) -> None:
    m = f["machine"]
    judged = not f["quick"]
    cores = f"{m['cores']} cores" + (
        f" ({m['usable_cores']} usable)" if m["usable_cores"] != m["cores"] else ""
    )
    ram = f", {m['memory_bytes'] / 2**30:.1f} GiB RAM" if m["memory_bytes"] else ""
    out = [
        f"audit benchmark{' (--quick: sizes too small for the targets to mean anything)' if f['quick'] else ''}",
        f"date:     {f['date']}",
        f"machine:  {m['cpu']}, {cores}{ram}; {m['os']}",
        f"python:   {m['python']}, lark {m['lark']}",
        f"audit:    {f['audit_package']} at {f['revision'] or 'unknown revision'}",
        f"load:     {f['load_average_before']} before, {f['load_average_after']} after (1-minute average)",
        f"command:  {f['command']}",
    ]
    if "log" in f:  # the old night, as issue 5's benchmark printed it
        out += [f"log:      {log_line(f['log'])}", f"texts:    {texts_line(f['texts'])}", ""]
        out += night_lines({**f, "startup": f["startup"]}, TARGET_SPEEDUP, judged)
        out += statistics_line(f, judged)
    if "realistic" in f:
        real = f["realistic"]
        out += [
            "",
            "== the realistic night (issue 21): French, Monaco and chemin de fer tables in turn, "
            "varied stakes, standing players, seat changes, reliefs, limit changes, passed hands ==",
            f"log:      {log_line(real['log'])}",
            f"texts:    {texts_line(real['texts'])}",
            "",
        ]
        out += night_lines({**real, "startup": f["startup"]}, None, judged)
        out += statistics_line(real, judged)
    if "small_files" in f:
        small = f["small_files"]
        out += [
            "",
            "== the night of many small files (issue 21): one file a table, start-up dominates ==",
            f"log:      {log_line(small['log'])}",
            f"texts:    {texts_line(small['texts'])}",
            "",
        ]
        out += night_lines({**small, "startup": f["startup"]}, None, judged)
        out.append(f"start-up (an empty log's audit) is {small['startup_share']:.0%} of (b)")
        base = small["baseline"]
        if not base["recorded"]:
            out.append("baseline: none recorded (bench.py --save-baseline records one)")
        else:
            note = "" if base["comparable"] else " (NOT comparable: another size of night)"
            out += [
                f"against the baseline of {base['date']} at {base['revision']}{note}: b/a in CPU time "
                f"{small['ratios']['naive_over_audit_cpu']:.2f}x now vs {base['baseline_naive_over_audit_cpu']:.2f}x "
                f"then: {base['gain']:.2f}x faster",
                f"    (in wall time b/a {small['ratios']['naive_over_audit']:.2f}x vs "
                f"{base['baseline_naive_over_audit']:.2f}x: {base['wall_gain']:.2f}x; time(b) "
                f"{small['audit']['seconds']:.2f} s now vs {base['baseline_audit_seconds']:.2f} s then: "
                f"{base['seconds_ratio']:.2f}x; the naive parse stands for the machine's speed)",
                f"    [target >= {TARGET_SMALL_GAIN:g}x: {verdict(bool(base['met']), judged)}]",
            ]
    busy = max(x for x in (f["load_average_before"], f["load_average_after"], 0) if x is not None)
    if busy > BUSY_LOAD:
        out.append(
            f"note: the machine was busy (load average up to {busy}): times may be inflated, wall clock "
            "most, CPU time too (cores share caches); re-run on a quiet machine or with --repeat"
        )
    print("\n".join(out))
