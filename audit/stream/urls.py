"""Inputs named by URL (``s3://``, ``gs://``, ``file://``...), where a regulator keeps a year of
logs: listed, sized and opened through ``fsspec``, an optional dependency (the ``cluster``
extra), imported only when a URL is given. Local paths never come here."""

from __future__ import annotations

from typing import Any, BinaryIO

NEEDS_FSSPEC = "reading a URL needs fsspec: pip install 'del-audit[cluster]'"


def is_url(path: str) -> bool:
    """Whether an input is a URL rather than a local path (``scheme://...``)."""
    return "://" in path


class UrlError(Exception):
    """A URL that cannot be listed or read (``inputs`` reports it as an unreadable input)."""


def _filesystem(url: str) -> tuple[Any, str]:
    """The fsspec filesystem of a URL and the path inside it; a clear message if none can read it
    (no fsspec; ``s3://`` without ``s3fs``, ``gs://`` without ``gcsfs``; an unknown scheme)."""
    try:
        import fsspec
    except ImportError:
        raise UrlError(f"{url}: {NEEDS_FSSPEC}") from None
    try:
        return fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as err:
        raise UrlError(f"{url}: cannot read: {err}") from None


def expand_url(url: str, suffixes: tuple[str, ...]) -> list[str]:
    """A file URL as given; a folder URL walked for the logs it holds (names ending in one of
    ``suffixes``), as URLs, sorted."""
    fs, root = _filesystem(url)
    try:
        if fs.isdir(root):
            found = sorted(p for p in fs.find(root) if p.endswith(suffixes))
            if not found:
                raise UrlError(f"{url}: folder holds no log (*.del, *.log, *.del.gz, *.log.gz)")
            return [fs.unstrip_protocol(p) for p in found]
        if fs.isfile(root):
            return [url]
    except OSError as err:
        raise UrlError(f"{url}: cannot read: {err.strerror or err}") from None
    raise UrlError(f"{url}: no such file or folder")


def url_size(url: str) -> int:
    """Bytes stored (for a progress bar; a folder's listing has usually cached it)."""
    fs, root = _filesystem(url)
    return int(fs.size(root) or 0)


def open_url(url: str) -> BinaryIO:
    """The stored bytes (a ``.gz`` is not decompressed here: the audit hashes the archive)."""
    fs, root = _filesystem(url)
    return fs.open(root, "rb")
