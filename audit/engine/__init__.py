"""The game-neutral engine: check declarations, the flagger, table, shoe, limits, statistics, the replay.

No game is named here: a table hands its game's events to the round and
table extension of its ``Game`` (``audit.registry``).
"""
