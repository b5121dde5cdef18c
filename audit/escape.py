"""Text the auditor did not write, made safe to show on a terminal.

Log lines, file names, overlay titles and configuration keys come from
outside. Shown raw, a control character can move the cursor or recolour the
screen, a bidi control (U+202E, U+2066-2069) can make ``paid 50`` read as
``05 diap``, and a zero-width or line-separator character can hide or split
what an officer reads. Every character Python does not call printable (the
categories Cc, Cf, Zl, Zp, Zs other than the space, Co, Cn) is written as its
escape (``\\x1b``, ``\\u202e``), the way ``repr`` writes it.

A file name that is not UTF-8 reaches Python with each undecodable byte as a
lone surrogate (U+DC80-U+DCFF, ``os.fsdecode``): such a byte is written
``\\xNN``, the byte itself. The data reports (JSON, SARIF, JUnit, a baseline),
which keep every other character as it is, escape those the same way, since
UTF-8 cannot hold a lone surrogate.
"""

from __future__ import annotations

import re

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_char(char: str) -> str:
    """One character as its escape: ``\\xNN``, ``\\uNNNN`` or ``\\UNNNNNNNN`` (a file name's
    undecodable byte as ``\\xNN``)."""
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def for_terminal(text: str) -> str:
    """``text`` with every non-printable character escaped; unchanged (the same object) when all print."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else escape_char(char) for char in text)


def undecodable_escaped(text: str, backslash: str = "\\") -> str:
    """``text`` with each lone surrogate escaped (a file name's byte that is not UTF-8 as ``\\xNN``),
    so that it encodes as UTF-8; ``backslash`` is how the destination writes a backslash
    (``\\\\`` inside a JSON string)."""
    if text.isascii():
        return text
    return _LONE_SURROGATE.sub(lambda m: escape_char(m.group()).replace("\\", backslash), text)


def lines_for_terminal(text: str) -> str:
    """A text of several lines, each escaped with ``for_terminal``; its line feeds kept."""
    return "\n".join(map(for_terminal, text.split("\n")))
