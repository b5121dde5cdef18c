"""audit: replays Dealer Event Logs against machine-readable casino regulations."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("del-audit")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"
