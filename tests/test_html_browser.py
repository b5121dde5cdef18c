"""The HTML report in a real browser: Debian's Chromium driven by Selenium through its chromedriver.

The page must load with no console error and no request outside its file, show the findings
count of the JSON report, filter as asked, read whole with scripts off, and print on A4 without
a table cut. Its first screen (1280 x 800) holds the night, the verdict and what shaped the report,
its folds open on a click and print open, and no time or id wraps inside. Every wait is on a condition of the page, never on time. The first screen and the
printed PDF are written to ``tests/artifacts/`` for a person to look at. Skipped only where no
Chromium is installed (CI installs it: ``.ci/run``).
"""

from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.print_page_options import PrintOptions
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import Select, WebDriverWait
from test_html_report import FIELDS, WITH_STATISTICS, audit, faulty_night, hostile_report, shown

from audit.configuration import Configuration, RulesetUsed, SelectionUsed
from audit.reporters import REPORTERS
from audit.rulesets import Library
from audit.run import run_audit

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and DRIVER), reason="no Chromium and chromedriver installed"
)
#: the printable width of an A4 page with the page's margins (210 - 2 x 10 mm), in CSS pixels
A4_WIDTH = round((210 - 20) / 25.4 * 96)
WAIT = 60  # seconds at most for a condition: a loaded machine is slow, the test is not timed


def start(scripts: bool = True) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,900",
        "--hide-scrollbars",
        "--lang=en-GB",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    if not scripts:
        options.add_experimental_option(
            "prefs", {"profile.managed_default_content_settings.javascript": 2}
        )
    return webdriver.Chrome(options=options, service=Service(executable_path=DRIVER))


@pytest.fixture(scope="module")
def browser():
    driver = start()
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def night(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("browser")
    log = faulty_night(folder)
    page = folder / "night.html"
    done = audit(
        "check",
        *WITH_STATISTICS,
        "-f",
        "html",
        "-o",
        str(page),
        "-f",
        "json",
        "-o",
        str(folder / "night.json"),
        str(log),
    )
    assert done.returncode == 1, done.stderr
    return {
        "page": page,
        "url": page.as_uri(),
        "json": json.loads((folder / "night.json").read_bytes()),
    }


def load(driver: webdriver.Chrome, url: str) -> None:
    """Open the page and wait for its script to have run; the logs of what came before are emptied."""
    driver.get_log("browser")
    driver.get_log("performance")
    driver.get(url)
    WebDriverWait(driver, WAIT).until(
        ready.presence_of_element_located((By.CSS_SELECTOR, "body[data-ready='1']"))
    )


def requests(driver: webdriver.Chrome) -> list[str]:
    out = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            out.append(message["params"]["request"]["url"])
    return out


def visible_findings(driver: webdriver.Chrome) -> list:
    return [
        tr
        for tr in driver.find_elements(By.CSS_SELECTOR, "#findings-table tr.finding")
        if tr.is_displayed()
    ]


def test_the_page_loads_with_no_console_error_and_no_request_outside_its_file(browser, night):
    load(browser, night["url"])
    assert browser.get_log("browser") == []
    assert requests(browser) == [night["url"]]
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "html-first-screen.png"))
    assert (ARTIFACTS / "html-first-screen.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_findings_count_shown_is_the_json_reports(browser, night):
    load(browser, night["url"])
    total = sum(night["json"]["summary"]["findings"].values())
    assert total == len(night["json"]["findings"]) > 10
    assert browser.find_element(By.ID, "count-findings").text == str(total)
    assert browser.find_element(By.ID, "findings-total").text == str(total)
    for severity, n in night["json"]["summary"]["findings"].items():
        assert browser.find_element(By.ID, f"count-{severity}").text == str(n)
    assert len(visible_findings(browser)) == total
    assert (
        browser.find_element(By.ID, "findings-shown").text == f"{total} of {total} findings shown"
    )


def test_a_filter_hides_what_it_should_and_show_all_brings_it_back(browser, night):
    load(browser, night["url"])
    findings = night["json"]["findings"]
    table = max(
        {f["table"] for f in findings if f["table"]},
        key=lambda t: sum(f["table"] == t for f in findings),
    )
    Select(browser.find_element(By.CSS_SELECTOR, "select[name='table']")).select_by_value(table)
    mine = [f for f in findings if f["table"] == table]
    shown_now = f"{len(mine)} of {len(findings)} findings shown"
    WebDriverWait(browser, WAIT).until(
        ready.text_to_be_present_in_element((By.ID, "findings-shown"), shown_now)
    )
    rows = visible_findings(browser)
    assert sorted(
        (r.get_attribute("data-rule"), r.get_attribute("data-table")) for r in rows
    ) == sorted((f["rule"], f["table"]) for f in mine)
    heads = [
        h.text for h in browser.find_elements(By.CSS_SELECTOR, "tr.group-head") if h.is_displayed()
    ]
    assert heads and all(f"table {table}" in h for h in heads)
    category = mine[0]["category"]
    Select(browser.find_element(By.CSS_SELECTOR, "select[name='category']")).select_by_value(
        category
    )
    both = [f for f in mine if f["category"] == category]
    WebDriverWait(browser, WAIT).until(
        ready.text_to_be_present_in_element(
            (By.ID, "findings-shown"), f"{len(both)} of {len(findings)} findings shown"
        )
    )
    assert len(visible_findings(browser)) == len(both) < len(findings)
    browser.find_element(By.ID, "filters-reset").click()
    WebDriverWait(browser, WAIT).until(
        ready.text_to_be_present_in_element(
            (By.ID, "findings-shown"), f"{len(findings)} of {len(findings)} findings shown"
        )
    )
    assert len(visible_findings(browser)) == len(findings)


def test_a_column_sorts_by_number_then_back(browser, night):
    load(browser, night["url"])
    summaries = browser.find_element(By.CSS_SELECTOR, "table.summaries")
    column = [h.text for h in summaries.find_elements(By.CSS_SELECTOR, "thead th")].index("drop")
    drop = summaries.find_elements(By.CSS_SELECTOR, "thead th")[column]

    def drops() -> list[float]:
        return [
            float(r.find_elements(By.TAG_NAME, "td")[column].text.replace(",", ""))
            for r in summaries.find_elements(By.CSS_SELECTOR, "tbody tr")
        ]

    drop.click()
    WebDriverWait(browser, WAIT).until(lambda _: drop.get_attribute("aria-sort") == "ascending")
    assert drops() == sorted(drops())
    drop.click()
    WebDriverWait(browser, WAIT).until(lambda _: drop.get_attribute("aria-sort") == "descending")
    assert drops() == sorted(drops(), reverse=True)


def test_with_scripts_off_every_finding_and_table_is_there(night):
    driver = start(scripts=False)
    try:
        driver.get(night["url"])
        WebDriverWait(driver, WAIT).until(ready.presence_of_element_located((By.ID, "statistics")))
        assert driver.find_element(By.TAG_NAME, "body").get_attribute("data-ready") is None
        assert len(visible_findings(driver)) == len(night["json"]["findings"])
        assert not driver.find_element(By.ID, "filters").is_displayed()
        rows = driver.find_elements(By.CSS_SELECTOR, "table.summaries tbody tr")
        assert len(rows) == len(night["json"]["table_summaries"])
        assert len(driver.find_elements(By.CSS_SELECTOR, "figure.plot svg")) == 5
    finally:
        driver.quit()


def test_printed_on_a4_no_table_is_cut(browser, night):
    """In the print media at the printable width of A4, no table, plot or cell is wider than the
    page; then the PDF itself, kept as an artifact."""
    load(browser, night["url"])
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": A4_WIDTH, "height": 1100, "deviceScaleFactor": 1, "mobile": False},
    )
    try:
        WebDriverWait(browser, WAIT).until(
            lambda d: d.execute_script(
                "return !document.getElementById('filters').offsetParent && innerWidth === arguments[0]",
                A4_WIDTH,
            )
        )
        overflowing = browser.execute_script("""
            const width = document.documentElement.clientWidth;
            const out = [];
            for (const e of document.querySelectorAll('table, figure.plot svg, td, th')) {
              const box = e.getBoundingClientRect();
              if (box.width > 0 && (box.left < -0.5 || box.right > width + 0.5)) out.push(e.outerHTML.slice(0, 80));
            }
            return [width, document.documentElement.scrollWidth, out];""")
        width, scroll, cut = overflowing
        assert width == A4_WIDTH and scroll <= width and cut == []
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    options = PrintOptions()
    options.page_width, options.page_height = 21.0, 29.7
    pdf = base64.b64decode(browser.print_page(options))
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "html-report.pdf").write_bytes(pdf)
    assert pdf.startswith(b"%PDF-")
    assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) >= 2 and re.search(
        rb"/MediaBox\s*\[0 0 595", pdf
    )


def test_hostile_text_is_shown_as_text_and_runs_nothing(browser, tmp_path):
    page = tmp_path / "hostile.html"
    page.write_text(REPORTERS["html"].render(hostile_report()), encoding="utf-8")
    load(browser, page.as_uri())
    assert browser.execute_script(
        "return window.pwned === undefined && document.querySelectorAll('b').length === 0"
    )
    assert browser.get_log("browser") == []
    text = browser.execute_script("return document.body.textContent")
    assert [name for name in FIELDS if shown(name) not in text] == []
    assert requests(browser) == [page.as_uri()]


def test_a_night_without_finding_loads_clean(browser, tmp_path):
    """The README's example night as the README's first command audits it: no finding, so no
    filter; the script still sorts."""
    page = tmp_path / "example.html"
    done = audit("check", "-o", str(page), "fixtures/nights/example-night.del")
    assert done.returncode == 0, done.stderr
    load(browser, page.as_uri())
    assert browser.get_log("browser") == [] and requests(browser) == [page.as_uri()]
    assert browser.find_element(By.ID, "count-findings").text == "0"
    assert browser.find_elements(By.ID, "filters") == []
    heading = browser.find_element(By.CSS_SELECTOR, "table.summaries thead th")
    heading.click()
    WebDriverWait(browser, WAIT).until(lambda _: heading.get_attribute("aria-sort") == "ascending")


#: the first screen: a laptop's window
SCREEN = (1280, 800)
#: how far down a 6-table night's details (every statistics group) may start: a few screens
DETAILS_WITHIN = 4 * SCREEN[1]


@pytest.fixture(scope="module")
def six_tables(tmp_path_factory) -> str:
    """A simulated night of six tables of two games (200 rounds each, with statistics), its report shaped by
    a selection that hid findings: the page's URL."""
    folder = tmp_path_factory.mktemp("six")
    log = folder / "n6.del"
    done = audit(
        "simulate",
        "-r",
        "fr-bataille-2007",
        "-r",
        "be-ostende-cdf",
        "--tables",
        "6",
        "--rounds",
        "200",
        "-o",
        str(log),
    )
    assert done.returncode == 0, done.stderr
    library = Library.load()
    library.statistics = True
    report = run_audit(library, [str(log)])
    report.configuration = Configuration(
        rulesets=[RulesetUsed(id=r.id, sha256=r.sha256) for r in report.rulesets],
        selection=SelectionUsed(ignore=["DEL-"], source="audit.toml", hidden=12),
        statistics=True,
    )
    page = folder / "n6.html"
    page.write_text(REPORTERS["html"].render(report), encoding="utf-8")
    return page.as_uri()


def at_screen_size(driver: webdriver.Chrome, width: int, height: int) -> None:
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    WebDriverWait(driver, WAIT).until(
        lambda d: d.execute_script(
            "return innerWidth === arguments[0] && innerHeight === arguments[1]", width, height
        )
    )


def test_the_first_screen_holds_the_night_the_verdict_and_what_shaped_the_report(
    browser, six_tables
):
    """At 1280 x 800 the first screen shows the night, the casino, the verdict, the banner of what hid
    findings and the configuration; the details (every statistics group) start within a few screens."""
    load(browser, six_tables)
    at_screen_size(browser, *SCREEN)
    try:
        boxes = browser.execute_script(
            """
            const out = {};
            for (const id of arguments[0]) {
              const e = document.getElementById(id), box = e.getBoundingClientRect();
              out[id] = [box.top + scrollY, box.bottom + scrollY, e.checkVisibility()];
            }
            return out;""",
            [
                "night-dates",
                "night-casino",
                "verdict",
                "hidden-findings",
                "summary-anomalies",
                "configuration",
                "every-group",
            ],
        )
        ARTIFACTS.mkdir(exist_ok=True)
        browser.save_screenshot(str(ARTIFACTS / "html-six-tables-first-screen.png"))
        details = boxes.pop("every-group")
        assert {
            ident: top >= 0 and bottom <= SCREEN[1] and seen
            for ident, (top, bottom, seen) in boxes.items()
        } == dict.fromkeys(boxes, True), boxes
        assert details[0] <= DETAILS_WITHIN, details
        text = browser.find_element(By.ID, "summary").text
        assert (
            "Casino-Simulation" in text
            and "PASS" in text
            and "12 findings hidden by ignore DEL- (audit.toml)" in text
        )
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_the_folded_groups_open_on_a_click_and_print_unfolded(browser, six_tables):
    load(browser, six_tables)
    shown_rows = "return Array.from(document.querySelectorAll('details.fold tbody tr')).filter(r => r.checkVisibility()).length"
    folds = browser.find_elements(By.CSS_SELECTOR, "details.fold[data-scope]")
    assert (
        len(folds) >= 4 and browser.execute_script(shown_rows) == 0
    )  # dealers, players, bankers, pontes, shoes
    folds[0].find_element(By.TAG_NAME, "summary").click()
    WebDriverWait(browser, WAIT).until(lambda d: d.execute_script(shown_rows) > 0)
    first = len(folds[0].find_elements(By.CSS_SELECTOR, "tbody tr"))
    assert browser.execute_script(shown_rows) == first
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        total = browser.execute_script(
            "return document.querySelectorAll('details.fold tbody tr').length"
        )
        assert browser.execute_script(shown_rows) == total > first
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})


def test_times_and_ids_do_not_wrap_inside(browser, night):
    """Every time and id of the faulty night's page keeps to one line, on a screen and on A4."""
    load(browser, night["url"])
    check = """
        const out = [];
        for (const e of document.querySelectorAll('.stamp, .id, time')) {
          if (!e.checkVisibility()) continue;
          if (getComputedStyle(e).whiteSpace !== 'nowrap' || e.getClientRects().length !== 1) out.push(e.outerHTML);
        }
        return [document.querySelectorAll('td .stamp').length, document.querySelectorAll('td.id, td .id').length, out];"""
    stamps, ids, broken = browser.execute_script(check)
    assert (
        stamps >= len(night["json"]["findings"])
        and ids >= len(night["json"]["findings"])
        and broken == []
    )
    at_screen_size(browser, A4_WIDTH, 1100)
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        assert browser.execute_script(check)[2] == []
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
