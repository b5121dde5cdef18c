"""``audit follow``: the logs audited as the shoe readers and dealer terminals write them.

The lines of each followed file go, as soon as their line end is written, through the same
replay as ``audit check`` (``audit.stream.replay.FileReplay``): a finding is reported when the
line that shows it has been read, one that needs a round's end when the round ends, and the
end-of-log findings (a round, a shoe or a table left open) when the file is known complete.

Where things are: following the files (growth, rotation, truncation, new files in a folder) in
``tail``; the restart state (how far each file was read, what was reported) in ``state``; the
output (text, JSON lines, the alert command) in ``emit``; the command line in ``cli``; a night
written at a live pace (``audit simulate-live``) in ``live_writer``.
"""
