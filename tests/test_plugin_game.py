"""A game out of the tree is one package: ``tests/plugins/pair-impair``, installed beside this
checkout in a virtual environment of its own, is audited, listed, explained, its odds computed
and its tables simulated by the unchanged command line, found through its entry point alone.

The plugin imports only the stable surface (``audit.plugin``, docs/plugins.md), and no line of
``audit/`` names it.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
import venvs

from audit.plugin import __all__ as SURFACE
from fixtures import read_fixture

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "tests" / "plugins" / "pair-impair"
FIXTURES = PLUGIN / "fixtures"
#: the modules of the auditor a plugin may import (docs/plugins.md)
ALLOWED = {"audit.plugin", "audit.plugin.odds", "audit.plugin.simulate"}


def _pip(python: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """A virtual environment with this checkout and the plugin installed (no build isolation: the
    build backend comes from here, else from the package index pip is configured with)."""
    where = tmp_path_factory.mktemp("plugin")
    bindir = venvs.create(where / "venv", with_pip=False)
    python = bindir / "python"
    has_backend = subprocess.run([str(python), "-c", "import hatchling"], capture_output=True)
    if has_backend.returncode != 0 and _pip(python, "hatchling").returncode != 0:
        pytest.skip("hatchling, the build backend, is neither here nor to be installed")
    done = _pip(python, "--no-deps", "--no-build-isolation", str(ROOT), str(PLUGIN))
    assert done.returncode == 0, done.stderr[-3000:]
    return bindir, venvs.environment(bindir), where


def audit(venv, *args: str) -> subprocess.CompletedProcess:
    bindir, env, where = venv
    return subprocess.run(
        [str(bindir / "audit"), *args],
        cwd=where,  # not the checkout: the installed package and its metadata
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_plugin_is_found_through_its_entry_point(venv):
    bindir, env, where = venv
    done = subprocess.run(
        [
            str(bindir / "python"),
            "-c",
            "import audit, pair_impair; from audit.registry import GAMES, published; "
            "print(audit.__file__); print(sorted(GAMES)); print(sorted(r for r, _ in published()))",
        ],
        cwd=where,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    path, games, published = done.stdout.splitlines()
    assert str(bindir.parent) in path  # the installed copy, not the checkout
    assert "'pair-impair'" in games
    # the built-in games are published the same way, from this checkout's metadata
    assert "audit.games.bataille:GAME" in published and "pair_impair:GAME" in published


def test_audit_check_finds_the_breaches_of_its_fixture(venv):
    path = FIXTURES / "breach.del"
    done = audit(venv, "check", "--format", "json", str(path))
    assert done.returncode == 1, done.stderr
    found = sorted((f["rule"], f["line"]) for f in json.loads(done.stdout)["findings"])
    expected = read_fixture(path).expected
    assert found == sorted(expected) and {r for r, _ in found} == {"PI-LATE-WAGER", "PI-PAYOUT"}


def test_audit_check_passes_its_clean_fixture(venv):
    done = audit(venv, "check", "--quiet", str(FIXTURES / "clean.del"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_report_names_the_plugin_that_ran_inside_the_audit(venv, tmp_path):
    """Third-party code ran in the process (its game, its rules): the report says which, from
    which distribution, even on a night none of whose tables plays its game."""
    night = ROOT / "fixtures" / "nights" / "example-night.del"  # bataille only
    plugin = {
        "game": "pair-impair",
        "entry_point": "pair_impair:GAME",
        "distribution": "pair-impair",
        "version": "0.1.0",
    }
    done = audit(venv, "check", "--format", "json", str(FIXTURES / "clean.del"))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["configuration"]["plugins"] == [plugin]
    out = {fmt: tmp_path / f"night.{fmt}" for fmt in ("json", "text", "html", "junit")}
    formats = [arg for fmt, path in out.items() for arg in ("-f", fmt, "-o", str(path))]
    done = audit(venv, "check", *formats, str(night))
    assert done.returncode == 0, done.stderr
    read = {fmt: path.read_text(encoding="utf-8") for fmt, path in out.items()}
    assert json.loads(read["json"])["configuration"]["plugins"] == [plugin]
    said = "game plugin pair-impair (pair_impair:GAME, from pair-impair 0.1.0)"
    first = read["text"].splitlines()[0]
    assert first.startswith("audit: ") and said in first
    assert f"{said}: not the auditor's own code" in read["text"]
    assert "is not the auditor&#x27;s own code" in read["html"] or (
        "is not the auditor's own code" in read["html"]
    )
    assert 'name="configuration.plugins.1.distribution" value="pair-impair"' in read["junit"]
    quiet = audit(venv, "check", "--quiet", str(night)).stdout
    assert said in quiet


def test_a_misspelt_wager_is_a_syntax_finding_in_the_plugins_words(venv, tmp_path):
    log = tmp_path / "bad.del"
    text = (FIXTURES / "clean.del").read_text(encoding="utf-8")
    log.write_text(text.replace("on=impair", "on=odd", 1), encoding="utf-8")
    done = audit(venv, "check", "--format", "json", str(log))
    messages = [f["message"] for f in json.loads(done.stdout)["findings"]]
    assert any("expected pair or impair" in m for m in messages), messages


def test_audit_rules_and_explain_know_its_ruleset(venv):
    rules = audit(venv, "rules", "pi-essai-2026")
    assert rules.returncode == 0, rules.stderr
    assert "PI-LATE-WAGER" in rules.stdout and "PI-PAYOUT" in rules.stdout
    explained = audit(venv, "explain", "PI-PAYOUT")
    assert explained.returncode == 0, explained.stderr
    assert "pi-payout" in explained.stdout and "art. 3" in explained.stdout


def test_audit_explain_shows_the_examples_of_its_own_fixtures(venv):
    explained = audit(venv, "explain", "PI-PAYOUT")
    assert explained.returncode == 0, explained.stderr
    text = explained.stdout
    assert "no fixture" not in text and "fixtures are not here" not in text
    assert "A log that breaks it" in text and "A log that keeps it" in text
    breaking = text.split("A log that breaks it", 1)[1].split("A log that keeps it", 1)[0]
    assert "PI-FAIL PAY seat=1 spot=main amount=20" in breaking and ">>" in breaking


def test_audit_trace_indexes_its_rulesets_sentences_and_fixtures(venv):
    traced = audit(venv, "trace")
    assert traced.returncode == 0, traced.stderr
    page = traced.stdout
    assert "pi-essai-2026" in page and "PI-3.s1" in page
    for rule in ("PI-PAYOUT", "PI-LATE-WAGER"):
        assert f"{rule}.del" in page, rule
    # the auditor's own regulations are still there, their fixtures linked in the checkout
    assert "../fixtures/rules/fr-bataille-2007/" in page


def test_audit_odds_gives_its_exact_edges(venv):
    done = audit(venv, "odds", "pi-essai-2026", "--format", "json")
    assert done.returncode == 0, done.stderr
    bets = {b["bet"]: b["house_edge"] for b in json.loads(done.stdout)["bets"]}
    # 28 odd cards and 24 even of 52; pair pays 1, impair 9/10
    assert bets == {"pair": "1/13", "impair": "-3/130"}


def test_audit_simulate_plays_its_tables_and_the_night_audits_clean(venv, tmp_path):
    log = tmp_path / "night.del"
    done = audit(venv, "simulate", "-r", "pi-essai-2026", "--rounds", "30", "-o", str(log))
    assert done.returncode == 0, done.stderr
    text = log.read_text(encoding="utf-8")
    assert "OPEN game=pair-impair" in text and " WAGER " in text
    again = audit(venv, "simulate", "-r", "pi-essai-2026", "--rounds", "30")
    assert again.stdout == text  # the same seed, the same night
    checked = audit(venv, "check", "--quiet", str(log))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names if node.module == "audit")
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def test_the_plugin_imports_only_the_stable_surface():
    used = set().union(*(_imports(p) for p in (PLUGIN / "src").rglob("*.py")))
    auditor = {name for name in used if name == "audit" or name.startswith("audit.")}
    assert auditor and auditor <= ALLOWED, auditor - ALLOWED
    assert {"Game", "Round", "declare", "Syntax", "EventBase", "event"} <= set(SURFACE)


def test_no_line_of_the_auditor_names_the_plugin():
    words = ("pair-impair", "pair_impair", "pair ou impair", "pi-essai", "wager")
    for path in (ROOT / "audit").rglob("*.py"):
        text = path.read_text(encoding="utf-8").lower()
        assert not [w for w in words if w in text], path
