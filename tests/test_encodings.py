"""A log in the wrong encoding is reported once, not line by line; a log with no event is said
to be so (issue 15, item 13)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from test_history import Done, cli

ROOT = Path(__file__).resolve().parent.parent
THREE = ROOT / "fixtures" / "acceptance" / "three-breaches.del"


def audit(*args: str) -> Done:
    """``audit`` in this process (what is checked is the report, not the process): an internal
    error is an exception ``cli`` refuses, as the process would print no traceback."""
    return cli(*args)


@pytest.mark.parametrize(
    "codec, name",
    [
        ("utf-16", "UTF-16 LE"),
        ("utf-16-be", "UTF-16 BE"),
        ("utf-16-le", "UTF-16 LE"),
        ("utf-32", "UTF-32 LE"),
    ],
)
def test_a_log_in_utf16_is_one_finding_with_its_line_count(codec, name, tmp_path):
    data = THREE.read_text(encoding="utf-8").encode(codec)
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    log = tmp_path / "wide.del"
    log.write_bytes(data)
    packed = tmp_path / "wide.del.gz"
    packed.write_bytes(gzip.compress(data, mtime=0))
    for path in (log, packed):
        done = audit("check", "-f", "json", str(path))
        report = json.loads(done.stdout)
        assert done.returncode == 1 and "Traceback" not in done.stderr
        (finding,) = report["findings"]
        assert (finding["rule"], finding["line"], finding["actual"]) == ("DEL-SYNTAX", 1, None)
        assert (
            finding["message"]
            == f"the file is not UTF-8 text (it looks like {name}): none of its {lines} lines is audited"
        )
        (summary,) = report["inputs"]
        assert summary["lines"] == lines and summary["accounting"]["syntax"] == 1
        assert summary["accounting"]["not_audited"] == lines - 1
        assert summary["size"] == path.stat().st_size
    assert (
        audit("check", "-f", "json", "--jobs", "2", str(log)).stdout
        == audit("check", "-f", "json", str(log)).stdout
    )


def test_a_utf8_log_with_a_few_bad_lines_is_still_read_line_by_line(tmp_path):
    data = THREE.read_bytes().replace(b"DEALER id=", b"DEALER id=\xff", 1).replace(b"\x00", b"")
    log = tmp_path / "night.del"
    log.write_bytes(b"\x00" * 3 + data)  # a few NUL bytes are damage, not another encoding
    report = json.loads(audit("check", "-f", "json", str(log)).stdout)
    syntax = [f["message"] for f in report["findings"] if f["rule"] == "DEL-SYNTAX"]
    assert len(syntax) == 2 and any("not valid UTF-8" in m for m in syntax)
    assert {"FR-LATE-BET", "FR-PAY-MAIN"} <= {f["rule"] for f in report["findings"]}


@pytest.mark.parametrize(
    "content, lines", [(b"", 0), (b"#DEL 1\n#casino X\n\n# nothing tonight\n", 4)]
)
def test_a_log_with_no_event_is_a_warning(content, lines, tmp_path):
    log = tmp_path / "quiet.del"
    log.write_bytes(content)
    done = audit("check", "-f", "json", str(log))
    assert done.returncode == 0, done.stderr  # a warning: the default --fail-on error passes it
    (finding,) = json.loads(done.stdout)["findings"]
    assert (finding["rule"], finding["severity"], finding["line"]) == (
        "DEL-EMPTY",
        "warning",
        max(lines, 1),
    )
    assert finding["message"] == (
        "the file is empty: it holds no event"
        if not lines
        else f"the file holds no event: its {lines} lines are blank lines, comments and headers"
    )
    assert audit("check", "--fail-on", "warning", str(log)).returncode == 1


def test_a_log_with_events_or_problems_is_not_empty_whatever_the_jobs(tmp_path):
    """One table: with --jobs 2 its events are part 1's, and part 0 (which reports DEL-EMPTY) has none."""
    log = tmp_path / "night.del"
    log.write_bytes(THREE.read_bytes())
    garbage = tmp_path / "garbage.del"
    garbage.write_bytes(b"not a line of a log\n")
    for jobs in ("1", "2"):
        report = json.loads(
            audit("check", "-f", "json", "--jobs", jobs, str(log), str(garbage)).stdout
        )
        assert "DEL-EMPTY" not in {f["rule"] for f in report["findings"]}, jobs
    from audit import run as run_module
    from audit.rulesets import Library

    library = Library.load()
    tasks = run_module._tasks([str(log)], 2)
    parts = run_module._merge(
        library, tasks, [run_module._audit_part(library, *task) for task in tasks]
    )
    assert "DEL-EMPTY" not in {f.rule for f in parts.findings}
