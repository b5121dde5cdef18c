import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # the project root: fuzz/ helpers


import tempfile

import pytest


@pytest.fixture
def temporary_folder(tmp_path, monkeypatch):
    """Where this test's temporary files go (spill folders among them), checked empty at the end."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder
    assert list(folder.iterdir()) == []
