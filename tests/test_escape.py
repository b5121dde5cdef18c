"""Text from outside is escaped before it reaches a terminal (issue 15, item 12)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit.escape import for_terminal

HOSTILE = ["\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200b", "\u200d", "\u2060", "\ufeff",
           "\u2028", "\u2029", "\x1b", "\x07", "\r", "\n", "\t", "\x7f", "\x85", "\xa0"]


@pytest.mark.parametrize("char", HOSTILE)
def test_hostile_characters_are_written_as_escapes(char):
    shown = for_terminal(f"paid{char}50")
    assert char not in shown
    assert shown == "paid" + char.encode("unicode_escape").decode("ascii").replace("\\t", "\\x09")\
        .replace("\\n", "\\x0a").replace("\\r", "\\x0d") + "50"


def test_printable_text_is_left_alone():
    text = "Casino de Monte-Carlo — « la mise » 50,00 € seat=3"
    assert for_terminal(text) is text


@given(st.text())
def test_nothing_unprintable_is_left_and_printable_text_survives(text):
    shown = for_terminal(text)
    assert shown.isprintable()
    kept = [c for c in text if c.isprintable()]
    assert all(c in shown for c in kept)
    assert all(unicodedata.category(c) not in ("Cc", "Cf", "Zl", "Zp") for c in shown)
