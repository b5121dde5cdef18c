"""A virtual environment for the tests that install the project: it sees the dependencies of the
interpreter running the tests, whether that interpreter is a system one or itself a virtual
environment's.

``venv``'s ``system_site_packages`` gives the new environment the site-packages of the *base*
interpreter, which is not where the dependencies are when the tests run in a virtual
environment (as the README's set-up does). Here the new environment gets a ``.pth`` file naming
the running interpreter's own site-packages folders instead. A folder named in a ``.pth`` file
is only put on ``sys.path``: the ``.pth`` files inside it are not run, so an editable install
of the checkout there does not come along, and the new environment's own packages come first.
"""

from __future__ import annotations

import os
import site
import subprocess
import sysconfig
import venv
from pathlib import Path


def _site_folders() -> list[str]:
    folders = [
        sysconfig.get_paths()["purelib"],
        sysconfig.get_paths()["platlib"],
        *site.getsitepackages(),
    ]
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    return [f for f in dict.fromkeys(folders) if os.path.isdir(f)]


def create(where: Path, with_pip: bool = True) -> Path:
    """A new virtual environment at ``where`` (with pip unless told) that sees this interpreter's
    packages; returns its folder of programs (``bin``, or ``Scripts`` on Windows)."""
    venv.EnvBuilder(with_pip=with_pip).create(where)
    bindir = where / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "_outer_site_packages.pth").write_text(
        "".join(f + "\n" for f in _site_folders()), encoding="utf-8"
    )
    return bindir


def environment(bindir: Path) -> dict[str, str]:
    """The environment of a command run in that virtual environment, as if it were activated."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(bindir.parent)
    return env


__all__ = ["create", "environment"]
