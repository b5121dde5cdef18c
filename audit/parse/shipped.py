"""The grammar compiled ahead, shipped inside the package (``grammars/del.compiled.json``).

Compiling the grammar takes about 0.05 s a run; loading it compiled, about 0.005 s. It is kept
where the auditor is installed, never in a folder of the machine's user: a compiled grammar kept
there (Lark's own cache is a pickle) is what the audited party could change on its own machine,
to run code inside the audit or have lines read otherwise, and no report would show it
(docs/trust.md). The file is plain data (JSON); it is used only when it was made from the very
grammar text of this run (the built-in games: a game plugin's grammar is compiled) and by this
Lark, else the grammar is compiled as before. ``python -m audit.compile_grammar`` writes it again;
``--check`` says whether it is current, as a test does.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from lark import Lark
from lark import __version__ as lark_version
from lark.grammar import Rule
from lark.lexer import TerminalDef

from ..resources import data_dir

#: the layout of the file (a reader of another layout compiles)
FORMAT = 2


def shipped_path() -> Path:
    return data_dir("grammars") / "del.compiled.json"


def fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: how JSON is told a dictionary whose keys are not all texts, and a tuple (Lark's parse table is
#: keyed by state numbers, and some of its entries are tuples): the one key of an object
PAIRS, TUPLE = "\u0000pairs", "\u0000tuple"


def _encoded(value: Any) -> Any:
    """``value`` as JSON can hold it, its integer keys and tuples tagged (``_decoded`` undoes it)."""
    if isinstance(value, dict):
        if all(isinstance(key, str) and not key.startswith("\u0000") for key in value):
            return {key: _encoded(item) for key, item in value.items()}
        return {PAIRS: [[_encoded(key), _encoded(item)] for key, item in value.items()]}
    if isinstance(value, tuple):
        return {TUPLE: [_encoded(item) for item in value]}
    if isinstance(value, list):
        return [_encoded(item) for item in value]
    return value


def _decoded(obj: dict) -> Any:
    """A JSON object as ``_encoded`` wrote it (``json.loads``'s object hook)."""
    if len(obj) == 1:
        if PAIRS in obj:
            return {key: item for key, item in obj[PAIRS]}
        if TUPLE in obj:
            return tuple(obj[TUPLE])
    return obj


def compiled_data(parser: Lark, text: str) -> dict[str, Any]:
    """What the file holds for a parser compiled from ``text``: Lark's own serialized form of it,
    without the transformer (given at load), and what it was made from."""
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    data["options"] = {k: v for k, v in data["options"].items() if k != "transformer"}
    return {
        "format": FORMAT,
        "lark": lark_version,
        "grammar_sha256": fingerprint(text),
        "parser": _encoded({"data": data, "memo": memo}),
    }


def load(text: str, **options: Any) -> Lark | None:
    """The shipped parser of ``text`` with ``options`` (the transformer), or None: no file, or one
    made from another grammar text or by another Lark."""
    try:
        kept = json.loads(shipped_path().read_text(encoding="utf-8"), object_hook=_decoded)
        usable = (
            kept.get("format") == FORMAT
            and kept.get("lark") == lark_version
            and kept.get("grammar_sha256") == fingerprint(text)
        )
    except (OSError, ValueError, AttributeError):
        return None
    if not usable:
        return None
    try:
        return Lark.__new__(Lark)._load(kept["parser"], **options)
    except Exception:  # a file of ours damaged: the grammar is compiled, as without it
        return None


def shipped_text(parser: Lark, text: str) -> str:
    """The file's text for a parser compiled from ``text``."""
    return json.dumps(compiled_data(parser, text), separators=(",", ":")) + "\n"
