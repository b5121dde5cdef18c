"""Deep nesting and duplicate keys in rulesets, overlays, configuration and baselines (issue 15, items 6, 7, 9)."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml
from in_process import audit as audit_here

from audit import nesting
from fixtures import copy_rulesets

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "fixtures" / "nights" / "example-night.del"


def _audit(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """The command line in this process (tests/in_process.py), in the folder ``cwd``."""
    return audit_here(*args, cwd=cwd)


def _overlay(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "overlay.yaml"
    path.write_text("ruleset: fr-bataille-2007\ntitle: t\n" + body, encoding="utf-8")
    return path


@pytest.mark.parametrize("depth", [nesting.MAX_DEPTH + 1, 1_000, 100_000])
def test_a_deeply_nested_overlay_is_refused_with_its_line(tmp_path, depth):
    overlay = _overlay(tmp_path, "rules:\n  " + "[" * depth + "]" * depth + "\n")
    done = _audit("check", "--house", str(overlay), str(LOG))
    assert done.returncode == 2, done.stderr
    assert (
        f"{overlay}, line 4: nested more than {nesting.MAX_DEPTH} levels deep; refused"
        in done.stderr
    )
    assert "Traceback" not in done.stderr


def test_a_duplicate_key_in_an_overlay_is_refused_with_file_line_and_key(tmp_path):
    overlay = _overlay(
        tmp_path, "rules:\n  FR-PAY-MAIN: {enabled: true}\n  FR-PAY-MAIN: {enabled: false}\n"
    )
    done = _audit("check", "--house", str(overlay), str(LOG))
    assert done.returncode == 2
    assert f"{overlay}, line 5: duplicate key 'FR-PAY-MAIN'" in done.stderr


def test_a_duplicate_key_in_a_ruleset_is_refused(tmp_path):
    folder = copy_rulesets(tmp_path / "rulesets")
    ruleset = folder / "del-v1.yaml"
    ruleset.write_text(
        ruleset.read_text(encoding="utf-8").replace("\nrules:", "\ntitle: again\nrules:", 1),
        encoding="utf-8",
    )
    line = ruleset.read_text(encoding="utf-8").splitlines().index("title: again") + 1
    done = _audit("check", "--rulesets", str(folder), str(LOG))
    assert done.returncode == 2
    assert f"{ruleset}, line {line}: duplicate key 'title'" in done.stderr


@pytest.mark.parametrize("depth", [nesting.MAX_DEPTH + 1, 1_000, 100_000])
def test_a_deeply_nested_configuration_is_refused(tmp_path, depth):
    (tmp_path / "audit.toml").write_text(
        "rulesets = 'x'\nfail-on = " + "[" * depth + "]" * depth + "\n", encoding="utf-8"
    )
    done = _audit("check", str(LOG), cwd=tmp_path)
    assert done.returncode == 2
    assert (
        f"audit.toml, line 2: nested more than {nesting.MAX_DEPTH} levels deep; refused"
        in done.stderr
    )


@pytest.mark.parametrize("depth", [nesting.MAX_DEPTH + 1, 100_000])
def test_a_deeply_nested_baseline_is_refused(tmp_path, depth):
    baseline = tmp_path / "b.json"
    baseline.write_text('{"format":\n' + "[" * depth + "]" * depth + "}", encoding="utf-8")
    done = _audit("check", "--baseline", str(baseline), str(LOG))
    assert done.returncode == 2
    assert (
        f"{baseline}, line 2: nested more than {nesting.MAX_DEPTH} levels deep; refused"
        in done.stderr
    )


@pytest.mark.parametrize("text", ["tool = 5\n", "[tool]\naudit = 5\n"])
def test_a_tool_table_of_the_wrong_type_is_a_message(tmp_path, text):
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    done = _audit("check", str(LOG), cwd=tmp_path)
    assert done.returncode == 2
    assert "a table is expected" in done.stderr and "Traceback" not in done.stderr


def test_brackets_inside_strings_and_comments_do_not_count():
    deep = "[" * 100
    nesting.check_depth(f'a = "{deep}"\nb = \'{deep}\'\nc = """\n{deep}\n"""\n# {deep}\n', "toml")
    nesting.check_depth(json.dumps({"a": deep, "b": 'x\\"' + deep}), "json")


@pytest.mark.parametrize("depth", range(1, 80, 7))
def test_the_scan_agrees_with_the_parsers_on_depth(depth):
    """The plain check beside the scan: build the value, measure it, and compare with the refusal."""
    text_json = "[" * depth + "]" * depth
    refused = depth > nesting.MAX_DEPTH
    for syntax, text, parse in (
        ("json", text_json, json.loads),
        ("toml", "a = " + text_json, tomllib.loads),
        ("yaml", text_json, yaml.safe_load),
    ):
        value = parse(text)
        measured = 0
        while isinstance(value, (list, dict)) and value:
            value = value["a"] if isinstance(value, dict) else value[0]
            measured += 1
        measured += isinstance(value, (list, dict))  # the innermost, empty collection
        assert measured == depth + (syntax == "toml")  # TOML's document is a table around the value
        try:
            nesting.check_yaml_depth(text) if syntax == "yaml" else nesting.check_depth(
                text, syntax
            )
        except nesting.ShapeProblem:
            assert refused
        else:
            assert not refused


def test_aliases_are_not_duplicate_keys():
    node = yaml.compose("a: &x {k: 1}\nb: *x\nc: [*x, *x]\n")
    nesting.check_yaml_keys(node)
