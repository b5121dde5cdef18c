"""Whether a regex treats every ASCII digit alike, proved on the regex's parse tree.

This reads CPython's private ``re._parser``; anything it does not recognise (or a Python without
that module) counts as "not blind", and the fast parser then uses the full regex: it is never wrong,
only slower.
"""

from __future__ import annotations

import re


def digit_blind(pattern: str) -> bool:
    """Whether a regex gives the same verdict on any two texts that differ only in which ASCII
    digit stands at each place: it has no literal digit and no back-reference, and each of its
    character sets holds all ten digits or none (``LineParser._stamp_ok`` relies on it).
    Anything this does not recognise counts as not blind, and the full regex is used."""
    try:
        import re._parser as sre  # the parser behind ``re.compile``
        from re._constants import (
            ANY,
            ASSERT,
            ASSERT_NOT,
            AT,
            BRANCH,
            CATEGORY,
            IN,
            LITERAL,
            MAX_REPEAT,
            MIN_REPEAT,
            NEGATE,
            NOT_LITERAL,
            POSSESSIVE_REPEAT,
            RANGE,
            SUBPATTERN,
        )

        tree = sre.parse(pattern)
    except (ImportError, re.error):
        return False
    digits = frozenset(range(0x30, 0x3A))

    def set_blind(items) -> bool:
        held = set()
        for op, av in items:
            if op is NEGATE:
                continue
            if op is LITERAL:
                held.add(av)
            elif op is RANGE:
                held.update(d for d in digits if av[0] <= d <= av[1])
            elif op is CATEGORY:
                return False  # \d, \w and the like: not worth proving, the regex is used
            else:
                return False
        return not held & digits or digits <= held

    def blind(seq) -> bool:
        for op, av in seq:
            if op in (LITERAL, NOT_LITERAL):
                if av in digits:
                    return False
            elif op is IN:
                if not set_blind(av):
                    return False
            elif op in (MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT):
                if not blind(av[2]):
                    return False
            elif op is SUBPATTERN:
                if not blind(av[3]):
                    return False
            elif op is BRANCH:
                if not all(blind(b) for b in av[1]):
                    return False
            elif op in (ASSERT, ASSERT_NOT):
                if not blind(av[1]):
                    return False
            elif op not in (AT, ANY):
                return False
        return True

    return blind(tree)
