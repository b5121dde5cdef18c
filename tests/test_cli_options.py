"""The command line's manners: --version, --quiet, --verbose, --color and NO_COLOR, --no-progress, completion,
and the rule selection (--select, --ignore, and their configuration keys)."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest
from in_process import audit as audit_here

from audit import __version__

ROOT = Path(__file__).resolve().parent.parent
THREE = "fixtures/acceptance/three-breaches.del"
DEL_FIXTURES = "fixtures/rules/del-v1"
ESC = "\x1b"


def audit(*args: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    """The command line in this process (tests/in_process.py; its output is not a terminal, as a
    child's pipes are not), in the folder ``cwd``, with ``env`` over the environment."""
    return audit_here(*args, cwd=cwd, env=env)


def audit_at_terminal(*args: str, env: dict | None = None, stdout_too: bool = False) -> str:
    """What the command writes to a terminal on standard error (and standard output with ``stdout_too``)."""
    extra = env or {}
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color", **extra}
    if "NO_COLOR" not in extra:
        env.pop("NO_COLOR", None)
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "audit", *args],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=slave if stdout_too else subprocess.DEVNULL,
        stderr=slave,
    )
    os.close(slave)
    chunks = []
    while select.select([master], [], [], 60)[0]:
        try:
            data = os.read(master, 65536)
        except OSError:  # the other end closed
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    return b"".join(chunks).decode("utf-8", "replace")


def findings(done: subprocess.CompletedProcess) -> list[str]:
    return [f["rule"] for f in json.loads(done.stdout)["findings"]]


# -- version, quiet, verbose ------------------------------------------------------------


def test_version():
    done = audit("--version")
    assert (
        done.returncode == 0
        and done.stdout == f"audit (del-audit) {__version__}\n"
        and not done.stderr
    )


def test_quiet_gives_only_the_summary_line():
    done = audit("check", "-q", THREE)
    assert done.returncode == 1
    assert (
        done.stdout
        == "audit: 3 finding(s) (3 error, 0 warning, 0 info) in 1 file(s), 1 table(s), 1 round(s)\n"
    )
    assert done.stderr == ""
    clean = audit("check", "--quiet", "fixtures/nights/example-night.del")
    assert clean.returncode == 0 and clean.stdout.startswith("audit: no finding in 1 file(s)")


def test_quiet_still_writes_the_reports_asked_and_keeps_data_on_standard_output_clean(tmp_path):
    done = audit("check", "-q", "-f", "sarif", "-o", str(tmp_path / "r.sarif"), "-f", "json", THREE)
    assert done.returncode == 1
    assert len(json.loads(done.stdout)["findings"]) == 3  # the JSON report, whole, alone
    assert done.stderr.startswith("audit: 3 finding(s)")
    assert json.loads((tmp_path / "r.sarif").read_text(encoding="utf-8"))["version"] == "2.1.0"


def test_quiet_still_says_why_the_audit_could_not_be_done():
    done = audit("check", "-q", "no-such.del")
    assert (
        done.returncode == 2
        and done.stdout == ""
        and done.stderr == "audit: no-such.del: no such file or folder\n"
    )


def test_quiet_and_verbose_together_are_a_usage_error():
    done = audit("check", "-q", "-v", THREE)
    assert done.returncode == 2 and "--quiet and --verbose" in done.stderr


def test_verbose_tells_configuration_rulesets_overlays_selection_inputs_and_times(tmp_path):
    (tmp_path / "audit.toml").write_text('ignore = ["late-bet"]\n', encoding="utf-8")
    log = tmp_path / "three.del"
    log.write_bytes((ROOT / THREE).read_bytes())
    done = audit(
        "check",
        "-v",
        "-f",
        "json",
        "--house",
        str(ROOT / "rulesets/house/casino-exemple-fr.yaml"),
        str(log),
        cwd=tmp_path,
    )
    assert done.returncode == 1
    assert findings(done) == [
        "FR-BURN-START",
        "FR-PAY-MAIN",
    ]  # the report on standard output is untouched
    err = done.stderr
    assert all(line.startswith("audit: ") for line in err.splitlines())
    assert f"audit: configuration: {tmp_path / 'audit.toml'}\n" in err
    assert (
        "audit:   fr-bataille-2007 (fr-bataille-2007.yaml, sha256 " in err
        and "house overlay " in err
    )
    assert "audit:   del-v1 (del-v1.yaml" in err
    assert "audit: rules reported: " in err and "(select all; ignore late-bet)" in err
    assert f"audit: inputs: 1 file(s), in 1 process(es) at most\naudit:   {log}\n" in err
    for step in ("rulesets loaded in ", "logs audited in ", "reports written in "):
        assert f"audit: {step}" in err
    assert "audit: report: json to standard output\n" in err
    assert audit("check", "-f", "json", str(log), cwd=tmp_path).stderr == ""  # without -v: nothing


# -- colour -----------------------------------------------------------------------------


def test_color_always_colours_a_pipe_and_never_writes_no_escape():
    always = audit("check", "--color", "always", THREE, env={"NO_COLOR": "1"})
    assert (
        f"{ESC}[1m" in always.stdout and f"{ESC}[1;31m" in always.stdout
    )  # bold, and the red of an error
    never = audit("check", "--color", "never", THREE)
    assert ESC not in never.stdout and "FR-PAY-MAIN" in never.stdout
    assert audit("check", "--color", "sometimes", THREE).returncode == 2


def test_no_color_at_a_terminal_removes_every_escape_bold_and_dim_included():
    coloured = audit_at_terminal("check", "--no-progress", THREE, stdout_too=True)
    assert f"{ESC}[1m" in coloured and f"{ESC}[2m" in coloured  # bold and dim: the test can fail
    plain = audit_at_terminal(
        "check", "--no-progress", THREE, stdout_too=True, env={"NO_COLOR": "1"}
    )
    assert "FR-PAY-MAIN" in plain and ESC not in plain
    never = audit_at_terminal("check", "--no-progress", "--color", "never", THREE, stdout_too=True)
    assert "FR-PAY-MAIN" in never and ESC not in never


def test_no_color_reaches_the_help_and_the_usage_errors_too():
    for env in (
        {},
        {"NO_COLOR": "1"},
    ):  # a usage error is one plain line, as every error, at a terminal too
        plain = audit_at_terminal("check", "--bogus", env=env)
        assert plain.startswith("audit: No such option: --bogus") and ESC not in plain
    helped = audit_at_terminal("check", "--help", stdout_too=True, env={"NO_COLOR": "1"})
    assert "--select" in helped and ESC not in helped


# -- progress bar -----------------------------------------------------------------------


def test_no_progress_turns_the_bar_off():
    args = ("check", "-f", "json", "-o", os.devnull, "fixtures/rules/be-ostende-cdf")
    assert "auditing" in audit_at_terminal(*args)  # the bar is drawn at a terminal
    assert audit_at_terminal(*args[:1], "--no-progress", *args[1:]) == ""
    assert audit_at_terminal(*args[:1], "--quiet", *args[1:]) == ""


# -- shell completion -------------------------------------------------------------------


@pytest.mark.parametrize(
    "shell, marker",
    [
        ("bash", "complete -o default -F _audit_completion audit"),
        ("zsh", "#compdef audit"),
        ("fish", "complete --command audit"),
    ],
)
def test_show_completion_prints_the_script_of_a_shell(shell, marker):
    done = audit(
        "--show-completion", shell, env={"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    )
    assert done.returncode == 0, done.stderr
    assert marker in done.stdout and "_AUDIT_COMPLETE" in done.stdout


def test_completion_completes_the_commands_and_the_options():
    env = {"_AUDIT_COMPLETE": "complete_bash", "COMP_WORDS": "audit ch", "COMP_CWORD": "1"}
    assert audit(env=env).stdout.split() == ["check"]
    env = {"_AUDIT_COMPLETE": "complete_bash", "COMP_WORDS": "audit check --sel", "COMP_CWORD": "2"}
    assert audit(env=env).stdout.split() == ["--select"]


# -- rule selection ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, expected",
    [
        ((), ["FR-LATE-BET", "FR-BURN-START", "FR-PAY-MAIN"]),
        (("--select", "FR-PAY-MAIN"), ["FR-PAY-MAIN"]),  # an id
        (
            ("--select", "wrong-payout,late-bet"),
            ["FR-LATE-BET", "FR-PAY-MAIN"],
        ),  # categories, comma-separated
        (("--select", "FR-"), ["FR-LATE-BET", "FR-BURN-START", "FR-PAY-MAIN"]),  # a prefix
        (
            ("--select", "FR-BURN", "--select", "FR-PAY"),
            ["FR-BURN-START", "FR-PAY-MAIN"],
        ),  # repeated prefixes
        (("--select", "MC-"), []),
        (("--ignore", "FR-LATE-BET"), ["FR-BURN-START", "FR-PAY-MAIN"]),
        (("--ignore", "missed-burn,FR-PAY"), ["FR-LATE-BET"]),
        (
            ("--select", "FR-", "--ignore", "wrong-payout"),
            ["FR-LATE-BET", "FR-BURN-START"],
        ),  # ignore wins
    ],
)
def test_select_and_ignore(args, expected):
    done = audit("check", "-f", "json", *args, THREE)
    assert findings(done) == expected
    assert done.returncode == (1 if expected else 0)
    assert json.loads(done.stdout)["summary"]["findings"]["error"] == len(expected)


def test_ignore_a_format_rule_by_id():
    every = findings(audit("check", "-f", "json", DEL_FIXTURES))
    assert "DEL-TIME-ORDER" in every
    kept = findings(audit("check", "-f", "json", "--ignore", "DEL-TIME-ORDER", DEL_FIXTURES))
    assert kept == [r for r in every if r != "DEL-TIME-ORDER"]


@pytest.mark.parametrize(
    "option, name, hint",
    [
        ("--select", "FR-PAY-MIAN", "did you mean FR-PAY-MAIN"),
        ("--ignore", "wrong-payot", "did you mean wrong-payout"),
        ("--select", "late-bet,fr-late-bet", "did you mean FR-LATE-BET"),
        ("--ignore", "ZZZ", "`audit rules` lists the rule ids and their categories"),
    ],
)
def test_an_unknown_name_is_exit_2_with_a_suggestion(option, name, hint):
    done = audit("check", option, name, THREE)
    assert done.returncode == 2 and done.stdout == ""
    assert (
        done.stderr.startswith(f"audit: {option}: ")
        and hint in done.stderr
        and done.stderr.count("\n") == 1
    )


def test_the_configuration_selects_and_the_command_line_replaces_each_key(tmp_path):
    (tmp_path / "audit.toml").write_text(
        'select = ["FR-"]\nignore = ["late-bet", "FR-BURN"]\n', encoding="utf-8"
    )
    log = tmp_path / "three.del"
    log.write_bytes((ROOT / THREE).read_bytes())
    assert findings(audit("check", "-f", "json", str(log), cwd=tmp_path)) == ["FR-PAY-MAIN"]
    # --ignore replaces the file's ignore; its select stays
    assert findings(
        audit("check", "-f", "json", "--ignore", "wrong-payout", str(log), cwd=tmp_path)
    ) == ["FR-LATE-BET", "FR-BURN-START"]
    # --select replaces the file's select; its ignore stays
    assert findings(
        audit("check", "-f", "json", "--select", "FR-PAY-MAIN,FR-LATE-BET", str(log), cwd=tmp_path)
    ) == ["FR-PAY-MAIN"]
    (tmp_path / "audit.toml").write_text('select = ["FR-PAY-MIAN"]\n', encoding="utf-8")
    done = audit("check", str(log), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(f"audit: {tmp_path / 'audit.toml'}: select: 'FR-PAY-MIAN'")


def test_a_selection_keeps_fingerprints_and_leaves_the_baseline_of_other_rules_alone(tmp_path):
    base = tmp_path / "baseline.json"
    assert audit("baseline", "create", THREE, "-o", str(base)).returncode == 0
    whole = json.loads(audit("check", "-f", "json", "--baseline", str(base), THREE).stdout)
    assert len(whole["suppressed"]) == 3 and whole["baseline"]["stale"] == []
    part = json.loads(
        audit(
            "check", "-f", "json", "--baseline", str(base), "--select", "wrong-payout", THREE
        ).stdout
    )
    assert [s["rule"] for s in part["suppressed"]] == ["FR-PAY-MAIN"]
    assert part["suppressed"][0]["fingerprint"] == whole["suppressed"][2]["fingerprint"]
    assert part["baseline"]["stale"] == []  # the other rules' entries are not judged, so not stale
    narrow = tmp_path / "narrow.json"
    assert (
        audit("baseline", "create", THREE, "-o", str(narrow), "--ignore", "FR-PAY-MAIN").returncode
        == 0
    )
    entries = json.loads(narrow.read_text(encoding="utf-8"))["entries"]
    assert [e["rule"] for e in entries] == ["FR-LATE-BET", "FR-BURN-START"]


def test_sarif_and_junit_name_only_the_rules_the_selection_keeps(tmp_path):
    """A rule left out is not reported as run: no SARIF descriptor, no JUnit test case that passes."""
    import xml.etree.ElementTree as ET

    sarif, junit = tmp_path / "r.sarif", tmp_path / "r.xml"
    for args in ((), ("--select", "wrong-payout")):
        done = audit(
            "check", "-f", "sarif", "-o", str(sarif), "-f", "junit", "-o", str(junit), *args, THREE
        )
        assert done.returncode == 1
        run = json.loads(sarif.read_text(encoding="utf-8"))["runs"][0]
        described = {r["id"] for r in run["tool"]["driver"]["rules"]}
        cases = {c.get("name") for c in ET.parse(junit).getroot().iter("testcase")}
        if not args:
            assert {"FR-LATE-BET", "FR-PAY-MAIN", "DEL-SYNTAX"} <= described
            assert {"FR-LATE-BET", "FR-PAY-MAIN", "DEL-SYNTAX"} <= cases
            continue
        from audit.rulesets import Library

        payout = {
            rule.id
            for rs in Library.load().rulesets.values()
            for rule in rs.model.rules
            if rule.enabled and rule.category == "wrong-payout"
        }
        assert "FR-PAY-MAIN" in payout and described == payout
        assert "FR-LATE-BET" not in described and "DEL-SYNTAX" not in described
        assert "FR-PAY-MAIN" in cases and "FR-LATE-BET" not in cases and "DEL-SYNTAX" not in cases
        assert [r["ruleId"] for r in run["results"]] == ["FR-PAY-MAIN"]


def test_the_options_commands_share_are_declared_once():
    """--house, --config, --rulesets, --select, --ignore and --alpha: one declaration
    (audit/cli_options.py) that every command taking them uses, so their help cannot drift."""
    import typer.main

    from audit.cli import app

    command = typer.main.get_command(app)
    shared = {"house", "config", "rulesets", "select", "ignore", "alpha"}

    def options(*path: str) -> dict:
        cmd = command
        for name in path:
            cmd = cmd.commands[name]  # type: ignore[attr-defined]
        return {p.name: p for p in cmd.params if p.name in shared}

    check, follow = options("check"), options("follow")
    assert set(check) == set(follow) == shared
    for name in shared - {"select", "alpha"}:  # the same words, the same flag and kind
        assert check[name].help == follow[name].help
        assert (check[name].opts, check[name].multiple) == (
            follow[name].opts,
            follow[name].multiple,
        )
    for name in ("select", "alpha"):  # one flag and bounds, each command its own words
        assert (check[name].opts, check[name].multiple) == (
            follow[name].opts,
            follow[name].multiple,
        )
    assert "(Holm)" in check["alpha"].help and "every look" in follow["alpha"].help
    assert options("history", "nights")["config"].help == check["config"].help
    source = "\n".join(
        (ROOT / "audit" / name).read_text()
        for name in ("cli.py", "follow/cli.py", "history_cli.py")
    )
    for flag in ("--house", "--config", "--rulesets", "--select", "--ignore", "--alpha"):
        assert f'"{flag}"' not in source, flag
