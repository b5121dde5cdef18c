"""The grammar's STRING terminal: linear in memory, and the same language as the plain alternation."""

from __future__ import annotations

import re
import tracemalloc

from hypothesis import given, settings
from hypothesis import strategies as st

from audit.parse import parse_line
from audit.parse.grammar import terminal_regex as _terminal_regex

#: the plain pattern the grammar's unrolled one replaces
PLAIN = re.compile(r'"([^"\\]|\\["\\])*"')

_pieces = st.lists(
    st.sampled_from(["a", " ", '"', "\\", '\\"', "\\\\", "é", "\t", 'x"y', "\\n"]), max_size=12
)


@settings(max_examples=600, deadline=None)
@given(_pieces)
def test_the_unrolled_string_matches_what_the_plain_pattern_matches(pieces):
    text = "".join(pieces)
    unrolled = _terminal_regex("STRING")
    for candidate in (text, f'"{text}"', f'"{text}'):
        assert bool(unrolled.fullmatch(candidate)) == bool(PLAIN.fullmatch(candidate)), candidate
        plain_prefix = PLAIN.match(candidate)
        unrolled_prefix = unrolled.match(candidate)
        assert (plain_prefix and plain_prefix.group()) == (
            unrolled_prefix and unrolled_prefix.group()
        )


def test_a_long_note_costs_memory_of_its_own_size_only():
    """A 2 MB text once took 190-400 bytes of the regex engine's memory per byte."""
    body = "a" * 2_000_000
    line = f'2026-11-20T21:00:00+01:00 T1 NOTE "{body}\\"end"'
    tracemalloc.start()
    try:
        event = parse_line(line, 1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert event.text == body + '"end'
    assert peak < 12 * len(line), peak
