"""The HTML report (``--format html``) without a browser: its shape, its escaping of every field,
its bytes (the same for the same input, whatever ``--jobs``), and what it needs installed.
The browser's view of it is ``test_html_browser.py``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from types import SimpleNamespace

import pytest

from audit.configuration import (
    BaselineUsed,
    Configuration,
    FileRead,
    OverlayUsed,
    PluginUsed,
    RulesetUsed,
    SelectionUsed,
)
from audit.escape import for_terminal
from audit.report import Suppressed
from audit.reporters import REPORTERS
from audit.reporters.html import findings_section, series, statistics_section
from audit.reporters.html import night as night_of
from audit.rulesets import Library
from audit.run import run_audit

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "fixtures" / "nights" / "example-night.del"
THREE = ROOT / "fixtures" / "acceptance" / "three-breaches.del"
#: what a hostile log, file name, ruleset or overlay may hold: markup, a closing tag, both quotes, an
#: entity, bidi and zero-width controls, a matplotlib formula
#: what asks ``audit check`` for the statistics (off by default: docs/statistics.md)
WITH_STATISTICS = ("--statistics",)
HOSTILE = "<script>window.pwned=1</script></table><b onmouseover='x'>\"q\"</b>&amp;\u202e\u2066$x^2$\u200b"


def audit(*args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "audit", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )


def faulty_night(folder: Path) -> Path:
    """A night of four tables of two games, one fault of every category: findings in every section."""
    log = folder / "faulty.del"
    done = audit(
        "simulate",
        "-r",
        "fr-bataille-2007",
        "-r",
        "be-ostende-cdf",
        "--tables",
        "4",
        "--rounds",
        "120",
        "--seed",
        "3",
        "--inject",
        "all",
        "-o",
        str(log),
    )
    assert done.returncode == 0, done.stderr
    return log


class Page(HTMLParser):
    """A page as a browser's parser reads it: its elements, its text, its attributes."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.texts: list[str] = []
        self.attrs: list[tuple[str, str]] = []
        self.feed(page)
        self.close()
        self.text = "".join(self.texts)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend((k, v or "") for k, v in attrs)

    def handle_data(self, data):
        self.texts.append(data)

    def count(self, tag: str) -> int:
        return self.tags.count(tag)


def _hostile(name: str) -> str:
    return f"{HOSTILE}{name}"


def shown(name: str) -> str:
    """What the page must show for the hostile text of field ``name``: the text itself, its
    controls written as escapes."""
    return for_terminal(_hostile(name))


def night_report(statistics: bool = True):
    """The report of three breaches and the example night: findings, and statistics if asked."""
    library = Library.load()
    library.statistics = statistics
    return run_audit(library, [str(THREE.relative_to(ROOT)), str(EXAMPLE.relative_to(ROOT))])


def hostile_report():
    """``night_report``, then every text field the page shows replaced by hostile text naming the field."""
    report = night_report()
    h = _hostile
    ruleset = SimpleNamespace(
        id=h("ruleset.id"),
        sha256=h("ruleset.sha256"),
        model=SimpleNamespace(
            title=h("ruleset.title"),
            regulation=SimpleNamespace(name=h("regulation.name"), short=h("regulation.short")),
        ),
        overlay=SimpleNamespace(
            model=SimpleNamespace(overlay=h("overlay.id"), title=h("overlay.title")),
            path=PurePosixPath(h("overlay.path")),
            sha256=h("overlay.sha256"),
        ),
    )
    report.rulesets = [ruleset]
    report.inputs = [
        replace(i, path=h(f"input.path{n}"), sha256=h(f"input.sha{n}"))
        for n, i in enumerate(report.inputs)
    ]
    report.findings = [
        f.model_copy(
            update=dict(
                rule=h("finding.rule"),
                path=h("finding.path"),
                table=None if f.table is None else h("finding.table"),
                message=h("finding.message"),
                expected=h("finding.expected"),
                actual=h("finding.actual"),
                ruleset=h("ruleset.id"),
                citation=h("finding.citation"),
                time=h("finding.time"),
                dealer=h("finding.dealer"),
            )
        )
        for f in report.findings
    ]
    for t in report.table_stats:
        t.path, t.table, t.ruleset, t.overlay, t.game = (
            h("table.path"),
            h("table.id"),
            h("table.ruleset"),
            h("table.overlay"),
            h("table.game"),
        )
        t.dealer_rounds = {h("table.dealer"): sum(t.dealer_rounds.values())}
    if report.statistics is not None:
        for g in report.statistics.groups:
            suffix = "#" + g.id.rsplit("#", 1)[1] if g.scope == "shoe" else ""
            g.id, g.path, g.table, g.ruleset, g.message = (
                h(f"group.{g.scope}") + suffix,
                h("group.path"),
                h("group.table"),
                h("group.ruleset"),
                h("group.message"),
            )
        low = min(
            (g for g in report.statistics.groups if g.p_exact is not None), key=lambda g: g.p_exact
        )
        low.p_exact = low.p = 1e-12  # an anomaly, to show its message
        report.statistics.changed()
    first = report.findings[0]
    report.suppressed = [Suppressed(first, "f" * 64, h("baseline.justification"))]
    report.baseline = h("baseline.path")
    report.stale = [
        {
            "rule": h("stale.rule"),
            "path": h("stale.path"),
            "table": h("stale.table"),
            "round": 3,
            "message": h("stale.message"),
        }
    ]
    report.configuration = Configuration(
        files=[FileRead(path=h("config.file"), sha256=h("config.file.sha"))],
        rulesets=[RulesetUsed(id=h("config.ruleset"), sha256=h("config.ruleset.sha"))],
        overlays=[
            OverlayUsed(
                path=h("config.overlay"),
                sha256=h("config.overlay.sha"),
                tables=h("config.tables"),
                tightened=[h("config.tightened")],
                added=[h("config.added")],
                parameters=[h("config.parameters")],
            )
        ],
        selection=SelectionUsed(
            select=[h("config.select")],
            ignore=[h("config.ignore")],
            source=h("config.source"),
            hidden=2,
        ),
        baseline=BaselineUsed(
            path=h("config.baseline"), sha256=h("config.baseline.sha"), suppressed=1
        ),
        fail_on="warning",
        statistics=True,
    )
    return report


FIELDS = [
    "ruleset.id",
    "ruleset.sha256",
    "regulation.name",
    "regulation.short",
    "overlay.id",
    "overlay.title",
    "overlay.path",
    "overlay.sha256",
    "input.path0",
    "input.sha0",
    "input.path1",
    "finding.rule",
    "finding.path",
    "finding.table",
    "finding.message",
    "finding.expected",
    "finding.actual",
    "finding.citation",
    "finding.time",
    "finding.dealer",
    "table.path",
    "table.id",
    "table.ruleset",
    "table.overlay",
    "table.game",
    "table.dealer",
    "group.table",
    "group.dealer",
    "group.player",
    "group.shoe",
    "group.path",
    "group.ruleset",
    "group.message",
    "baseline.justification",
    "baseline.path",
    "stale.rule",
    "stale.path",
    "stale.message",
    "config.file",
    "config.file.sha",
    "config.ruleset",
    "config.ruleset.sha",
    "config.overlay",
    "config.overlay.sha",
    "config.tables",
    "config.tightened",
    "config.added",
    "config.parameters",
    "config.select",
    "config.ignore",
    "config.source",
    "config.baseline",
    "config.baseline.sha",
]


@pytest.fixture(scope="module")
def hostile_page() -> str:
    return REPORTERS["html"].render(hostile_report())


def test_hostile_text_in_every_field_shows_as_text(hostile_page):
    page = Page(hostile_page)
    missing = [name for name in FIELDS if shown(name) not in page.text]
    assert not missing
    assert (
        page.count("script") == 1 and page.count("b") == 0
    )  # only the page's own script, no element from outside
    assert page.count("table") == hostile_page.count("<table")  # no table closed early
    assert not [
        c for c in "\u202e\u2066\u200b" if c in hostile_page
    ]  # controls only as their escapes
    assert not [v for k, v in page.attrs if k.startswith("on")]
    data = {v for k, v in page.attrs if k.startswith("data-")}
    assert (
        shown("finding.rule") in data and shown("finding.dealer") in data
    )  # the filters match the text shown
    assert "$x^2$" in re.sub(
        r"<[^>]+>", "", hostile_page.split("<svg", 1)[1]
    )  # a plot's label: no formula


def test_without_statistics_the_page_says_they_were_not_computed():
    page = Page(REPORTERS["html"].render(night_report(statistics=False)))
    assert statistics_section.NOT_COMPUTED in page.text
    assert "anomalies (statistics not computed)" in page.text
    assert page.count("svg") == 1  # the findings' timeline only


@pytest.fixture(scope="module")
def night(tmp_path_factory) -> dict:
    """The faulty night's HTML and JSON reports (with statistics), and its HTML again under --jobs 2."""
    folder = tmp_path_factory.mktemp("night")
    log = faulty_night(folder)
    done = audit(
        "check",
        *WITH_STATISTICS,
        "-f",
        "html",
        "-o",
        str(folder / "night.html"),
        "-f",
        "json",
        "-o",
        str(folder / "night.json"),
        str(log),
    )
    assert done.returncode == 1 and done.stderr == "", done.stderr
    again = audit(
        "check", *WITH_STATISTICS, "--jobs", "2", "-o", str(folder / "again.html"), str(log)
    )
    assert again.returncode == 1, again.stderr
    return {
        "folder": folder,
        "log": log,
        "html": (folder / "night.html").read_bytes(),
        "again": (folder / "again.html").read_bytes(),
        "json": json.loads((folder / "night.json").read_bytes()),
    }


def test_the_same_night_gives_the_same_bytes_whatever_jobs(night):
    assert night["html"] == night["again"]  # a second run, in two processes, by the extension alone
    assert REPORTERS["html"].render(hostile_report()) == REPORTERS["html"].render(hostile_report())


def test_the_page_is_whole_in_one_file(night):
    page = night["html"].decode("utf-8")
    parsed = Page(page)
    assert page.startswith('<!DOCTYPE html>\n<html lang="en">')
    policy = next(
        v for k, v in parsed.attrs if k == "content" and v.startswith("default-src 'none'")
    )
    assert (
        "connect-src" not in policy
        and "'unsafe-eval'" not in policy
        and "script-src 'sha256-" in policy
    )
    assert not {"link", "img", "iframe", "object", "embed", "image", "audio", "video"} & set(
        parsed.tags
    )
    refs = [
        v
        for k, v in parsed.attrs
        if k in ("src", "href", "xlink:href", "action", "data") and not v.startswith("#")
    ]
    assert not refs  # only links inside the page
    assert "@import" not in page and not re.findall(
        r"url\((?!#)", page
    )  # a plot's clip paths are in the page


def test_every_finding_is_a_row_of_its_group(night):
    page = Page(night["html"].decode("utf-8"))
    findings = night["json"]["findings"]
    rows = [v for k, v in page.attrs if k == "data-rule"]
    assert sorted(rows) == sorted(f["rule"] for f in findings)
    groups = {(f["path"], f["table"], f["round"]) for f in findings}
    assert night["html"].decode("utf-8").count('class="group-head"') == len(groups)
    assert f'<span id="count-findings" class="n">{len(findings)}</span>' in night["html"].decode(
        "utf-8"
    )
    for category in {f["category"] for f in findings}:
        assert f'<option value="{category}">' in night["html"].decode("utf-8")


def test_the_officer_reads_the_sections_in_order(night):
    page = night["html"].decode("utf-8")
    places = [
        page.index(f'id="{ident}"') for ident in ("glance", "findings", "tables", "statistics")
    ]
    assert places == sorted(places)
    figures = re.findall(r'<svg [^>]*aria-label="([^"]+)"', page)
    assert figures == [
        "findings over the night by category",
        "cumulative result by table against its expectation",
        "result against expectation by table",
        "result against expectation by dealer",
        "card tests of each shoe by table",
    ]


def test_the_configuration_names_the_html_report_and_it_is_written(tmp_path):
    (tmp_path / "audit.toml").write_text(
        'reports = [{format = "html", output = "night.html"}]\n', encoding="utf-8"
    )
    done = audit("check", str(THREE), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert (tmp_path / "night.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_without_matplotlib_the_html_format_is_refused_before_any_log_is_read(tmp_path):
    """The extra missing: exit 2 with what to install, no report written, the log never opened."""
    hide = (
        "import sys, runpy; sys.modules['matplotlib'] = None; sys.argv = ['audit'] + sys.argv[1:]; "
        "runpy.run_module('audit', run_name='__main__')"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            hide,
            "check",
            "-f",
            "html",
            "-o",
            str(tmp_path / "n.html"),
            str(tmp_path / "no-such.del"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 2
    assert done.stderr == (
        "audit: --format: the html format needs matplotlib, which is not installed: "
        "pip install 'del-audit[html]'\n"
    )
    assert not (tmp_path / "n.html").exists()


def test_a_big_night_is_sampled_in_the_plots_not_in_the_tables():
    report = hostile_report()
    dealers = [
        g for g in report.statistics.groups if g.scope == "dealer" and g.test == "result" and g.sd
    ]
    many = [replace(g, id=f"D{n:04}") for n in range(series.MAX_ROWS + 5) for g in dealers[:1]]
    for n, g in enumerate(many):
        g.z = (-1) ** n * (2 + n / 10)  # beyond every dealer of the example night
    report.statistics.groups.extend(many)
    rows, total = series.bands(report.statistics, "dealer", several_inputs=False)
    assert len(rows) == series.MAX_ROWS and total == len(dealers) + len(many)
    assert sorted(abs(r.z) for r in rows) == sorted(
        abs(g.z) for g in many[5:]
    )  # the most improbable kept
    page = REPORTERS["html"].render(report)
    assert f"{series.MAX_ROWS} of {total}, the most improbable" in page
    assert all(f">D{n:04}<" in page for n in range(len(many)))  # every group still in its table


def test_filters_list_each_value_once_in_a_stable_order():
    report = hostile_report()
    form = Page(findings_section._filters(report.findings, len(report.findings)))
    assert form.count("select") == len(findings_section.FILTERS)
    assert form.text.count(shown("finding.rule")) == 1


def test_a_big_night_draws_its_card_tests_as_boxes_and_the_shoes_outside_the_band(monkeypatch):
    from audit.reporters.html import plots

    report = night_report()
    points, middles, between = series.card_points(report.statistics)
    drawn = plots.card_tests(points, middles, between)
    assert "each shoe (red: an anomaly)" in drawn
    monkeypatch.setattr(plots, "MAX_CARD_POINTS", 10)
    boxed = plots.card_tests(points, middles, between)
    assert f"{len(points) // 2:,} shoes: boxes of the middle 95 %" in boxed
    outside = sum(abs(p.z) > series.Z95 for p in points)
    assert boxed.count("<use ") >= outside  # every shoe outside the band still a mark


def test_the_timeline_counted_by_interval_in_two_passes_is_the_plain_count(tmp_path, monkeypatch):
    """Past ``MAX_MOMENTS`` timed findings the timeline counts them by category and interval, in two
    passes over the findings rather than a moment held for each: the same counts as every moment
    kept and counted (the plain way), on a night whose stamps carry offsets."""
    findings = list(run_audit(Library.load(), [str(faulty_night(tmp_path))]).findings)
    plain = series.timeline(findings)  # below the limit: every moment kept
    assert len(plain.moments) > 10 and not plain.counts
    monkeypatch.setattr(series, "MAX_MOMENTS", 5)
    read = []
    counted = series.timeline(_counting(findings, read))
    assert (
        read == [len(findings), len(findings)] and not counted.moments
    )  # read twice, nothing kept
    first = min(m.when for m in plain.moments)
    step = series.interval(first, max(m.when for m in plain.moments))
    expected: dict = {}
    for m in plain.moments:
        key = (m.category, (m.when - first) // step)
        expected[key] = expected.get(key, 0) + 1
    assert (counted.start, counted.step, counted.counts) == (first, step, expected)
    assert counted.untimed == plain.untimed and counted.categories == plain.categories


class _counting:
    """Findings that count how many are read in each pass."""

    def __init__(self, findings: list, read: list[int]) -> None:
        self.findings, self.read = findings, read

    def __iter__(self):
        self.read.append(0)
        for f in self.findings:
            self.read[-1] += 1
            yield f


# The first screen: which night, the verdict, what hides findings, the anomalies, what shaped the report.


def first_screen_of(page: str) -> Page:
    """The first screen of a page (what comes before the contents), as a browser reads it."""
    start = page.index('<section id="summary"')
    return Page(page[start : page.index("<nav", start)])


def stamps(path: Path) -> list[str]:
    return [
        line.split()[0]
        for line in path.read_text(encoding="utf-8").splitlines()
        if line[:1].isdigit()
    ]


def test_the_first_screen_says_which_night_and_casino_from_the_logs():
    """The dates of the earliest first event and the latest last event of the inputs, as written, and the
    casino of their ``#casino`` headers, named once."""
    report = night_report(statistics=False)
    page = REPORTERS["html"].render(report)
    screen = first_screen_of(page)
    three, example = stamps(THREE), stamps(EXAMPLE)
    assert (three[0], example[-1]) == (
        "2026-11-20T21:00:00.000+01:00",
        "2026-11-20T22:53:31.997+01:00",
    )
    assert (
        "Night 2026-11-20 (first event 2026-11-20T21:00:00.000+01:00, last 2026-11-20T22:53:31.997+01:00)"
        in screen.text
    )
    assert "casino Casino-Exemple" in screen.text and screen.text.count("Casino-Exemple") == 1
    assert page.index('id="night-dates"') < page.index('id="verdict"') < page.index('id="glance"')


def test_a_night_past_midnight_shows_both_dates_and_the_earliest_and_latest_of_several_logs(
    tmp_path,
):
    late = tmp_path / "late.del"
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    lines[1] = "#casino Casino-du-Nord"
    late.write_text(
        "\n".join(line.replace("2026-11-20T22:", "2026-11-21T02:") for line in lines) + "\n",
        encoding="utf-8",
    )
    report = run_audit(Library.load(), [str(THREE), str(late)])
    screen = first_screen_of(REPORTERS["html"].render(report))
    assert (
        "Night 2026-11-20 → 2026-11-21 (first event 2026-11-20T21:00:00.000+01:00, "
        f"last {stamps(late)[-1]})" in screen.text
    )
    assert stamps(late)[-1].startswith("2026-11-21T02:")
    casinos = ["Casino-du-Nord" if i.path == str(late) else "Casino-Exemple" for i in report.inputs]
    assert f"casino {', '.join(casinos)}" in screen.text  # in report order


def test_the_night_is_read_from_gzip_and_past_a_cut_last_line_and_not_from_what_cannot_be_read_again(
    tmp_path,
):
    import gzip

    plain = night_of.read_ends(str(EXAMPLE))
    assert (plain.casino, plain.first, plain.last) == (
        "Casino-Exemple",
        stamps(EXAMPLE)[0],
        stamps(EXAMPLE)[-1],
    )
    packed = tmp_path / "night.del.gz"
    packed.write_bytes(gzip.compress(EXAMPLE.read_bytes()))
    assert night_of.read_ends(str(packed)) == plain
    # a line that is no event before the headers' end; a header after the first event (a comment, as the
    # replay reads it); a last line cut in two
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    first = next(n for n, line in enumerate(lines) if line[:1].isdigit())
    assert lines[1] == "#casino Casino-Exemple" and first > 1
    lines[first + 1 : first + 1] = ["#casino Later"]
    lines[1:1] = ["not an event", "#DEL x"]
    cut = tmp_path / "cut.del"
    cut.write_text("\n".join(lines) + "\n#casino Last\n2026-11-21T0", encoding="utf-8")
    assert night_of.read_ends(str(cut)) == plain
    assert (
        night_of.read_ends("-") is None
        and night_of.read_ends("https://example.org/night.del") is None
    )
    assert night_of.read_ends(str(tmp_path / "gone.del")) is None
    report = night_report(statistics=False)
    report.inputs = [replace(i, path=str(tmp_path / "gone.del")) for i in report.inputs]
    screen = first_screen_of(REPORTERS["html"].render(report))
    assert "Night not known" in screen.text and "casino not named" in screen.text
    assert "2 inputs not read again" in screen.text


def test_a_hostile_casino_name_shows_as_text(tmp_path):
    log = tmp_path / "hostile.del"
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    lines[1] = f"#casino {_hostile('casino')}"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    page = REPORTERS["html"].render(run_audit(Library.load(), [str(log)]))
    assert shown("casino") in first_screen_of(page).text
    assert Page(page).count("b") == 0 and Page(page).count("script") == 1


def verdict_of(report) -> tuple[str, str, str]:
    page = REPORTERS["html"].render(report)
    found = re.search(
        r'<div class="verdict (\w+)" id="verdict" data-fail-on="(\w+)" data-failing="(\d+)">', page
    )
    text = Page(page[found.start() : page.index("</div>", found.start())]).text
    return found.group(1), found.group(2), found.group(3), text


def test_the_verdict_counts_the_findings_at_or_above_the_failing_severity():
    report = night_report(statistics=False)
    counts = report.counts()
    assert counts == {"error": 3, "warning": 0, "info": 0}
    assert verdict_of(report) == (
        "fail",
        "error",
        "3",
        "FAIL 3 findings at error (--fail-on error)",
    )
    report.findings = [
        f.model_copy(update={"severity": "info"}) if n else f for n, f in enumerate(report.findings)
    ]
    assert verdict_of(report)[:3] == ("fail", "error", "1")
    report.configuration = Configuration(fail_on="info")
    assert verdict_of(report) == (
        "fail",
        "info",
        "3",
        "FAIL 3 findings at or above info: 1 error, 2 info (--fail-on info)",
    )
    report.findings = [f.model_copy(update={"severity": "info"}) for f in report.findings]
    report.configuration = Configuration(fail_on="warning")
    assert verdict_of(report) == (
        "pass",
        "warning",
        "0",
        "PASS no finding at or above warning (--fail-on warning)",
    )


def test_a_clean_night_passes():
    report = run_audit(Library.load(), [str(EXAMPLE.relative_to(ROOT))])
    assert verdict_of(report)[:3] == ("pass", "error", "0")


def test_what_hides_findings_is_a_banner_at_the_top():
    report = night_report(statistics=False)
    report.configuration = Configuration(
        selection=SelectionUsed(ignore=["DEL-"], source="audit.toml", hidden=12)
    )
    page = REPORTERS["html"].render(report)
    banner = re.search(
        r'<div class="banner hides" id="hidden-findings" role="note">.*?</div>', page
    )
    assert (
        banner
        and Page(banner.group()).text
        == "⚠ Not every finding is listed: 12 findings hidden by ignore DEL- (audit.toml)."
    )
    assert banner.start() < page.index('id="configuration"') < page.index("<nav")
    report.configuration = Configuration(
        selection=SelectionUsed(select=["FR-", "DEL-TIME-ORDER"], source="command line", hidden=1),
        baseline=BaselineUsed(path="baseline.json", sha256="c" * 64, suppressed=3),
    )
    assert Page(
        re.search(
            r'<div[^>]*id="hidden-findings".*?</div>', REPORTERS["html"].render(report)
        ).group()
    ).text == (
        "⚠ Not every finding is listed: 1 finding hidden by select FR-, DEL-TIME-ORDER (command line); "
        "3 findings suppressed by the baseline baseline.json (listed after the findings)."
    )
    report.configuration = Configuration(
        selection=SelectionUsed(ignore=["MC-"], source="audit.toml")
    )
    assert (
        "⚠ A selection of the rules is in force: 0 findings hidden by ignore MC- (audit.toml)."
        in first_screen_of(REPORTERS["html"].render(report)).text
    )


def test_without_anything_hiding_findings_there_is_no_banner_and_without_a_configuration_no_configuration():
    report = night_report(statistics=False)
    report.configuration = Configuration(
        baseline=BaselineUsed(path="baseline.json", sha256="c" * 64)
    )
    page = REPORTERS["html"].render(report)
    assert (
        'id="hidden-findings"' not in page
        and "What shaped this report" in first_screen_of(page).text
    )
    report.configuration = None
    page = REPORTERS["html"].render(report)
    assert 'id="hidden-findings"' not in page and 'id="configuration"' not in page
    assert "What shaped this report" not in page and 'id="verdict"' in page


def test_the_configuration_says_what_shaped_the_report():
    report = night_report(statistics=False)
    report.configuration = Configuration(
        files=[FileRead(path="audit.toml", sha256="a" * 64)],
        rulesets=[RulesetUsed(id="fr-bataille-2007", sha256="b" * 64)],
        overlays=[
            OverlayUsed(
                path="house/fr.yaml",
                sha256="d" * 64,
                tightened=["FR-BET-LIMIT"],
                added=["HOUSE-EGALITE"],
                parameters=["FR-BET-LIMIT", "HOUSE-EGALITE"],
                readings=["FR-BET-LIMIT"],
            ),
            OverlayUsed(path="house/be.yaml", sha256="e" * 64, tables="CDF-01"),
        ],
        plugins=[
            PluginUsed(game="roulette", entry_point="roulette_game:GAME", distribution="rg"),
        ],
        selection=SelectionUsed(ignore=["DEL-"], source="audit.toml", hidden=12),
        baseline=BaselineUsed(path="baseline.json", sha256="c" * 64, suppressed=3),
        fail_on="warning",
        statistics=False,
    )
    page = REPORTERS["html"].render(report)
    facts = re.search(r'<dl class="facts">(.*?)</dl>', page).group(1)
    pairs = dict(
        zip(
            re.findall(r"<dt>(.*?)</dt>", facts),
            (Page(d).text for d in re.findall(r"<dd>(.*?)</dd>", facts)),
        )
    )
    assert pairs == {
        "fails on": "warning and above: a finding there makes the exit status 1",
        "statistics": "not computed",
        "rulesets": f"fr-bataille-2007 {'b' * 64}",
        "house overlays": f"house/fr.yaml {'d' * 64} at every table of its ruleset: tightened FR-BET-LIMIT; added "
        f"HOUSE-EGALITE; parameters FR-BET-LIMIT, HOUSE-EGALITE; its own reading of FR-BET-LIMIT"
        f"house/be.yaml {'e' * 64} at CDF-01: changes no rule",
        "game plugins": "roulette roulette_game:GAME from rg",
        "selection": "ignore DEL- (audit.toml): 12 findings hidden",
        "baseline": f"baseline.json {'c' * 64}: 3 findings suppressed",
        "configuration files": f"audit.toml {'a' * 64}",
    }
    assert page.index('id="configuration"') < page.index("<nav")
    # third-party code ran in the audit: the page's warning says so, with what hid findings
    assert "game plugin roulette is not the auditor's own code (roulette_game:GAME, from rg)" in (
        Page(page).text
    )
    report.configuration = Configuration()
    facts = Page(
        re.search(r'<dl class="facts">.*?</dl>', REPORTERS["html"].render(report)).group()
    ).text
    assert facts == (
        "fails onerror: a finding there makes the exit status 1statisticsnot computedrulesetsnonehouse overlaysnone"
        "game pluginsnone (the built-in games only)selectionevery rulebaselinenoneconfiguration filesnone read"
    )


def anomalous_report():
    """``night_report`` with one dealer's result an anomaly (the dealer has no finding)."""
    report = night_report()
    dealer = next(g for g in report.statistics.groups if g.scope == "dealer" and g.id == "D0685")
    dealer.p_exact = dealer.p = 1e-12
    report.statistics.changed()
    return report


def test_the_first_screen_names_the_anomalies_or_says_there_are_none():
    report = anomalous_report()
    screen = first_screen_of(REPORTERS["html"].render(report))
    assert [a.group.id for a in report.statistics.anomalies()] == ["D0685"]
    assert "Anomalies 1 (a measure, not a breach: statistics)" in screen.text
    assert (
        f"dealer D0685 at BAT-03: {report.statistics.anomalies()[0].group.message}" in screen.text
    )
    assert "Anomalies none" in first_screen_of(REPORTERS["html"].render(night_report())).text
    assert (
        "Anomalies not computed"
        in first_screen_of(REPORTERS["html"].render(night_report(statistics=False))).text
    )


def test_dealers_and_players_with_findings_or_anomalies_come_first_the_others_folded():
    report = anomalous_report()
    page = REPORTERS["html"].render(report)
    tally = page[page.index("<caption>By dealer") :]
    tally = tally[: tally.index("</div>")]
    first, folded = tally.split("<details", 1)
    assert re.findall(r'<span class="id">(D\d+)</span>', first) == [
        "D0412",
        "D0685",
    ]  # the most findings first
    assert "By dealer (13): 2 with findings or an anomaly" in Page(first).text
    assert "the other 11 dealers: no finding, no anomaly" in Page(folded).text
    assert (
        len(re.findall(r'<span class="id">D\d+</span>', folded)) == 11
        and " open" not in folded.split(">")[0]
    )
    groups = page[page.index('id="every-group"') :]
    dealers = groups[groups.index("dealer: result against expectation") : groups.index("player: ")]
    shown_first, rest = dealers.split("<details", 1)
    assert re.findall(r"<td>(D\d+)</td>", shown_first) == ["D0412", "D0685"]
    assert (
        "dealer: result against expectation (13): 2 with an anomaly or a finding"
        in Page(shown_first).text
    )
    assert len(re.findall(r"<td>(D\d+)</td>", rest)) == 11
    players = groups[groups.index("player: result against expectation") :]
    assert players.startswith("player: result against expectation (")
    assert "): none with an anomaly</summary>" in players[:200]
    tables = groups[
        groups.index("table: result against expectation") : groups.index("table: card tests")
    ]
    assert "<details" not in tables  # a night's tables are listed whole
    shoes = groups[groups.index("shoe: result against expectation") :]
    shoes = shoes[: shoes.index("</details>")]
    shoes_first, shoes_rest = shoes.split("<details", 1)
    assert re.findall(r"<td>(BAT-\d+#\d+)</td>", shoes_first) == [
        "BAT-07#1"
    ]  # the shoe of the three findings
    assert (
        "BAT-07#1" not in shoes_rest and "BAT-01#1" in shoes_rest
    )  # the example night's: same id, no finding


def test_without_a_configuration_the_banner_says_what_the_report_itself_knows_hides_findings():
    report = night_report(statistics=False)
    assert report.configuration is None
    first = next(iter(report.findings))
    report.suppressed, report.baseline = [Suppressed(first, "f" * 64, "known")], "baseline.json"
    report.reported_rules = frozenset({"FR-BET-LIMITS", "FR-DEAL-FIRST"})
    screen = first_screen_of(REPORTERS["html"].render(report))
    assert (
        "⚠ Not every finding is listed: 1 finding suppressed by the baseline baseline.json (listed after the "
        "findings); findings of rules the selection leaves out are not reported (2 rules reported)."
        in screen.text
    )
    assert "What shaped this report" not in screen.text
