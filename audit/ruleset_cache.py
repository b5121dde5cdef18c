"""The YAML data of ruleset files read before, kept between runs in the cache folder
(``resources.cache_dir``, beside the compiled grammar): reading and checking the YAML of the
shipped rulesets took about 0.013 s of each start-up, loading the kept data about 0.001 s.

Only the data of a file that was read whole and validated is kept, under a key its caller
makes of the file's bytes (their SHA-256) and of everything else the reading depends on.
The rulesets are validated again at every run. The data is unpickled with nothing but the
types YAML's safe loader makes, so a file put in the cache folder cannot run code; a file
that is damaged, or kept under another key, is a miss, and the YAML is read again."""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import stat
import tempfile
from pathlib import Path
from typing import Any

from .resources import cache_dir

#: the classes a safe YAML load makes beyond the built-in types pickle writes without naming them
_YAML_CLASSES = {
    ("datetime", "date"),
    ("datetime", "datetime"),
    ("datetime", "timedelta"),
    ("datetime", "timezone"),
}


class _YamlDataUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _YAML_CLASSES:
            raise pickle.UnpicklingError(f"{module}.{name} is not YAML data")
        return super().find_class(module, name)


def _file(key: str) -> Path | None:
    where = cache_dir()
    if where is None:
        return None
    return where / f"ruleset-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:32]}.pickle"


def recall(key: str) -> Any | None:
    """The data kept under ``key``, or None."""
    path = _file(key)
    if path is None:
        return None
    try:
        # not waiting to open a FIFO put in its place (for a writer that never comes)
        with open(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as stream:
            if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                return None
            kept_key, data = _YamlDataUnpickler(stream).load()
    except Exception:  # missing, unreadable, damaged or not ours: read the YAML again
        return None
    return data if kept_key == key else None


def keep(key: str, data: Any) -> None:
    """Keep ``data`` under ``key`` (written whole or not at all; a folder that refuses: not kept)."""
    path = _file(key)
    if path is None:
        return
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".ruleset-", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as out:
            pickle.dump((key, data), out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, path)
    except (OSError, pickle.PicklingError):
        with contextlib.suppress(OSError):
            os.unlink(temporary)
