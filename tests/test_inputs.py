"""Inputs as they come in a casino: compressed, in any order, damaged."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest
from in_process import audit as audit_here

ROOT = Path(__file__).resolve().parent.parent
THREE = ROOT / "fixtures" / "acceptance" / "three-breaches.del"


def audit(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """The command line in this process (tests/in_process.py), in the folder ``cwd``."""
    return audit_here(*args, cwd=cwd)


def test_a_gzip_log_is_read_and_its_archive_hashed(tmp_path):
    gz = tmp_path / "night.del.gz"
    gz.write_bytes(gzip.compress(THREE.read_bytes(), mtime=0))
    done = audit("check", "--format", "json", str(gz))
    report = json.loads(done.stdout)
    assert done.returncode == 1 and [f["rule"] for f in report["findings"]] == [
        "FR-LATE-BET",
        "FR-BURN-START",
        "FR-PAY-MAIN",
    ]
    (inp,) = report["inputs"]
    assert (
        inp["sha256"] == hashlib.sha256(gz.read_bytes()).hexdigest()
        and inp["size"] == gz.stat().st_size
    )
    assert report["auditor"]["name"] == "del-audit"


def test_a_truncated_archive_is_audited_up_to_the_damage(tmp_path):
    data = gzip.compress(THREE.read_bytes(), mtime=0)
    gz = tmp_path / "cut.del.gz"
    gz.write_bytes(data[: len(data) // 2])
    done = audit("check", "--format", "json", str(gz))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    report = json.loads(done.stdout)
    last = report["findings"][-1]
    assert last["rule"] == "DEL-SYNTAX" and "damaged or truncated" in last["message"]
    (inp,) = report["inputs"]
    assert sum(inp["accounting"].values()) == inp["lines"] == last["line"]


def test_the_order_of_inputs_does_not_change_the_report(tmp_path):
    a, b = tmp_path / "a.del", tmp_path / "b.del"
    a.write_bytes(THREE.read_bytes())
    b.write_bytes(
        (ROOT / "fixtures" / "rules" / "fr-bataille-2007" / "FR-PAY-MAIN.del").read_bytes()
    )
    one = audit("check", "--format", "json", str(a), str(b))
    two = audit("check", "--format", "json", str(b), str(a), str(a))
    assert one.stdout == two.stdout


def test_every_line_is_accounted_for_on_every_fixture():
    from audit.rulesets import Library
    from audit.run import run_audit

    library = Library.load()
    for path in sorted((ROOT / "fixtures").rglob("*.del")):
        for inp in run_audit(library, [str(path)]).inputs:
            assert sum(inp.accounting.values()) == inp.lines, path.name


def test_empty_file_binary_file_and_folders(tmp_path):
    empty = tmp_path / "empty.del"
    empty.write_bytes(b"")
    done = audit("check", "--format", "json", str(empty))
    assert done.returncode == 0 and json.loads(done.stdout)["inputs"][0]["lines"] == 0
    binary = tmp_path / "photo.del"
    binary.write_bytes(bytes(range(256)) * 64)
    done = audit("check", "--format", "json", str(binary))
    report = json.loads(done.stdout)
    assert done.returncode == 1 and {f["category"] for f in report["findings"]} == {"syntax"}
    (inp,) = report["inputs"]
    assert sum(inp["accounting"].values()) == inp["lines"]
    nothing = tmp_path / "nothing"
    nothing.mkdir()
    done = audit("check", str(nothing))
    assert done.returncode == 2 and "holds no log" in done.stderr and "Traceback" not in done.stderr
    done = audit("check", str(tmp_path / "missing.del"))
    assert done.returncode == 2 and "no such file" in done.stderr


def test_every_path_a_folder_holds_is_read_or_named(tmp_path):
    """A broken link, a FIFO, a socket met while walking a folder, and a folder that cannot be read,
    are each named in one message, and the run exits 2: an audit that left a log out must not pass
    for a whole one (issue 15, item 5). The logs that can be read do not hide them."""
    import os
    import socket

    night = tmp_path / "night"
    (night / "t1").mkdir(parents=True)
    (night / "t1" / "good.del").write_bytes(THREE.read_bytes())
    (night / "gone.del").symlink_to(night / "nowhere.del")
    os.mkfifo(night / "t1" / "pipe.del")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(night / "sock.log"))
        (night / "notes.txt").symlink_to(night / "nowhere.txt")  # not a log's name: not looked at
        done = audit("check", str(night))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout == ""
    (message,) = done.stderr.splitlines()
    assert message.startswith("audit: 3 inputs cannot be read: ")
    for problem in (
        f"{night}/gone.del: broken link",
        f"{night}/t1/pipe.del: a FIFO, not a regular file",
        f"{night}/sock.log: a socket, not a regular file",
    ):
        assert problem in message, message
    assert "good.del" not in message and "notes.txt" not in message


def test_a_broken_link_given_by_name_is_said_so(tmp_path):
    (tmp_path / "gone.del").symlink_to(tmp_path / "nowhere.del")
    done = audit("check", str(tmp_path / "gone.del"), str(tmp_path / "missing.del"))
    assert done.returncode == 2
    assert done.stderr == (
        f"audit: 2 inputs cannot be read: {tmp_path}/gone.del: broken link; "
        f"{tmp_path}/missing.del: no such file or folder\n"
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every folder")
def test_an_unreadable_folder_is_named_not_said_empty(tmp_path):
    night = tmp_path / "night"
    (night / "locked").mkdir(parents=True)
    (night / "locked" / "t1.del").write_bytes(THREE.read_bytes())
    (night / "t2.del").write_bytes(THREE.read_bytes())
    try:
        (night / "locked").chmod(0)
        done = audit("check", str(night))
        assert (
            done.returncode == 2
            and done.stderr == f"audit: {night}/locked: cannot read the folder: Permission denied\n"
        )
        night.chmod(0)
        done = audit("check", str(night))
        assert (
            done.returncode == 2
            and done.stderr == f"audit: {night}: cannot read the folder: Permission denied\n"
        )
    finally:
        night.chmod(0o755)
        (night / "locked").chmod(0o755)


def test_an_unreadable_folder_is_named_whoever_runs_the_audit(tmp_path, monkeypatch):
    """The same as the test above, without relying on permissions (root reads every folder): the
    walk's error handler is given the error a folder that cannot be read gives."""
    import errno

    from audit.stream import inputs

    night = tmp_path / "night"
    (night / "locked").mkdir(parents=True)
    (night / "t2.del").write_bytes(THREE.read_bytes())
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path).endswith("locked"):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    with pytest.raises(inputs.InputError) as err:
        inputs.expand([str(night)])
    assert str(err.value) == f"{night}/locked: cannot read the folder: Permission denied"
