"""``python -m audit.simulate``: the command line's ``audit simulate``, the same command with the
same options and defaults (``audit simulate --help``)."""

import sys

from audit.__main__ import main

if __name__ == "__main__":
    main(["simulate", *sys.argv[1:]])
