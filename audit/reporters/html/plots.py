"""The plots of the page, drawn by matplotlib as SVG put inline (docs/report.md says why this library).

Inline SVG needs no script and no request, prints sharp at any size, and is text: the same
figures give the same bytes (``svg.hashsalt`` fixed, no date in the metadata, the text left as
text in the page's fonts). Each figure gets its own salt, so that the ids of two figures'
definitions never collide in one page. Labels from a log are escaped as on a terminal before
matplotlib sees them, and its mathematical text is off, so that a ``$`` stays a ``$``.
"""

from __future__ import annotations

import html
import io
import math
import re
import warnings
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import matplotlib
from matplotlib import dates as mdates
from matplotlib.figure import Figure
from matplotlib.ticker import StrMethodFormatter

from ...escape import for_terminal

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType
from ...findings import CATEGORIES
from .markup import Html
from .series import MAX_CARD_POINTS, MAX_MARKED_SHOES, Z95, Band, CardPoint, Course, Timeline

WIDTH = 9.0  # inches: 864 pixels on a screen, scaled down to the page's width in print
BAND = "#d5dbe1"
ACTUAL = "#1f4e79"
OUTSIDE = "#c0392b"
SEVERITY_COLOURS = {"error": "#c0392b", "warning": "#d68910", "info": "#2874a6"}
_RC: dict[RcKeyType, Any] = {
    "svg.fonttype": "none",
    "text.parse_math": False,
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],
    "font.size": 8,
    "axes.titlesize": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
_XML_HEAD = re.compile(r"\A.*?(?=<svg )", re.S)
_METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.S)
_GROUP_ID = re.compile(r'<g id="[^"]*">')
_SIZE = re.compile(r'<svg ([^>]*?)width="([0-9.]+)pt" height="([0-9.]+)pt"')


def _svg(fig: Figure, name: str, label: str) -> Html:
    """The figure as an inline ``<svg>`` element, named for the assistive technologies."""
    out = io.StringIO()
    with (
        matplotlib.rc_context({**_RC, "svg.hashsalt": f"del-audit-{name}"}),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter(
            "ignore"
        )  # a glyph the font lacks: the browser draws it with its own fonts
        fig.savefig(out, format="svg", metadata={"Date": None})
    svg = _GROUP_ID.sub(
        "<g>", _METADATA.sub("", _XML_HEAD.sub("", out.getvalue(), count=1), count=1)
    )
    svg = _SIZE.sub(
        lambda m: (
            f'<svg {m[1]}width="{float(m[2]) * 4 / 3:.0f}" height="{float(m[3]) * 4 / 3:.0f}"'
        ),
        svg,
        count=1,
    )
    return Html(
        svg.replace("<svg ", f'<svg role="img" aria-label="{html.escape(label)}" ', 1).strip()
    )


def _figure(height: float) -> Figure:
    with matplotlib.rc_context(_RC):
        return Figure(figsize=(WIDTH, height), layout="constrained")


def _shown(text: str) -> str:
    """A label from a log as a terminal would show it: what does not print, escaped."""
    return for_terminal(text)


def _money_axis(axis) -> None:
    axis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))


def result_bands(rows: list[Band], total: int, what: str, name: str) -> Html:
    """One row per group: its 95 % band around the expectation, the expectation, the result."""
    fig = _figure(1.3 + 0.24 * len(rows))
    with matplotlib.rc_context(_RC):
        ax = fig.add_subplot()
        ys = list(range(len(rows)))[::-1]
        ax.barh(
            ys,
            [2 * Z95 * r.sd for r in rows],
            left=[r.expected - Z95 * r.sd for r in rows],
            height=0.6,
            color=BAND,
            label="95 % band around the expectation",
        )
        ax.scatter(
            [r.expected for r in rows],
            ys,
            marker="|",
            s=90,
            color="black",
            label="expected",
            zorder=3,
        )
        for tested, label in ((True, "actual"), (False, "actual, not tested (too few rounds)")):
            mine = [(y, r) for y, r in zip(ys, rows) if (r.z is not None) == tested]
            if not mine:
                continue
            colours = [
                OUTSIDE if r.anomaly or abs(r.result - r.expected) > Z95 * r.sd else ACTUAL
                for _, r in mine
            ]
            ax.scatter(
                [r.result for _, r in mine],
                [y for y, _ in mine],
                s=22,
                zorder=4,
                label=label,
                facecolors=colours if tested else "none",
                edgecolors=colours,
            )
        ax.axvline(0, color="#888888", linewidth=0.6)
        ax.set_yticks(ys, [_shown(r.label) for r in rows])
        ax.set_ylim(-0.8, len(rows) - 0.2)
        _money_axis(ax.xaxis)
        ax.set_xlabel("the house's result (a player's bank: the bank's)")
        shown = f"{len(rows)} of {total}, the most improbable" if total > len(rows) else f"{total}"
        ax.set_title(f"Result against expectation by {what} ({shown})", loc="left")
        fig.legend(loc="outside lower center", ncols=4, frameon=False)
    return _svg(fig, name, f"result against expectation by {what}")


def night_courses(courses: list[Course], total: int) -> Html:
    """Small multiples: each table's cumulative result, shoe by shoe, against its expectation and band."""
    cols = min(3, len(courses))
    lines = math.ceil(len(courses) / cols)
    fig = _figure(0.6 + 1.9 * lines)
    with matplotlib.rc_context(_RC):
        axes = fig.subplots(lines, cols, squeeze=False)
        for ax, c in zip(axes.flat, courses):
            low = [e - Z95 * s for e, s in zip(c.expected, c.sd)]
            high = [e + Z95 * s for e, s in zip(c.expected, c.sd)]
            ax.fill_between(c.rounds, low, high, color=BAND, linewidth=0, label="95 % band")
            ax.plot(
                c.rounds, c.expected, linestyle="--", color="black", linewidth=0.9, label="expected"
            )
            ax.plot(
                c.rounds,
                c.result,
                marker="o" if len(c.rounds) <= MAX_MARKED_SHOES + 1 else None,
                markersize=2.5,
                color=ACTUAL,
                linewidth=1.2,
                label="actual",
            )
            ax.set_title(_shown(c.label), loc="left")
            _money_axis(ax.yaxis)
            ax.tick_params(labelsize=7)
        for ax in list(axes.flat)[len(courses) :]:
            ax.set_visible(False)
        shown = (
            f" ({len(courses)} of {total} tables, the furthest from expectation)"
            if total > len(courses)
            else ""
        )
        fig.suptitle(
            f"Cumulative house result by table, at each shoe's end, against rounds dealt{shown}",
            x=0.01,
            ha="left",
            fontsize=9,
        )
        fig.legend(
            *axes.flat[0].get_legend_handles_labels(),
            loc="outside lower center",
            ncols=3,
            frameon=False,
        )
    return _svg(fig, "courses", "cumulative result by table against its expectation")


def timeline(line: Timeline) -> Html:
    """The findings over the night, one line per category: each finding (or, on a big night, each
    category's count per interval) at its time, coloured by severity."""
    categories = [c for c in CATEGORIES if c in line.categories]
    row = {c: i for i, c in enumerate(reversed(categories))}
    fig = _figure(1.3 + 0.26 * len(categories))
    with matplotlib.rc_context(_RC):
        ax = fig.add_subplot()
        if not line.counts:
            for severity, colour in SEVERITY_COLOURS.items():
                mine = [m for m in line.moments if m.severity == severity]
                if mine:
                    ax.scatter(
                        [m.when for m in mine],  # type: ignore[arg-type]  # dates: matplotlib converts them
                        [row[m.category] for m in mine],
                        marker="|",
                        s=70,
                        color=colour,
                        label=severity,
                        linewidths=1.2,
                    )
            how = "each finding at its time"
        else:
            counts, start, step = line.counts, line.start, line.step
            assert start is not None and step is not None  # set with the counts
            keys = sorted(counts, key=lambda k: (row[k[0]], k[1]))
            biggest = max(counts.values())
            ax.scatter(
                [start + step * k[1] + step / 2 for k in keys],  # type: ignore[arg-type]  # dates
                [row[k[0]] for k in keys],
                s=[6 + 120 * counts[k] / biggest for k in keys],
                color=ACTUAL,
                alpha=0.8,
                label=f"findings per {int(step.total_seconds() // 60)} min (largest: {biggest})",
            )
            how = "counted by interval"
        ax.set_yticks(list(row.values()), list(row))
        ax.set_ylim(-0.7, len(categories) - 0.3)
        ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(ax.xaxis.get_major_locator()))
        ax.grid(axis="y", color="#eeeeee")
        untold = f"; {line.untimed} without a time not shown" if line.untimed else ""
        ax.set_title(f"Findings over the night by category, {how}{untold}", loc="left")
        fig.legend(loc="outside lower center", ncols=3, frameon=False)
    return _svg(fig, "timeline", "findings over the night by category")


def card_tests(
    points: list[CardPoint], middles: list[tuple[float, str]], between: list[float]
) -> Html:
    """Each shoe's card tests as z, table after table, against the band a shuffled shoe stays in 95 % of
    the time; on a big night, a box per table and test, and the shoes outside the band one by one."""
    fig = _figure(3.1)
    with matplotlib.rc_context(_RC):
        ax = fig.add_subplot()
        ax.axhspan(-Z95, Z95, color=BAND, linewidth=0, label="95 % of shuffled shoes")
        if len(points) <= MAX_CARD_POINTS:
            _card_points(ax, points)
            ticks = middles
            how = "each shoe"
        else:
            between, ticks = _card_boxes(ax, points, middles)
            how = f"{len(points) // 2:,} shoes: boxes of the middle 95 %, the shoes outside the band one by one"
        for x in between:
            ax.axvline(x, color="#bbbbbb", linewidth=0.6)
        ax.axhline(0, color="#888888", linewidth=0.5)
        many = len(ticks) > 8
        ax.set_xticks(
            [m for m, _ in ticks],
            [_shown(t) for _, t in ticks],
            rotation=45 if many else 0,
            ha="right" if many else "center",
        )
        ax.set_ylabel("z")
        ax.set_title(f"Card tests by table, {how} (red: an anomaly)", loc="left")
        fig.legend(loc="outside lower center", ncols=3, frameon=False)
    return _svg(fig, "cards", "card tests of each shoe by table")


_TESTS = (("ranks", "o", "rank frequencies"), ("order", "^", "cards after one of the same rank"))


def _card_points(ax, points: list[CardPoint], label: bool = True) -> None:
    for test, marker, name in _TESTS:
        mine = [p for p in points if p.test == test]
        if mine:
            ax.scatter(
                [p.x for p in mine],
                [p.z for p in mine],
                marker=marker,
                s=16,
                label=name if label else None,
                facecolors="none",
                edgecolors=[OUTSIDE if p.anomaly else ACTUAL for p in mine],
            )


def _card_boxes(ax, points: list[CardPoint], middles: list[tuple[float, str]]):
    """Two boxes a table (ranks, then order) at 3 t and 3 t + 1; the shoes outside the band as points there."""
    outside = []
    for t in range(len(middles)):
        for k, (test, _marker, _name) in enumerate(_TESTS):
            zs = [p.z for p in points if p.column == t and p.test == test]
            if not zs:
                continue
            ax.boxplot(
                [zs],
                positions=[3 * t + k],
                widths=0.7,
                whis=(2.5, 97.5),
                showfliers=False,
                patch_artist=True,
                boxprops={"facecolor": "white", "edgecolor": ACTUAL},
                medianprops={"color": ACTUAL},
                whiskerprops={"color": ACTUAL},
                capprops={"color": ACTUAL},
            )
            outside += [
                replace(p, x=3 * t + k)
                for p in points
                if p.column == t and p.test == test and (abs(p.z) > Z95 or p.anomaly)
            ]
    _card_points(ax, outside)
    return [3 * t - 1 for t in range(1, len(middles))], [
        (3 * t + 0.5, label) for t, (_, label) in enumerate(middles)
    ]
