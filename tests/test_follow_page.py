"""audit follow --serve: the live page in the system's Chromium (as tests/test_html_browser.py
drives it) updates when a line is appended to a followed file; the page only reads (GET), and
is served on loopback unless told otherwise."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
WAIT = 60  # seconds at most for a condition: a loaded machine is slow, the test is not timed
GARBLED = "2026-11-20T21:00:00.000+01:00 a line the <b>terminal</b> garbled\n"


def audit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "audit", *args], cwd=ROOT, capture_output=True, text=True
    )


@pytest.fixture
def served(tmp_path):
    """A follow of a short night with its page served: (url, the log, the process)."""
    log = tmp_path / "night.del"
    done = audit(
        "simulate", "-r", "fr-bataille-2007", "--tables", "2", "--rounds", "5", "-o", str(log)
    )
    assert done.returncode == 0, done.stderr
    proc = subprocess.Popen(
        [sys.executable, "-m", "audit", "follow", str(log), "--serve", "127.0.0.1:0"]
        + ["-o", str(tmp_path / "out.txt"), "--interval", "0.05"],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()  # "audit: the live page: http://127.0.0.1:PORT/"
    found = re.search(r"http://\S+", line)
    assert found, line
    yield found.group(0), log, proc
    proc.terminate()
    assert proc.wait(30) == 0, proc.stderr.read()


def http(url: str, method: str = "GET", host: str | None = None) -> int:
    request = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None)
    if host:
        request.add_header("Host", host)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as err:
        return err.code


@pytest.mark.skipif(not (CHROMIUM and DRIVER), reason="no Chromium and chromedriver installed")
def test_the_page_shows_a_line_appended_to_a_followed_file(served):
    url, log, _ = served
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=DRIVER))
    try:
        driver.get(url)
        wait = WebDriverWait(driver, WAIT)
        wait.until(lambda d: d.find_element(By.ID, "live-state").text == "live")
        wait.until(lambda d: "FR-01" in d.find_element(By.ID, "tables-body").text)
        assert not driver.find_elements(By.CSS_SELECTOR, "#findings-body tr.finding")
        with log.open("a") as f:
            f.write(GARBLED)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#findings-body tr.finding"))
        row = driver.find_element(By.CSS_SELECTOR, "#findings-body tr.finding")
        assert "DEL-SYNTAX" in row.text and "<b>terminal</b>" in row.text  # text, never markup
        assert not driver.find_elements(By.CSS_SELECTOR, "#findings-body b")
        figure = driver.find_element(By.CSS_SELECTOR, "#figures .sev-error .n")
        assert figure.text == "1"
        with log.open("a") as f:
            f.write(GARBLED)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#findings-body tr")) == 2)
        severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert not severe  # no script error, nothing the page's policy refused
        assert not driver.find_elements(By.TAG_NAME, "form")
    finally:
        driver.quit()


def test_the_page_is_read_only_and_for_its_own_host(served):
    url, _, _ = served
    assert http(url) == 200
    assert http(url, "POST") == 405
    assert http(url + "events", "POST") == 405
    assert http(url, host="attacker.example") == 400  # a DNS rebinding reads nothing


def test_a_public_address_needs_to_be_asked_for(tmp_path):
    log = tmp_path / "a.del"
    log.write_text("")
    refused = audit("follow", "--once", str(log), "--serve", "0.0.0.0:0")
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "--serve-public" in refused.stderr
    wrong = audit("follow", "--once", str(log), "--serve", "nowhere")
    assert wrong.returncode == 2 and "HOST:PORT" in wrong.stderr
    alone = audit("follow", "--once", str(log), "--serve-public")
    assert alone.returncode == 2 and "without --serve" in alone.stderr
    public = audit("follow", "--once", str(log), "--serve", "0.0.0.0:0", "--serve-public")
    assert public.returncode == 0, public.stderr


def test_without_the_live_extra_one_line(monkeypatch):
    from audit.follow.board import Board
    from audit.follow.serve import ServeError, Server
    from audit.rulesets import Library

    monkeypatch.setitem(sys.modules, "uvicorn", None)
    with pytest.raises(ServeError, match=r"pip install 'del-audit\[live\]'"):
        Server(Board(Library.load()), "127.0.0.1", 0, False)
