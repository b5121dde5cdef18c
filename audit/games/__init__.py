"""The built-in games, one package each, registered as plugins (``audit.registry``).

Each package declares its checks beside the code that raises them and
exposes a ``GAME`` (``audit.engine.game.Game``). They are published under the
``del_audit.games`` entry point group in ``pyproject.toml``; ``BUILTIN`` is the
same list, for a source tree run without the package's metadata.
"""

BUILTIN = ("audit.games.bataille:GAME", "audit.games.chemin_de_fer:GAME")
