import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # the project root: fuzz/ helpers


import compileall
import tempfile

import pytest

ROOT = Path(__file__).resolve().parent.parent


def pytest_sessionstart(session):
    """The package byte-compiled once, before any test, as an installed one is: the tests start
    hundreds of ``python -m audit`` children, and with PYTHONDONTWRITEBYTECODE set (or before the
    first child wrote them) each would compile every module again (a fifth of its start-up)."""
    if not hasattr(session.config, "workerinput"):  # the controller (or the only process)
        compileall.compile_dir(ROOT / "audit", quiet=2)  # (a read-only checkout: left as it is)


@pytest.fixture
def temporary_folder(tmp_path, monkeypatch):
    """Where this test's temporary files go (spill folders among them), checked empty at the end."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder
    assert list(folder.iterdir()) == []
