"""Start-up loads what the command needs, not what another command needs.

Every run pays for each module it imports (a nightly job, and each of the hundreds of children the
tests start): a JSON audit must not load the live page's server (asyncio, ssl), the text report's
drawing (rich), the history store (SQLAlchemy, Alembic) or the optional extras.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NIGHT = ROOT / "fixtures" / "nights" / "example-night.del"

#: run a command in a fresh interpreter and print the top-level packages it imported
PROBE = (
    "import json, sys\n"
    "from audit.cli import run\n"
    "code = run(sys.argv[1:])\n"
    "sys.stdout.flush()\n"
    "print(json.dumps([code, sorted({m.split('.')[0] for m in sys.modules})]), file=sys.stderr)\n"
)

NOT_FOR_A_JSON_AUDIT = {
    "asyncio",
    "ssl",
    "rich",
    "sqlalchemy",
    "alembic",
    "matplotlib",
    "dask",
    "distributed",
    "watchfiles",
}


def imported(*args: str, cwd: Path) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )
    code, modules = json.loads(done.stderr.strip().splitlines()[-1])
    assert code == 0, done.stderr
    return set(modules)


def test_a_json_audit_loads_neither_the_live_server_nor_the_drawing_nor_the_store(tmp_path):
    modules = imported(
        "check", "-f", "json", "-o", str(tmp_path / "r.json"), str(NIGHT), cwd=tmp_path
    )
    assert "audit" in modules and "lark" in modules  # the probe sees the audit's own imports
    assert not modules & NOT_FOR_A_JSON_AUDIT, sorted(modules & NOT_FOR_A_JSON_AUDIT)


def test_the_text_report_loads_rich_when_it_draws(tmp_path):
    modules = imported("check", "--no-progress", str(NIGHT), cwd=tmp_path)
    assert "rich" in modules
    assert not modules & {"asyncio", "ssl", "sqlalchemy", "alembic"}
