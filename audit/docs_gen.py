"""The parts of docs/*.md whose data lives in code or in the rulesets, regenerated so they cannot
drift: each part sits between ``<!-- generated: NAME -->`` and ``<!-- end generated -->`` in its
page, with the hand-written prose around it kept as it is.

``python3 -m audit.docs_gen`` rewrites the parts; ``--check`` exits 1, naming the stale pages,
when a part differs from what the data gives (``tests/test_docs_generated.py`` runs it).
"""

from __future__ import annotations

import re
import sys
import types
import typing
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

from pydantic import BaseModel

from .engine.checks import DECLARED, EVERY_GAME, FORMAT, Check
from .explain import flow, rule_params
from .rulesets import Library, LoadedOverlay, Rule, RulesetError, load_overlay

REGENERATE = "python3 -m audit.docs_gen"

#: the repository's root: the docs are written beside the package of a source checkout
ROOT = Path(__file__).resolve().parent.parent

_BLOCK = re.compile(
    r"(<!-- generated: (?P<name>[a-z-]+) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.S
)

#: a rule's parameters are shown beside it when their flow form is at most this long
_SHORT_PARAMS = 48


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


# -- docs/rulesets.md --------------------------------------------------------------------


def shipped_rulesets(library: Library) -> str:
    """The table of shipped rulesets: file, id, game, how many rules (and how many ship off), and the
    SHA-256 a report names it by (``configuration.rulesets[].sha256``): what a regulator compares a
    report's with, on a machine the audited party controls."""
    out = ["| file | id | game | rules | SHA-256 |", "|---|---|---|---|---|"]
    for rs_id in sorted(library.rulesets, key=lambda i: (i != "del-v1", i)):
        loaded = library.rulesets[rs_id]
        rules = loaded.model.rules
        off = sum(1 for r in rules if not r.enabled)
        count = f"{len(rules)}" + (
            f" ({off} off unless a house overlay enables them)" if off else ""
        )
        out.append(
            f"| `rulesets/{loaded.path.name}` | `{rs_id}` | `{loaded.model.game}` | {count} "
            f"| `{loaded.sha256}` |"
        )
    return "\n".join(out) + "\n"


def _type_text(annotation: object) -> str:
    """A parameter's type in a few words: ``integer``, ``list of sabot, shuffler``."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Literal:
        return " or ".join(f"`{a}`" for a in args)
    if origin in (typing.Union, types.UnionType):
        kept = [a for a in args if a is not type(None)]
        text = " or ".join(_type_text(a) for a in kept)
        return f"{text} or null" if len(kept) < len(args) else text
    if origin is list:
        return f"list of {_type_text(args[0])}"
    if origin is dict:
        return f"mapping of {_type_text(args[0])} to {_type_text(args[1])}"
    names = {int: "integer", bool: "boolean", Decimal: "decimal", str: "text"}
    if annotation in names:
        return names[annotation]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "{" + ", ".join(annotation.model_fields) + "}"
    return str(annotation)


def _bounds(metadata: list) -> str:
    words = []
    for item in metadata:
        for attr, sign in (("gt", ">"), ("ge", "≥"), ("lt", "<"), ("le", "≤")):
            if getattr(item, attr, None) is not None:
                words.append(f"{sign} {getattr(item, attr)}")
        if getattr(item, "min_length", None):
            words.append("not empty")
    return ", ".join(words)


def params_text(check: Check) -> str:
    """The check's parameters as its declaration gives them: name, type, bounds, default."""
    fields = check.params.model_fields
    if not fields:
        return "—"
    parts = []
    for name, field in fields.items():
        words = [_type_text(field.annotation)]
        bounds = _bounds(field.metadata)
        if bounds:
            words.append(bounds)
        if not field.is_required():
            words.append(f"default {flow(field.default)}")
        parts.append(f"`{name}` ({'; '.join(words)})")
    return "; ".join(parts)


def _binding(rule: Rule) -> str:
    """A rule in the checks' table: its id linked to the rule reference, with what differs."""
    notes = []
    params = flow(rule_params(rule))
    if params != "{}":
        notes.append(f"`{params}`" if len(params) <= _SHORT_PARAMS else "parameters in its entry")
    if rule.severity != "error":
        notes.append(rule.severity)
    if not rule.enabled:
        notes.append("off")
    link = f"[`{rule.id}`](rules.md#{rule.id.lower()})"
    return f"{link} ({'; '.join(notes)})" if notes else link


def _scope_title(scope: str) -> str:
    return {FORMAT: "the format (`del-v1`)", EVERY_GAME: "every game"}.get(scope, f"`{scope}`")


def check_bindings(library: Library) -> str:
    """Every declared check: where it applies, its parameters, the shipped rules that bind it."""
    bound: dict[str, list[Rule]] = {}
    for rs_id in sorted(library.rulesets):
        for rule in library.rulesets[rs_id].model.rules:
            bound.setdefault(rule.check, []).append(rule)
    out = ["| check | applies to | params | rules |", "|---|---|---|---|"]
    for name, check in DECLARED.items():
        rules = ", ".join(_binding(r) for r in bound.get(name, [])) or "none shipped"
        out.append(
            f"| `{name}` | {_scope_title(check.scope)} | {_cell(params_text(check))} | {rules} |"
        )
    return "\n".join(out) + "\n"


# -- docs/readings.md --------------------------------------------------------------------


def _reading_entry(rule: Rule) -> list[str]:
    params = flow(rule_params(rule))
    state = "" if rule.enabled else ", off unless a house overlay turns it on"
    facts = f"`{rule.check}`, {rule.severity}{state}" + (
        f"; parameters `{params}`" if params != "{}" else ""
    )
    return [
        f"#### {rule.id}",
        "",
        f"- **Check.** {facts}.",
        f"- **Text** ({_cell(rule.citation.article)}). {_cell(rule.citation.text)}",
        f"- **Reading.** {_cell(rule.reading or '')}",
        f"- **House overlay.** {rule.overlay_may()[0].upper()}{rule.overlay_may()[1:]}.",
        "",
    ]


def readings(library: Library, overlays: list[LoadedOverlay]) -> str:
    """Every ``reading:`` of the rulesets, ruleset by ruleset, then the shipped overlays' own."""
    out: list[str] = []
    for rs_id in sorted(library.rulesets, key=lambda i: (i != "del-v1", i)):
        m = library.rulesets[rs_id].model
        with_reading = [r for r in m.rules if r.reading]
        if not with_reading:
            continue
        out += [f"### `{rs_id}` ({_cell(m.title)})", ""]
        for rule in with_reading:
            out += _reading_entry(rule)
    for overlay in overlays:
        ov = overlay.model
        changes = [(rid, c) for rid, c in ov.rules.items() if c.reading]
        if not changes:
            continue
        out += [f"### The shipped house overlay `{ov.overlay}` (over `{ov.ruleset}`)", ""]
        for rule_id, change in changes:
            sets = {
                k: v
                for k, v in change.model_dump(exclude_none=True).items()
                if k not in ("reading", "enabled")
            }
            out += [f"#### {rule_id}, as read by the house", ""]
            out.append(f"- **Reading (overlay).** {_cell(change.reading or '')}")
            if sets:
                out.append(f"- **The overlay also sets** `{flow(sets)}`.")
            out.append("")
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


# -- docs/report.md ----------------------------------------------------------------------


def report_formats() -> str:
    """The report formats of the reporters' registry, in the order the help lists them."""
    from .reporters import REPORTERS

    out = ["| `--format` | file suffix | what it writes |", "|---|---|---|"]
    for reporter in REPORTERS.values():
        out.append(
            f"| `{reporter.name}` | `.{reporter.extension}` | {_cell(reporter.description)} |"
        )
    return "\n".join(out) + "\n"


# -- the pages ---------------------------------------------------------------------------


def generators(root: Path = ROOT) -> dict[str, dict[str, Callable[[], str]]]:
    """Page (relative to the root) -> part name -> what makes the part's text."""
    library = Library.load(root / "rulesets")
    overlays = [load_overlay(p) for p in sorted((root / "rulesets" / "house").glob("*.yaml"))]
    return {
        "docs/rulesets.md": {
            "rulesets": lambda: shipped_rulesets(library),
            "checks": lambda: check_bindings(library),
        },
        "docs/readings.md": {"readings": lambda: readings(library, overlays)},
        "docs/report.md": {"formats": report_formats},
    }


def regenerate(text: str, parts: dict[str, Callable[[], str]], page: str) -> str:
    """The page with each generated part rewritten; every part must be in it, once."""
    found = [m.group("name") for m in _BLOCK.finditer(text)]
    for name in parts:
        if found.count(name) != 1:
            raise ValueError(f"{page}: needs one '<!-- generated: {name} -->' part")
    unknown = sorted(set(found) - set(parts))
    if unknown:
        raise ValueError(f"{page}: no generator for the part {unknown[0]!r}")
    return _BLOCK.sub(
        lambda m: f"{m.group(1)}\n{parts[m.group('name')]()}\n{m.group(4)}",
        text,
    )


def stale_pages(root: Path | None = None, write: bool = False) -> list[str]:
    """The pages whose generated parts differ from the data (rewritten when ``write``)."""
    root = root or ROOT
    stale = []
    for page, parts in generators(root).items():
        path = root / page
        text = path.read_text(encoding="utf-8")
        new = regenerate(text, parts, page)
        if new != text:
            stale.append(page)
            if write:
                path.write_text(new, encoding="utf-8")
    return stale


def main(argv: list[str]) -> int:
    check = argv == ["--check"]
    if argv and not check:
        print(f"usage: {REGENERATE} [--check]", file=sys.stderr)
        return 2
    try:
        stale = stale_pages(write=not check)
    except (ValueError, OSError, RulesetError) as err:
        print(f"audit.docs_gen: {err}", file=sys.stderr)
        return 2
    for page in stale:
        print(f"{page}: {'out of date; run ' + REGENERATE if check else 'rewritten'}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
