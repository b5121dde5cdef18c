"""``python -m audit.compile_grammar [--check]``: the grammar compiled ahead, written again into
``grammars/del.compiled.json`` (``audit.parse.shipped``), or checked to be of today's grammar text
and Lark (exit 1 if not: the audit would then compile the grammar at every run).

Lark numbers the parser's states in an order that changes from one compilation to the next, so
the file is checked by what it was made from, not byte for byte; a test checks that the parser
it holds reads every line as the grammar compiled anew does."""

from __future__ import annotations

import json
import sys

from .parse.grammar import compile_text, grammar_text
from .parse.shipped import FORMAT, fingerprint, lark_version, shipped_path, shipped_text

REGENERATE = "python -m audit.compile_grammar"


def current() -> bool:
    """Whether the shipped file was made from today's grammar text, by this Lark, in this layout."""
    try:
        kept = json.loads(shipped_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(kept, dict) and (
        kept.get("format"),
        kept.get("lark"),
        kept.get("grammar_sha256"),
    ) == (FORMAT, lark_version, fingerprint(grammar_text()))


def main(argv: list[str]) -> int:
    check = argv == ["--check"]
    if argv and not check:
        print(f"usage: {REGENERATE} [--check]", file=sys.stderr)
        return 2
    path = shipped_path()
    if check:
        if not current():
            print(f"{path}: out of date; run {REGENERATE}")
            return 1
        return 0
    text = grammar_text()
    path.write_text(shipped_text(compile_text(text), text), encoding="utf-8")
    print(f"{path}: written")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
