"""Reports are evidence: written whole or not at all, never over an input, checked before the audit (issue 15)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
THREE = ROOT / "fixtures" / "acceptance" / "three-breaches.del"
OLD = {"a.json": "old json report\n", "b.sarif": "old sarif report\n"}


def audit(
    *args: str, cwd: Path, stdout=subprocess.PIPE, timeout: int = 300
) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "audit", *args],
        cwd=cwd,
        env=env,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=timeout,
    )


def patched_audit(tmp_path: Path, patch: str, *args: str) -> subprocess.CompletedProcess:
    """The command line with ``patch`` (Python) run first, to make a write fail on purpose."""
    script = tmp_path / "patched_audit.py"
    script.write_text(f"{patch}\nfrom audit.cli import main\nmain()\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, str(script), *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def previous_reports(folder: Path) -> None:
    for name, text in OLD.items():
        (folder / name).write_text(text, encoding="utf-8")


def assert_previous_reports_intact(folder: Path, *others: str) -> None:
    for name, text in OLD.items():
        assert (folder / name).read_text(encoding="utf-8") == text
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [*OLD, *others]
    )  # no temporary file left


TWO_REPORTS = ("check", "-f", "json", "-o", "a.json", "-f", "sarif", "-o", "b.sarif", str(THREE))


def test_reports_replace_the_previous_ones_whole(tmp_path):
    previous_reports(tmp_path)
    os.chmod(tmp_path / "a.json", 0o640)
    (tmp_path / "link.sarif").symlink_to("b.sarif")
    done = audit(
        "check",
        "-f",
        "json",
        "-o",
        "a.json",
        "-f",
        "sarif",
        "-o",
        "link.sarif",
        str(THREE),
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stderr
    assert json.loads((tmp_path / "a.json").read_text())["summary"]["findings"]["error"] == 3
    assert json.loads((tmp_path / "b.sarif").read_text())["version"] == "2.1.0"
    assert (
        stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == 0o640
    )  # an existing report keeps its mode
    assert (tmp_path / "link.sarif").is_symlink()  # the link is kept, the file it names replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.sarif", "link.sarif"]


def test_a_write_failing_midway_replaces_no_report(tmp_path):
    """The second report's file fails after it was created (a full disk at fsync): neither the
    first report, already written aside, nor the second replaces its previous version."""
    previous_reports(tmp_path)
    patch = """
import errno, os
real_fsync, calls = os.fsync, []
def failing_fsync(fd):
    calls.append(fd)
    if len(calls) == 2:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    real_fsync(fd)
os.fsync = failing_fsync
"""
    done = patched_audit(tmp_path, patch, *TWO_REPORTS)
    assert done.returncode == 2
    assert done.stderr == "audit: b.sarif: cannot write: No space left on device\n"
    assert_previous_reports_intact(tmp_path, "patched_audit.py")


def test_a_report_for_standard_output_that_fails_replaces_no_file(tmp_path):
    previous_reports(tmp_path)
    with open("/dev/full", "w") as full:
        done = audit(
            "check",
            "-f",
            "json",
            "-o",
            "a.json",
            "-f",
            "text",
            str(THREE),
            cwd=tmp_path,
            stdout=full,
        )
    assert done.returncode == 2
    assert done.stderr == "audit: standard output: cannot write: No space left on device\n"
    assert_previous_reports_intact(tmp_path)


def test_an_interruption_while_writing_replaces_no_report(tmp_path):
    previous_reports(tmp_path)
    patch = """
import os, signal
import audit.atomic as atomic
real, calls = atomic._temporary, []
def interrupted_after_the_first(*args):
    calls.append(args)
    if len(calls) == 2:
        os.kill(os.getpid(), signal.SIGINT)
    return real(*args)
atomic._temporary = interrupted_after_the_first
"""
    done = patched_audit(tmp_path, patch, *TWO_REPORTS)
    assert (done.returncode, done.stderr) == (130, "audit: interrupted\n")
    assert_previous_reports_intact(tmp_path, "patched_audit.py")


def test_an_output_that_is_an_input_is_refused_before_reading(tmp_path):
    """Same file by name, through ``..``, a link, a second (hard) link, or found in a folder given:
    refused with exit 2 before any log is read (a FIFO would hold a reading audit forever)."""
    log = tmp_path / "logs" / "ev.del"
    log.parent.mkdir()
    log.write_bytes(THREE.read_bytes())
    (tmp_path / "link.json").symlink_to(log)
    os.link(log, tmp_path / "hard.json")
    os.mkfifo(
        tmp_path / "wait.del"
    )  # (given by name: a FIFO in a folder walked is an error of its own)
    baseline = tmp_path / "baseline.json"
    baseline.write_text("{}", encoding="utf-8")
    cases = [
        ("check", "-f", "json", "-o", "logs/ev.del", "logs/ev.del"),
        ("check", "-f", "json", "-o", "logs/../logs/ev.del", "logs/ev.del"),
        ("check", "-o", "link.json", "logs/ev.del"),
        ("check", "-o", "hard.json", "logs/ev.del"),
        ("check", "-f", "json", "-o", "logs/ev.del", "logs"),
        ("check", "-f", "json", "-o", "wait.del", "wait.del"),
        ("check", "-o", "baseline.json", "--baseline", "baseline.json", "logs/ev.del"),
        ("baseline", "create", "logs/ev.del", "-o", "logs/ev.del"),
        ("baseline", "create", "logs", "-o", "link.json"),
    ]
    for args in cases:
        done = audit(*args, cwd=tmp_path, timeout=60)
        assert done.returncode == 2, (args, done.stderr)
        assert "is an input of this run" in done.stderr and done.stderr.count("\n") == 1, (
            done.stderr
        )
    assert log.read_bytes() == THREE.read_bytes() and baseline.read_text() == "{}"


def test_two_reports_to_one_file_are_refused(tmp_path):
    done = audit(
        "check",
        "-f",
        "json",
        "-o",
        "r.out",
        "-f",
        "sarif",
        "-o",
        "./sub/../r.out",
        str(THREE),
        cwd=tmp_path,
    )
    assert done.returncode == 2 and "two reports would go to the same file" in done.stderr
    assert list(tmp_path.iterdir()) == []
    # /dev/null is no file to protect: it takes any number of reports
    done = audit(
        "check",
        "-f",
        "json",
        "-o",
        "/dev/null",
        "-f",
        "sarif",
        "-o",
        "/dev/null",
        str(THREE),
        cwd=tmp_path,
    )
    assert (done.returncode, done.stderr) == (1, "")


def test_a_bad_output_fails_before_the_audit(tmp_path):
    """The input is a FIFO nobody writes to: an audit that started would wait for ever."""
    os.mkfifo(tmp_path / "wait.del")
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    (tmp_path / "folder.json").mkdir()
    cases = {
        "nowhere/r.json": "--output nowhere/r.json: no such folder",
        "a-file/r.json": "--output a-file/r.json: no such folder",
        "folder.json": "--output folder.json: is a folder",
        "r.pdf": "--output r.pdf: no report format has its extension: give a --format for it "
        "(text (.txt), json (.json), sarif (.sarif), junit (.xml), github (.txt), gitlab (.json), html (.html))",
    }
    for output, message in cases.items():
        done = audit("check", "-o", output, "wait.del", cwd=tmp_path, timeout=60)
        assert done.returncode == 2 and done.stderr.startswith(f"audit: {message}"), done.stderr
    done = audit("baseline", "create", "wait.del", "-o", "nowhere/b.json", cwd=tmp_path, timeout=60)
    assert done.returncode == 2 and "no such folder" in done.stderr
    done = audit("rules", "-o", "nowhere/rules.txt", cwd=tmp_path, timeout=60)
    assert done.returncode == 2 and "no such folder" in done.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="permissions do not stop the superuser")
def test_a_folder_that_cannot_be_written_fails_before_the_audit(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    os.mkfifo(tmp_path / "wait.del")
    done = audit("check", "-o", "locked/r.json", "wait.del", cwd=tmp_path, timeout=60)
    assert done.returncode == 2 and "cannot create a file in" in done.stderr


def test_an_output_without_format_follows_its_extension(tmp_path):
    done = audit(
        "check",
        "-o",
        "r.json",
        "-o",
        "r.sarif",
        "-o",
        "r.xml",
        "-o",
        "r.txt",
        str(THREE),
        cwd=tmp_path,
    )
    assert done.returncode == 1 and done.stdout == "", done.stderr
    assert json.loads((tmp_path / "r.json").read_text())["format"] == "del-audit-report"
    assert json.loads((tmp_path / "r.sarif").read_text())["version"] == "2.1.0"
    assert (
        (tmp_path / "r.xml")
        .read_text()
        .startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites')
    )
    assert (tmp_path / "r.txt").read_text().startswith("audit: ")
    # an --output beyond the --formats follows its extension too
    done = audit("check", "-f", "text", "-o", "t.json", "-o", "s.SARIF", str(THREE), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert (tmp_path / "t.json").read_text().startswith("audit: ")  # the --format given wins
    assert json.loads((tmp_path / "s.SARIF").read_text())["version"] == "2.1.0"


def test_standard_output_on_a_full_disk_is_named(tmp_path):
    for args in (["check", "-f", "json", str(THREE)], ["check", str(THREE)], ["rules"]):
        with open("/dev/full", "w") as full:
            done = audit(*args, cwd=tmp_path, stdout=full)
        assert done.returncode == 2, args
        assert done.stderr == "audit: standard output: cannot write: No space left on device\n", (
            args
        )


def test_rules_of_an_empty_rulesets_folder_is_an_error(tmp_path):
    (tmp_path / "empty").mkdir()
    done = audit("rules", "--rulesets", "empty", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "audit: empty: holds no ruleset (*.yaml)\n"


def test_dev_stdout_into_a_pipe_takes_the_report(tmp_path):
    """A pipe has no path to resolve nor a folder to put a temporary file in: it is written directly."""
    done = audit("check", "-f", "json", "-o", "/dev/stdout", str(THREE), cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, "")
    assert json.loads(done.stdout)["summary"]["findings"]["error"] == 3
    assert list(tmp_path.iterdir()) == []
