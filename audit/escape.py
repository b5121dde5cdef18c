"""Text the auditor did not write, made safe to show on a terminal.

Log lines, file names, overlay titles and configuration keys come from
outside. Shown raw, a control character can move the cursor or recolour the
screen, a bidi control (U+202E, U+2066-2069) can make ``paid 50`` read as
``05 diap``, and a zero-width or line-separator character can hide or split
what an officer reads. Every character Python does not call printable (the
categories Cc, Cf, Zl, Zp, Zs other than the space, Co, Cn) is written as its
escape (``\\x1b``, ``\\u202e``), the way ``repr`` writes it.
"""

from __future__ import annotations


def _escaped(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def for_terminal(text: str) -> str:
    """``text`` with every non-printable character escaped; unchanged (the same object) when all print."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _escaped(char) for char in text)
