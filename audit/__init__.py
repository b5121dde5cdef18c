"""audit: replays Dealer Event Logs against machine-readable casino regulations."""

#: the package's version, read by the build too (pyproject.toml: ``[tool.hatch.version]``), so that
#: start-up does not import ``importlib.metadata`` and search the installed distributions for it
__version__ = "0.1.0"
