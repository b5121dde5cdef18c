"""audit follow and audit simulate-live on the command line."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NIGHT = ROOT / "fixtures" / "nights" / "example-night.del"


def run(*args: str, timeout: float = 120, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "audit", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        **kw,
    )


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "audit", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def faulty(tmp: Path) -> Path:
    log = tmp / "faulty.del"
    run(
        "simulate",
        "-r",
        "fr-bataille-2007",
        "-r",
        "be-ostende-cdf",
        "--tables",
        "2",
        "--rounds",
        "30",
        "--seed",
        "3",
        "--inject",
        "all",
        "-o",
        str(log),
    )
    return log


def keys(objs) -> Counter:
    return Counter((o["rule"], o["line"], o["table"], o["round"]) for o in objs)


def test_once_reports_in_json_lines_what_check_reports(tmp_path):
    log = faulty(tmp_path)
    done = run("follow", "--once", "-f", "jsonl", str(log))
    assert done.returncode == 1, done.stderr
    objs = [json.loads(line) for line in done.stdout.splitlines()]
    assert {o["type"] for o in objs} == {"finding"}
    check = json.loads(run("check", "-f", "json", str(log)).stdout)["findings"]
    assert keys(objs) == keys(check)
    # every field of the findings contract, as check writes it
    assert sorted(objs, key=lambda o: (o["line"], o["rule"])) == sorted(
        ({"type": "finding", **f} for f in check), key=lambda o: (o["line"], o["rule"])
    )


def test_text_is_one_line_a_finding(tmp_path):
    log = faulty(tmp_path)
    done = run("follow", "--once", str(log))
    check = json.loads(run("check", "-f", "json", str(log)).stdout)["findings"]
    lines = done.stdout.splitlines()
    assert len(lines) == len(check)
    first = min(check, key=lambda f: f["line"])
    assert any(
        line.startswith(f"{log.as_posix()}:{first['line']}: {first['severity']} {first['rule']} ")
        for line in lines
    )


def test_a_clean_log_exits_0(tmp_path):
    done = run("follow", "--once", str(NIGHT))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_select_and_ignore_narrow_what_is_reported(tmp_path):
    log = faulty(tmp_path)
    done = run("follow", "--once", "-f", "jsonl", "--select", "syntax,DEL-", str(log))
    objs = [json.loads(line) for line in done.stdout.splitlines()]
    assert objs and all(o["rule"].startswith("DEL-") or o["category"] == "syntax" for o in objs)


def test_the_alert_command_gets_each_grave_finding_as_json_never_through_a_shell(tmp_path):
    log = faulty(tmp_path)
    sink = tmp_path / "alerts"
    script = "import sys; open(sys.argv[1], 'a').write(sys.argv[2] + ' ' + sys.stdin.read())"
    cmd = f"{sys.executable} -c \"{script}\" {sink} '$HOME;x'"
    done = run(
        "follow",
        "--once",
        "-f",
        "jsonl",
        "--alert-command",
        cmd,
        "--alert-severity",
        "warning",
        str(log),
    )
    assert done.returncode == 1, done.stderr
    objs = [json.loads(line) for line in done.stdout.splitlines()]
    grave = [o for o in objs if o["severity"] in ("error", "warning")]
    received = [line for line in sink.read_text().splitlines() if line]
    assert len(received) == len(grave) > 0
    assert all(
        line.startswith("$HOME;x {") for line in received
    )  # the words as given: no shell expanded them
    assert keys(json.loads(line.split(" ", 1)[1]) for line in received) == keys(grave)


def test_errors_are_one_line_exit_2(tmp_path):
    for args, says in [
        (("follow", "--once", str(tmp_path / "none" / "x.del")), "no such file or folder"),
        (
            ("follow", "--once", "--alert-command", "no-such-command-here", str(NIGHT)),
            "no such command",
        ),
        (("follow", "--once", str(tmp_path / "x.del.gz")), "compressed"),
        (("follow", "--once", "--state", str(NIGHT), str(NIGHT)), "not a state file"),
        (("follow", "--once", "--until-idle", "1", str(NIGHT)), "cannot be given together"),
        (("follow", "--once", "-"), "standard input is not followed"),
    ]:
        done = run(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert (
            done.stderr.startswith("audit: ")
            and says in done.stderr
            and done.stderr.count("\n") == 1
        ), done.stderr
        assert "Traceback" not in done.stderr


def test_a_finding_is_reported_while_the_log_is_still_written_and_sigterm_ends_cleanly(tmp_path):
    live = tmp_path / "t.del"
    live.write_bytes(b"#DEL 1\n")
    proc = start("follow", "-f", "jsonl", "--interval", "0.05", "--heartbeat", "0.2", str(live))
    time.sleep(2)
    with live.open("ab") as f:
        f.write(b"2026-11-20T21:00:00.000+01:00 a garbled line\n")
    assert proc.stdout is not None
    seen = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        obj = json.loads(proc.stdout.readline())
        seen.append(obj)
        if {"finding", "status"} <= {o["type"] for o in seen}:
            break
    finding = next(o for o in seen if o["type"] == "finding")
    assert (finding["type"], finding["line"], finding["category"]) == ("finding", 2, "syntax")
    status = [o for o in seen if o["type"] == "status"]
    assert status and {"time", "files", "lines", "open_tables", "findings"} <= set(status[0])
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and err == ""


def test_until_idle_follows_a_folder_written_live(tmp_path):
    folder = tmp_path / "night"
    writer = start(
        "simulate-live",
        str(folder),
        "--per-table",
        "-r",
        "fr-bataille-2007",
        "--tables",
        "2",
        "--rounds",
        "2",
        "--rate",
        "40",
        "--seed",
        "2",
    )
    follower = start(
        "follow",
        "-f",
        "jsonl",
        "--interval",
        "0.05",
        "--until-idle",
        "3",
        "--heartbeat",
        "0",
        str(tmp_path),
    )
    assert writer.wait(timeout=60) == 0
    out, err = follower.communicate(timeout=60)
    assert follower.returncode == 0, err
    assert out == ""  # a rule-abiding night, both tables closed
    files = sorted(p.name for p in folder.iterdir())
    assert files == ["FR-01.del", "FR-02.del"]
    assert run("check", str(folder)).returncode == 0


def test_simulate_live_keeps_its_pace_and_writes_the_simulated_lines(tmp_path):
    log = tmp_path / "live.del"
    began = time.monotonic()
    done = run(
        "simulate-live",
        str(log),
        "-r",
        "fr-bataille-2007",
        "--tables",
        "2",
        "--rounds",
        "1",
        "--rate",
        "20",
        "--seed",
        "5",
        "--start",
        "2026-11-20T21:00:00+01:00",
    )
    took = time.monotonic() - began
    assert done.returncode == 0, done.stderr
    same = run(
        "simulate",
        "-r",
        "fr-bataille-2007",
        "--tables",
        "2",
        "--rounds",
        "1",
        "--seed",
        "5",
        "--start",
        "2026-11-20T21:00:00+01:00",
    )
    written = log.read_text().splitlines()
    assert written == same.stdout.splitlines()
    assert took >= len(written) / 40 * 0.9  # 20 lines a second at each of the 2 tables


def test_simulate_live_option_writes_what_simulate_live_writes(tmp_path):
    """``audit simulate --live RATE`` is the same writer as ``audit simulate-live --rate RATE``."""
    night = ("-r", "fr-bataille-2007", "--tables", "2", "--rounds", "1", "--seed", "5")
    start = ("--start", "2026-11-20T21:00:00+01:00")
    by_option = run("simulate", "--live", "80", *night, *start, "-o", str(tmp_path / "a.del"))
    by_command = run("simulate-live", str(tmp_path / "b.del"), "--rate", "80", *night, *start)
    assert by_option.returncode == by_command.returncode == 0, by_option.stderr
    written = (tmp_path / "a.del").read_bytes()
    assert written and written == (tmp_path / "b.del").read_bytes()
    nowhere = run("simulate", "--live", "80", *night)
    assert nowhere.returncode == 2 and "--output FILE or --per-table DIR" in nowhere.stderr
    with_anomaly = run(
        "simulate", "--live", "80", *night, "--anomaly", "collusion", "-o", str(tmp_path / "c.del")
    )
    assert with_anomaly.returncode == 2 and "not with --anomaly" in with_anomaly.stderr
    assert not (tmp_path / "c.del").exists()


def test_an_alert_command_that_fails_is_told_and_the_follow_goes_on(tmp_path):
    log = faulty(tmp_path)
    cmd = f'{sys.executable} -c "import sys; sys.stdin.read(); sys.exit(3)"'
    done = run("follow", "--once", "-f", "jsonl", "--alert-command", cmd, str(log))
    objs = [json.loads(line) for line in done.stdout.splitlines()]
    errors = [o for o in objs if o["severity"] == "error"]
    assert done.returncode == 1 and errors
    told = done.stderr.splitlines()
    assert len(told) == len(errors) and all(line.endswith("exited with status 3") for line in told)
    assert all(line.startswith("audit: --alert-command: ") for line in told)


def test_the_statistics_looks_beside_the_state(tmp_path):
    """--state keeps the live statistics' looks in STATE.looks, named by the state's run: gone on
    with after a restart; those of another run are said and started afresh; a looks file that is
    not one is exit 2, one line."""
    state, looks = tmp_path / "s.json", tmp_path / "s.json.looks"
    first = run("follow", "--once", "--state", str(state), "-f", "jsonl", str(NIGHT))
    assert first.returncode in (0, 1) and first.stderr == "", first.stderr
    kept = json.loads(state.read_text())["statistics"]
    assert kept["looks"] == looks.name and looks.stat().st_size > 0
    again = run("follow", "--once", "--state", str(state), "-f", "jsonl", str(NIGHT))
    assert again.stderr == "" and json.loads(state.read_text())["statistics"] == kept
    data = json.loads(state.read_text())
    data["statistics"]["run"] = "another"
    state.write_text(json.dumps(data))
    other = run("follow", "--once", "--state", str(state), "-f", "jsonl", str(NIGHT))
    assert other.returncode in (0, 1)
    assert "not the statistics' looks of this state" in other.stderr, other.stderr
    assert json.loads(state.read_text())["statistics"]["run"] not in ("another", kept["run"])
    for extra in tmp_path.glob("s.json.looks-*"):
        extra.unlink()
    looks.write_bytes(b"not a database, but some bytes that SQLite will refuse" * 100)
    broken = run("follow", "--once", "--state", str(state), str(NIGHT))
    assert broken.returncode == 2 and broken.stderr.count("\n") == 1, broken.stderr
    assert broken.stderr.startswith(f"audit: {looks}: cannot keep the statistics' looks")


def test_a_file_whose_name_is_not_utf8_is_followed_and_named_as_the_report_names_it(tmp_path):
    """A byte of the name that is not UTF-8 is written ``\\xNN`` in the JSON lines, as ``audit
    check`` writes it; the looks of the live statistics keep it too, and a restart with the same
    state writes no finding twice."""
    import os
    import shutil

    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(
        ROOT / "fixtures" / "acceptance" / "three-breaches.del",
        os.fsencode(folder) + b"/nuit-\xfe.del",
    )
    shutil.copy(NIGHT, os.fsencode(folder) + b"/nuit-\xff.del")  # long enough for live looks
    state = tmp_path / "state.json"
    args = (
        "follow",
        "--format",
        "jsonl",
        "--until-idle",
        "0.3",
        "--state",
        str(state),
        str(folder),
    )
    first = run(*args)
    assert "internal error" not in first.stderr, first.stderr
    found = [json.loads(line) for line in first.stdout.splitlines()]
    findings = [o for o in found if o["type"] == "finding"]
    checked = json.loads(run("check", "-f", "json", str(folder)).stdout)["findings"]
    assert len(findings) == len(checked) == 3
    assert (
        {f["path"] for f in findings}
        == {c["path"] for c in checked}
        == {str(folder) + "/nuit-\\xfe.del"}
    )
    again = run(*args)
    assert "internal error" not in again.stderr, again.stderr
    assert not [o for o in map(json.loads, again.stdout.splitlines()) if o["type"] == "finding"]
