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

from audit.escape import for_terminal
from audit.report import Suppressed
from audit.reporters import REPORTERS
from audit.reporters.html import findings_section, series, statistics_section
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
    return subprocess.run([sys.executable, "-m", "audit", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def faulty_night(folder: Path) -> Path:
    """A night of four tables of two games, one fault of every category: findings in every section."""
    log = folder / "faulty.del"
    done = audit("simulate", "-r", "fr-bataille-2007", "-r", "be-ostende-cdf", "--tables", "4", "--rounds", "120",
                 "--seed", "3", "--inject", "all", "-o", str(log))
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
        id=h("ruleset.id"), sha256=h("ruleset.sha256"),
        model=SimpleNamespace(title=h("ruleset.title"),
                              regulation=SimpleNamespace(name=h("regulation.name"), short=h("regulation.short"))),
        overlay=SimpleNamespace(model=SimpleNamespace(overlay=h("overlay.id"), title=h("overlay.title")),
                                path=PurePosixPath(h("overlay.path")), sha256=h("overlay.sha256")))
    report.rulesets = [ruleset]
    report.inputs = [replace(i, path=h(f"input.path{n}"), sha256=h(f"input.sha{n}")) for n, i in enumerate(report.inputs)]
    report.findings = [f.model_copy(update=dict(
        rule=h("finding.rule"), path=h("finding.path"), table=None if f.table is None else h("finding.table"),
        message=h("finding.message"), expected=h("finding.expected"), actual=h("finding.actual"),
        ruleset=h("ruleset.id"), citation=h("finding.citation"), time=h("finding.time"), dealer=h("finding.dealer")))
        for f in report.findings]
    for t in report.table_stats:
        t.path, t.table, t.ruleset, t.overlay, t.game = (h("table.path"), h("table.id"), h("table.ruleset"),
                                                          h("table.overlay"), h("table.game"))
        t.dealer_rounds = {h("table.dealer"): sum(t.dealer_rounds.values())}
    if report.statistics is not None:
        for g in report.statistics.groups:
            suffix = "#" + g.id.rsplit("#", 1)[1] if g.scope == "shoe" else ""
            g.id, g.path, g.table, g.ruleset, g.message = (h(f"group.{g.scope}") + suffix, h("group.path"),
                                                           h("group.table"), h("group.ruleset"), h("group.message"))
        low = min((g for g in report.statistics.groups if g.p_exact is not None), key=lambda g: g.p_exact)
        low.p_exact = low.p = 1e-12  # an anomaly, to show its message
    first = report.findings[0]
    report.suppressed = [Suppressed(first, "f" * 64, h("baseline.justification"))]
    report.baseline = h("baseline.path")
    report.stale = [{"rule": h("stale.rule"), "path": h("stale.path"), "table": h("stale.table"), "round": 3,
                     "message": h("stale.message")}]
    return report


FIELDS = ["ruleset.id", "ruleset.sha256", "regulation.name", "regulation.short", "overlay.id", "overlay.title",
          "overlay.path", "overlay.sha256", "input.path0", "input.sha0", "input.path1", "finding.rule",
          "finding.path", "finding.table", "finding.message", "finding.expected", "finding.actual",
          "finding.citation", "finding.time", "finding.dealer", "table.path", "table.id", "table.ruleset",
          "table.overlay", "table.game", "table.dealer", "group.table", "group.dealer", "group.player", "group.shoe",
          "group.path", "group.ruleset", "group.message", "baseline.justification", "baseline.path", "stale.rule",
          "stale.path", "stale.message"]


@pytest.fixture(scope="module")
def hostile_page() -> str:
    return REPORTERS["html"].render(hostile_report())


def test_hostile_text_in_every_field_shows_as_text(hostile_page):
    page = Page(hostile_page)
    missing = [name for name in FIELDS if shown(name) not in page.text]
    assert not missing
    assert page.count("script") == 1 and page.count("b") == 0  # only the page's own script, no element from outside
    assert page.count("table") == hostile_page.count("<table")  # no table closed early
    assert not [c for c in "\u202e\u2066\u200b" if c in hostile_page]  # controls only as their escapes
    assert not [v for k, v in page.attrs if k.startswith("on")]
    data = {v for k, v in page.attrs if k.startswith("data-")}
    assert shown("finding.rule") in data and shown("finding.dealer") in data  # the filters match the text shown
    assert "$x^2$" in re.sub(r"<[^>]+>", "", hostile_page.split("<svg", 1)[1])  # a plot's label: no formula


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
    done = audit("check", *WITH_STATISTICS, "-f", "html", "-o", str(folder / "night.html"), "-f", "json",
                 "-o", str(folder / "night.json"), str(log))
    assert done.returncode == 1 and done.stderr == "", done.stderr
    again = audit("check", *WITH_STATISTICS, "--jobs", "2", "-o", str(folder / "again.html"), str(log))
    assert again.returncode == 1, again.stderr
    return {"folder": folder, "log": log, "html": (folder / "night.html").read_bytes(),
            "again": (folder / "again.html").read_bytes(), "json": json.loads((folder / "night.json").read_bytes())}


def test_the_same_night_gives_the_same_bytes_whatever_jobs(night):
    assert night["html"] == night["again"]  # a second run, in two processes, by the extension alone
    assert REPORTERS["html"].render(hostile_report()) == REPORTERS["html"].render(hostile_report())


def test_the_page_is_whole_in_one_file(night):
    page = night["html"].decode("utf-8")
    parsed = Page(page)
    assert page.startswith("<!DOCTYPE html>\n<html lang=\"en\">")
    policy = next(v for k, v in parsed.attrs if k == "content" and v.startswith("default-src 'none'"))
    assert "connect-src" not in policy and "'unsafe-eval'" not in policy and "script-src 'sha256-" in policy
    assert not {"link", "img", "iframe", "object", "embed", "image", "audio", "video"} & set(parsed.tags)
    refs = [v for k, v in parsed.attrs if k in ("src", "href", "xlink:href", "action", "data") and not v.startswith("#")]
    assert not refs  # only links inside the page
    assert "@import" not in page and not re.findall(r"url\((?!#)", page)  # a plot's clip paths are in the page


def test_every_finding_is_a_row_of_its_group(night):
    page = Page(night["html"].decode("utf-8"))
    findings = night["json"]["findings"]
    rows = [v for k, v in page.attrs if k == "data-rule"]
    assert sorted(rows) == sorted(f["rule"] for f in findings)
    groups = {(f["path"], f["table"], f["round"]) for f in findings}
    assert night["html"].decode("utf-8").count('class="group-head"') == len(groups)
    assert f'<span id="count-findings" class="n">{len(findings)}</span>' in night["html"].decode("utf-8")
    for category in {f["category"] for f in findings}:
        assert f'<option value="{category}">' in night["html"].decode("utf-8")


def test_the_officer_reads_the_sections_in_order(night):
    page = night["html"].decode("utf-8")
    places = [page.index(f'id="{ident}"') for ident in ("glance", "findings", "tables", "statistics")]
    assert places == sorted(places)
    figures = re.findall(r'<svg [^>]*aria-label="([^"]+)"', page)
    assert figures == ["findings over the night by category", "cumulative result by table against its expectation",
                       "result against expectation by table", "result against expectation by dealer",
                       "card tests of each shoe by table"]


def test_the_configuration_names_the_html_report_and_it_is_written(tmp_path):
    (tmp_path / "audit.toml").write_text('reports = [{format = "html", output = "night.html"}]\n', encoding="utf-8")
    done = audit("check", str(THREE), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert (tmp_path / "night.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_without_matplotlib_the_html_format_is_refused_before_any_log_is_read(tmp_path):
    """The extra missing: exit 2 with what to install, no report written, the log never opened."""
    hide = ("import sys, runpy; sys.modules['matplotlib'] = None; sys.argv = ['audit'] + sys.argv[1:]; "
            "runpy.run_module('audit', run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", hide, "check", "-f", "html", "-o", str(tmp_path / "n.html"),
                           str(tmp_path / "no-such.del")], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2
    assert done.stderr == ("audit: --format: the html format needs matplotlib, which is not installed: "
                           "pip install 'del-audit[html]'\n")
    assert not (tmp_path / "n.html").exists()


def test_a_big_night_is_sampled_in_the_plots_not_in_the_tables():
    report = hostile_report()
    dealers = [g for g in report.statistics.groups if g.scope == "dealer" and g.test == "result" and g.sd]
    many = [replace(g, id=f"D{n:04}") for n in range(series.MAX_ROWS + 5) for g in dealers[:1]]
    for n, g in enumerate(many):
        g.z = (-1) ** n * (2 + n / 10)  # beyond every dealer of the example night
    report.statistics.groups.extend(many)
    rows, total = series.bands(report.statistics, "dealer", several_inputs=False)
    assert len(rows) == series.MAX_ROWS and total == len(dealers) + len(many)
    assert sorted(abs(r.z) for r in rows) == sorted(abs(g.z) for g in many[5:])  # the most improbable kept
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
    assert read == [len(findings), len(findings)] and not counted.moments  # read twice, nothing kept
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
