"""The history of nights: ``audit check --store`` records each audited input, ``audit history``
queries them (docs/history.md).

``store`` names and opens a store (SQLite or PostgreSQL), ``schema`` holds its tables and
``migrations`` their versions (``migrate`` applies them), ``gaming_day`` dates an input,
``recording`` writes a run, ``views`` and ``compare`` read the store back, ``formats``
writes a view, ``cli`` is the ``audit history`` command.
"""
