"""``audit rules``: every rule of the loaded rulesets, as a short text or as the Markdown rule reference."""

from __future__ import annotations

import io

from .escape import for_terminal
from .rulesets import Library

#: the listing's formats: the first is the default
LISTING_FORMATS = ("text", "markdown")


def rules_listing(library: Library, ruleset: str | None, fmt: str) -> str:
    """The rules of one ruleset (all if None, which must be loaded) in a format of ``LISTING_FORMATS``."""
    if fmt == "markdown":
        from .rules_markdown import rules_markdown

        if ruleset is not None:
            library = Library({ruleset: library.rulesets[ruleset]})
        return rules_markdown(library)
    return rules_text(library, sorted(library.rulesets) if ruleset is None else [ruleset])


def rules_text(library: Library, ids: list[str]) -> str:
    """Each rule with its category, severity, whether it is off, its message and its citation."""
    from rich.console import Console  # rich is imported only where it draws (start-up time)
    from rich.markup import escape

    def safe(text: str) -> str:  # a rulesets folder or an overlay is text from outside
        return escape(for_terminal(text))

    console = Console(
        record=True, file=io.StringIO(), highlight=False, soft_wrap=True, width=120, emoji=False
    )
    for rid in ids:
        loaded = library.rulesets[rid]
        m = loaded.model
        console.print(f"{safe(m.id)} — {safe(m.title)} ({len(m.rules)} rules)")
        if loaded.overlay is not None:
            console.print(f"  house rules: {safe(loaded.overlay.model.overlay)}")
        for r in m.rules:
            state = "" if r.enabled else " (off)"
            console.print(f"  {safe(r.id)}  {r.category}  {r.severity}{state}")
            console.print(f"      {safe(r.message)}")
            console.print(f"      {safe(r.citation_text)}")
        console.print()
    return console.export_text()
