"""Limits on the shape of the YAML, TOML and JSON files the auditor reads, checked before they are built.

PyYAML's C composer, ``tomllib`` and ``json`` build nested values by recursion:
a file of 100,000 ``[`` crashes the process (the C composer) or raises
``RecursionError`` deep inside the library, with no file or line. So the
depth is measured first, without recursion (YAML from the parser's event
stream, TOML and JSON by a scan that skips strings and comments), and a file
nested deeper than ``MAX_DEPTH`` is refused with its line. YAML mappings
are also checked for duplicate keys: YAML says keys are unique, yet PyYAML
keeps the last one silently, so an overlay could switch a rule on and off
again without anyone seeing it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import yaml

#: deeper than any ruleset, overlay, configuration or baseline needs (they use 6 levels at most)
MAX_DEPTH = 64

#: the parser of safe_load, in C when PyYAML was built with libyaml
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class ShapeProblem(Exception):
    """What is wrong and the 1-based line where it shows."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


def _too_deep(line: int) -> ShapeProblem:
    return ShapeProblem(line, f"nested more than {MAX_DEPTH} levels deep; refused")


def check_yaml_depth(text: str) -> None:
    """Raise ShapeProblem if a collection opens more than MAX_DEPTH levels deep (events only, nothing built).

    Syntax errors are left for the loader, which reports them with its own words."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_SafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    assert event.start_mark is not None  # the parser marks every event
                    raise _too_deep(event.start_mark.line + 1)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError as err:
        # libyaml 0.2.5 and later (PyYAML's wheels from 6.0.4) stop at 1,000 levels themselves,
        # while scanning ahead, before the parser hands over the events that go past our limit
        mark = getattr(err, "problem_mark", None)
        if "maximum nesting depth" in str(err) and mark is not None:
            raise _too_deep(mark.line + 1) from None
        return


def check_yaml_keys(node: yaml.Node | None) -> None:
    """Raise ShapeProblem at the second occurrence of a key in any mapping (iterative walk)."""
    stack = [node] if node is not None else []
    seen_nodes: set[int] = set()  # an alias is one node reached twice: walk it once
    while stack:
        current = stack.pop()
        if id(current) in seen_nodes:
            continue
        seen_nodes.add(id(current))
        if isinstance(current, yaml.MappingNode):
            keys: set[tuple[str, str]] = set()
            for key, value in current.value:
                if isinstance(key, yaml.ScalarNode):
                    ident = (key.tag, key.value)
                    if ident in keys:
                        raise ShapeProblem(key.start_mark.line + 1, f"duplicate key {key.value!r}")
                    keys.add(ident)
                stack.append(key)
                stack.append(value)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)


def check_depth(text: str, syntax: Literal["toml", "json"]) -> None:
    """Raise ShapeProblem if ``[`` and ``{`` nest more than MAX_DEPTH deep outside strings and comments.

    A scan, not a parser: it only has to agree with TOML and JSON on what is a string
    (and, for TOML, a comment), so that brackets inside them are not counted."""
    depth = 0
    line = 1
    i = 0
    n = len(text)
    toml = syntax == "toml"
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        elif c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise _too_deep(line)
        elif c in "]}":
            depth = max(depth - 1, 0)
        elif c == "#" and toml:
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif c == '"' or (c == "'" and toml):
            triple = toml and text.startswith(c * 3, i)
            close = c * 3 if triple else c
            j = i + len(close)
            while j < n:
                if text[j] == "\\" and c == '"':
                    j += 2
                    continue
                if text.startswith(close, j):
                    break
                if text[j] == "\n" and not triple:
                    break  # an unterminated string: the parser will say so
                j += 1
            line += text.count("\n", i, j)
            i = j + len(close)
            continue
        i += 1
