"""Rulesets and house overlays: YAML data validated by pydantic.

A ruleset encodes one regulation: each rule is data (id, check, category,
severity, parameters, citation), in the manner of semgrep's rule files. A
house overlay changes what a text leaves to the establishment. Anything
malformed stops the audit with a ``RulesetError`` naming file, line and key.

Whose each rule is, and which way each of its parameters may move, is data
too: a rule's ``authority`` (``regulation``, the default, or ``house``) and,
for a regulation rule, its ``overlay`` map (parameter -> direction). An
overlay may turn a house rule on and set its parameters, tighten a
regulation rule (severity up, a parameter moved the declared way, a rule off
by default turned on) and set a parameter declared ``house``; anything else
it tries on a regulation rule (turn it off, lower its severity, loosen or
change a parameter) is refused, by ``apply_overlay``.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
from dataclasses import dataclass
from dataclasses import field as dc_field
from datetime import time
from decimal import Decimal
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from . import bounded, nesting
from .engine.checks import DECLARED, Check, P, Params
from .findings import Category, Severity
from .registry import GAMES, checks_for
from .resources import rulesets_dir

MAX_YAML_BYTES = 1_000_000
MAX_YAML_NODES = 50_000


class RulesetError(Exception):
    """A ruleset or overlay that cannot be used; the message says where and why."""


class LocatedError(ValueError):
    """A model's own check that knows the key at fault (``loc``), so the message gives its line."""

    def __init__(self, loc: tuple[Any, ...], message: str):
        super().__init__(message)
        self.loc = loc


#: a rule id: upper-case words joined by ``-``
RULE_ID = r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)*$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Citation(_Strict):
    #: where in the regulation, e.g. "art. 55-19, al. 5"
    article: str = Field(min_length=1)
    #: the sentence enforced, quoted in the regulation's language
    text: str = Field(min_length=1)


#: severities from the mildest: an overlay may move a regulation rule's only to the right
SEVERITY_ORDER: tuple[Severity, ...] = ("info", "warning", "error")

#: how an overlay may change a regulation rule's parameter (a rule's ``overlay`` map): a number
#: only up (raise) or only down (lower), a list only lose items (narrow) or only gain them
#: (widen), or anything the check accepts (house: the text leaves the choice to the
#: establishment). A list of values instead is a ladder from the loosest to the strictest: the
#: overlay may only move up it. A parameter the map does not name is fixed.
DIRECTIONS = ("raise", "lower", "narrow", "widen", "house")


class Rule(_Strict):
    id: str = Field(pattern=RULE_ID)
    #: the ids the rule had before it was renamed: baselines, selections, overlays and
    #: ``audit explain`` that name one still mean this rule; findings carry ``id``
    aliases: list[Annotated[str, Field(pattern=RULE_ID)]] = Field(default_factory=list)
    check: str
    category: Category
    severity: Severity
    #: what the rule requires, in plain words
    message: str = Field(min_length=1)
    citation: Citation
    params: dict[str, Any] = Field(default_factory=dict)
    enabled: bool = True
    #: the reading chosen where the text is silent or ambiguous
    reading: str | None = None
    #: whose rule: the regulation's (an overlay may only tighten it) or the house's (one the text
    #: lets the house's own rules add: off unless an overlay turns it on and sets its parameters)
    authority: Literal["regulation", "house"] = "regulation"
    #: a regulation rule's parameters an overlay may change, each with its direction (DIRECTIONS,
    #: or a ladder of values from the loosest to the strictest); any other parameter is fixed
    overlay: dict[str, Any] = Field(default_factory=dict)

    _settings: Params = PrivateAttr()

    @field_validator("check")
    @classmethod
    def _declared(cls, name: str) -> str:
        if name not in DECLARED:
            close = difflib.get_close_matches(name, DECLARED, n=1)
            hint = (
                f"; did you mean {close[0]}?"
                if close
                else "; `audit rules` lists the rules that use each check"
            )
            raise ValueError(f"unknown check {name!r}{hint}")
        return name

    @model_validator(mode="after")
    def _check_params(self) -> Rule:
        try:
            self._settings = DECLARED[self.check].params.model_validate(self.params)
        except ValidationError as err:
            first = err.errors()[0]
            key = ".".join(str(p) for p in first["loc"])
            msg = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
            raise ValueError(f"params.{key}: {msg}" if key else f"params: {msg}") from None
        self._check_directions()
        return self

    def _check_directions(self) -> None:
        """Each declared direction names a parameter of the check and fits its value."""
        fields = DECLARED[self.check].params.model_fields
        if self.overlay and self.authority == "house":
            raise ValueError(
                "overlay: a house rule's parameters are all the house's; it declares no directions"
            )
        for key, how in self.overlay.items():
            if key not in fields:
                known = (
                    f"its parameters are {', '.join(fields)}"
                    if fields
                    else "it takes no parameters"
                )
                raise ValueError(
                    f"overlay.{key}: check {self.check} has no parameter {key!r}; {known}"
                )
            value = getattr(self._settings, key)
            if isinstance(how, list):
                steps = self.ladder(key)
                if len(steps) < 2 or len(set(map(repr, steps))) != len(steps):
                    raise ValueError(
                        f"overlay.{key}: a ladder lists at least two different values, "
                        "from the loosest to the strictest"
                    )
                if value not in steps:
                    raise ValueError(
                        f"overlay.{key}: the rule's own value {value!r} is not on its ladder"
                    )
            elif how in ("raise", "lower"):
                if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
                    raise ValueError(f"overlay.{key}: {how} needs a number; {key} is {value!r}")
            elif how in ("narrow", "widen"):
                if not isinstance(value, list) or not all(
                    isinstance(v, (str, int, Decimal)) for v in value
                ):
                    raise ValueError(
                        f"overlay.{key}: {how} needs a list of plain values; {key} is {value!r}"
                    )
            elif how != "house":
                raise ValueError(
                    f"overlay.{key}: unknown direction {how!r}; one of {', '.join(DIRECTIONS)}, "
                    "or a list of values from the loosest to the strictest"
                )

    def overlay_may(self) -> str:
        """What a house overlay may do to this rule, in a few words (``audit explain``, docs/rules.md)."""
        if self.authority == "house":
            return "a house rule: a house overlay turns it on and sets its parameters"
        may = ["raise its severity"] + ([] if self.enabled else ["turn it on"])
        for key, how in self.overlay.items():
            if isinstance(how, list):
                may.append(f"move {key} towards {_show(how[-1])}")
            else:
                may.append(
                    {
                        "raise": f"raise {key}",
                        "lower": f"lower {key}",
                        "narrow": f"narrow {key}",
                        "widen": f"widen {key}",
                        "house": f"set {key}",
                    }[how]
                )
        fixed = [k for k in DECLARED[self.check].params.model_fields if k not in self.overlay]
        tail = f"; {', '.join(fixed)} fixed" if fixed else ""
        return f"the regulation's: a house overlay may only {', '.join(may)}{tail}"

    def ladder(self, key: str) -> list[Any]:
        """The values of a parameter declared as a ladder, loosest first, as the check reads them."""
        model = DECLARED[self.check].params
        out = []
        for raw in self.overlay[key]:
            try:
                out.append(getattr(model.model_validate({**self.params, key: raw}), key))
            except ValidationError:
                raise ValueError(f"overlay.{key}: {raw!r} is not a value {key} accepts") from None
        return out

    @property
    def settings(self) -> Params:
        """The parameters, validated by the check's declared model."""
        return self._settings

    @property
    def citation_text(self) -> str:
        return f"{self.citation.article}: {self.citation.text}"


class Regulation(_Strict):
    name: str
    #: a few words that name it beside an article in a report (``Monaco AM 2006-369``)
    short: str | None = Field(default=None, min_length=1)
    source: list[str] = Field(min_length=1)


class Ruleset(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.-]*$")
    #: a registered game (``audit.registry``), or ``any`` (the format's rules)
    game: str
    title: str
    regulation: Regulation
    rules: list[Rule]

    @model_validator(mode="after")
    def _unique(self) -> Ruleset:
        seen_ids: set[str] = set()
        seen_checks: dict[str, str] = {}
        for rule in self.rules:
            if rule.id in seen_ids:
                raise ValueError(f"rule id {rule.id} appears twice")
            seen_ids.add(rule.id)
            if rule.check in seen_checks:
                raise ValueError(
                    f"check {rule.check} is used by both {seen_checks[rule.check]} and {rule.id}"
                )
            seen_checks[rule.check] = rule.id
        self._unique_aliases()
        return self

    def _unique_aliases(self) -> None:
        """An alias names one rule only: never a rule's id (its own included), nor another alias."""
        ids = {rule.id for rule in self.rules}
        aliased: dict[str, str] = {}
        for i, rule in enumerate(self.rules):
            for j, alias in enumerate(rule.aliases):
                clash = alias_clash(alias, rule.id, ids, aliased)
                if clash:
                    raise LocatedError(("rules", i, "aliases", j), clash)
                aliased[alias] = rule.id

    def aliases(self) -> dict[str, str]:
        """Each former id -> the id of the rule that has it now."""
        return {alias: rule.id for rule in self.rules for alias in rule.aliases}


def alias_clash(alias: str, rule_id: str, ids: set[str], aliased: dict[str, str]) -> str | None:
    """Why ``alias`` of ``rule_id`` cannot be (ids and aliases already taken), or None."""
    if alias == rule_id:
        return f"alias {alias} is the rule's own id"
    if alias in ids:
        return f"alias {alias} of {rule_id} is the id of another rule"
    if alias in aliased:
        return f"alias {alias} of {rule_id} is already an alias of {aliased[alias]}"
    return None


class RuleOverride(_Strict):
    enabled: bool | None = None
    severity: Severity | None = None
    params: dict[str, Any] | None = None
    reading: str | None = None


class Overlay(_Strict):
    overlay: str = Field(pattern=r"^[a-z0-9][a-z0-9.-]*$")
    ruleset: str
    title: str
    rules: dict[str, RuleOverride]


class LoadedRuleset:
    """A ruleset ready for the engine: rules by check, with their source file."""

    def __init__(
        self, ruleset: Ruleset, path: Path, sha256: str, overlay: LoadedOverlay | None = None
    ):
        self.model = ruleset
        self.path = path
        self.sha256 = sha256
        self.overlay = overlay
        self.by_check: dict[str, Rule] = {r.check: r for r in ruleset.rules if r.enabled}

    @property
    def id(self) -> str:
        return self.model.id

    @property
    def game(self) -> str:
        return self.model.game

    def rule(self, check: Check) -> Rule | None:
        """The enabled rule that binds the check, or None."""
        return self.by_check.get(check.name)

    def settings(self, check: Check[P]) -> P | None:
        """The check's parameters in this ruleset (typed by its declaration); None when no
        enabled rule binds it."""
        rule = self.by_check.get(check.name)
        return rule.settings if rule else None  # type: ignore[return-value]


@dataclass
class OverlayChanges:
    """What an overlay changes, by rule id: regulation rules made stricter, house rules turned on,
    rules whose house parameters it sets, and rules it gives a reading of its own (the report's
    ``configuration.overlays``)."""

    tightened: list[str] = dc_field(default_factory=list)
    added: list[str] = dc_field(default_factory=list)
    parameters: list[str] = dc_field(default_factory=list)
    #: the house's words beside the ruleset's reading: they change nothing the audit checks, but the
    #: audited party wrote them, so the report says where they are and whose they are
    readings: list[str] = dc_field(default_factory=list)


class LoadedOverlay:
    def __init__(self, overlay: Overlay, path: Path, sha256: str, node: yaml.Node | None = None):
        self.model = overlay
        self.path = path
        self.sha256 = sha256
        self.node = node  # the YAML nodes, to say on which line an override goes wrong
        #: filled when the overlay is applied to its ruleset (``apply_overlay``)
        self.changes = OverlayChanges()

    def where(self, *loc: Any) -> str:
        """``path, line N: key`` for a key of the overlay."""
        line = _line_of(self.node, loc) if self.node is not None else None
        return f"{self.path}{f', line {line}' if line else ''}: {_loc_text(loc)}"


# -- reading YAML with positions -------------------------------------------------

#: safe_load's loader, in C when PyYAML was built with libyaml (the same safe constructors)
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _bytes(path: Path) -> bytes:
    try:
        return bounded.read_bytes(path, MAX_YAML_BYTES)  # /dev/zero: the limit and a byte, no more
    except OSError as err:
        raise RulesetError(f"{path}: cannot read: {err.strerror or err}") from None
    except bounded.TooLarge as err:
        raise RulesetError(f"{path}: {err}") from None


def _parse(raw: bytes, path: Path) -> tuple[Any, yaml.Node | None]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise RulesetError(f"{path}: not UTF-8 (byte {err.start})") from None
    try:
        nesting.check_yaml_depth(text)  # before the (recursive) composer sees it
        loader = _SafeLoader(text)  # safe_load's loader, run by hand to see the nodes first
        try:
            node = loader.get_single_node()
            _count_nodes(node, path)
            nesting.check_yaml_keys(node)
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except nesting.ShapeProblem as err:
        raise RulesetError(f"{path}, {err}") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f", line {mark.line + 1}" if mark else ""
        problem = getattr(err, "problem", None) or str(err)
        raise RulesetError(f"{path}{where}: invalid YAML: {problem}") from None
    return data, node


def _read(path: Path) -> tuple[Any, yaml.Node | None, str]:
    raw = _bytes(path)
    data, node = _parse(raw, path)
    return data, node, hashlib.sha256(raw).hexdigest()


def _count_nodes(node: yaml.Node | None, path: Path) -> None:
    """Refuse alias bombs: count nodes as pydantic would see them, aliases expanded."""
    budget = [MAX_YAML_NODES]
    memo: dict[int, int] = {}

    def size(n: yaml.Node) -> int:
        key = id(n)
        if key in memo:
            return memo[key]
        total = 1
        if isinstance(n, yaml.SequenceNode):
            for child in n.value:
                total += size(child)
                if total > budget[0]:
                    break
        elif isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                total += size(k) + size(v)
                if total > budget[0]:
                    break
        memo[key] = total
        return total

    if node is not None and size(node) > MAX_YAML_NODES:
        raise RulesetError(
            f"{path}: more than {MAX_YAML_NODES} YAML nodes once aliases are expanded; refused"
        )


def _line_of(node: yaml.Node | None, loc: tuple[Any, ...]) -> int | None:
    """The line of the deepest node of ``loc`` that exists in the YAML."""
    line = node.start_mark.line + 1 if node is not None else None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            nxt = None
            for k, v in node.value:
                if k.value == part:
                    line = k.start_mark.line + 1
                    nxt = v
                    break
            node = nxt
        elif (
            isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value)
        ):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
        if node is None:
            break
    return line


def _loc_text(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _validate(model: type[BaseModel], data: Any, node: yaml.Node | None, path: Path) -> Any:
    if not isinstance(data, dict):
        raise RulesetError(f"{path}: expected a mapping at the top level")
    try:
        return model.model_validate(data)
    except ValidationError as err:
        errors = sorted(err.errors(), key=lambda e: e["type"] != "extra_forbidden")
        first = errors[0]
        loc = tuple(
            p for p in first["loc"] if not (isinstance(p, str) and p.startswith("function-"))
        )
        line = _line_of(node, loc)
        where = f", line {line}" if line else ""
        key = _loc_text(loc) or "(top level)"
        msg = first["msg"]
        if first["type"] == "extra_forbidden":
            msg = "unknown key"
        elif first["type"] == "missing":
            msg = "required key is missing"
        elif first["type"] == "value_error":
            error = first["ctx"]["error"]
            msg = str(error)
            if isinstance(error, LocatedError):
                loc = loc + error.loc
                line = _line_of(node, loc)
                where = f", line {line}" if line else ""
                key = _loc_text(loc)
        more = f" (and {len(err.errors()) - 1} more)" if len(err.errors()) > 1 else ""
        raise RulesetError(f"{path}{where}: {key}: {msg}{more}") from None


# -- public API ---------------------------------------------------------------------


def shipped_folders() -> list[Path]:
    """Where the shipped rulesets are: the format's folder, then each registered game's own
    (``Game.rulesets``), each once."""
    folders = {rulesets_dir().resolve(): rulesets_dir()}
    for name in sorted(GAMES):
        folder = GAMES[name].rulesets
        if folder is not None:
            folders.setdefault(folder.resolve(), folder)
    return list(folders.values())


def _verify_game(data: Any, node: yaml.Node | None, path: Path) -> None:
    """Every rule binds a check its game answers for (the format's, every game's, its own).
    Run on the data as read, before the rules' parameters are validated against their checks."""
    if not isinstance(data, dict) or not isinstance(data.get("game"), str):
        return  # the model says what is wrong
    allowed = checks_for(data["game"])
    if allowed is None:
        line = _line_of(node, ("game",))
        raise RulesetError(
            f"{path}{f', line {line}' if line else ''}: game: no game {data['game']!r} is known"
        )
    rules = data.get("rules")
    for index, rule in enumerate(rules if isinstance(rules, list) else []):
        check = rule.get("check") if isinstance(rule, dict) else None
        if isinstance(check, str) and check in DECLARED and check not in allowed:
            loc = ("rules", index, "check")
            line = _line_of(node, loc)
            raise RulesetError(
                f"{path}{f', line {line}' if line else ''}: {_loc_text(loc)}: check {check!r} "
                f"is a {DECLARED[check].scope} check, not one a {data['game']} ruleset can bind"
            )


def _checked(data: Any, node: yaml.Node | None, path: Path) -> Ruleset:
    _verify_game(data, node, path)
    return _validate(Ruleset, data, node, path)


#: the YAML read in this process, by (SHA-256 of the bytes, path): a process that loads the same
#: rulesets again (the tests, a cluster's worker) parses them once. Memory only, never a file: data
#: kept between runs in a folder is what the audited party could change (docs/trust.md)
_READ: dict[tuple[str, str], tuple[Any, yaml.Node | None]] = {}
_READ_MAX = 64


def load_ruleset(path: Path) -> LoadedRuleset:
    """The ruleset of a file, validated: its bytes read and hashed each time, their YAML parsed
    once a process (``_read_yaml``)."""
    raw = _bytes(path)
    sha = hashlib.sha256(raw).hexdigest()
    data, node = _read_yaml(raw, sha, path)
    return LoadedRuleset(_checked(data, node, path), path, sha)


def _read_yaml(raw: bytes, sha: str, path: Path) -> tuple[Any, yaml.Node | None]:
    """``_parse(raw, path)``, kept in ``_READ``: a copy of the data each time (the caller's to
    change), the same nodes (only read, for line numbers)."""
    key = (sha, str(path))
    kept = _READ.get(key)
    if kept is None:
        kept = _parse(raw, path)
        if len(_READ) >= _READ_MAX:
            _READ.clear()
        _READ[key] = kept
    return copy.deepcopy(kept[0]), kept[1]


def load_overlay(path: Path) -> LoadedOverlay:
    data, node, sha = _read(path)
    return LoadedOverlay(_validate(Overlay, data, node, path), path, sha, node)


def apply_overlay(base: LoadedRuleset, overlay: LoadedOverlay) -> LoadedRuleset:
    """The base ruleset with the house's choices; every override must name a real rule, and none
    may loosen a rule of the regulation (``_judge``). Fills ``overlay.changes``."""
    ov = overlay.model
    if ov.ruleset != base.id:
        raise RulesetError(
            f"{overlay.where('ruleset')}: overlay is for {ov.ruleset!r}, not {base.id!r}"
        )
    changes = _overrides_by_id(base, overlay)
    rules = []
    tightened: list[str] = []
    added: list[str] = []
    parameters: list[str] = []
    readings: list[str] = []
    for rule in base.model.rules:
        change = changes.get(rule.id)
        if change is None:
            rules.append(rule)
            continue
        if change.reading is not None:
            readings.append(rule.id)
        new = _overridden(rule, change, overlay)
        stricter, turned_on, house_params = _judge(rule, new, overlay)
        if new.enabled:
            if stricter:
                tightened.append(rule.id)
            if turned_on:
                added.append(rule.id)
            if house_params:
                parameters.append(rule.id)
        rules.append(new)
    overlay.changes = OverlayChanges(
        sorted(tightened), sorted(added), sorted(parameters), sorted(readings)
    )
    merged = base.model.model_copy(update={"rules": rules})
    return LoadedRuleset(merged, base.path, base.sha256, overlay)


def _overridden(rule: Rule, change: RuleOverride, overlay: LoadedOverlay) -> Rule:
    """The rule with the overlay's changes merged in (``params`` key by key), validated again;
    whether the change is allowed is ``_judge``'s to say. The rule keeps the ruleset's reading: the
    overlay's own is shown beside it, as the house's (``house_reading``), never in its place."""
    data = rule.model_dump()
    if change.enabled is not None:
        data["enabled"] = change.enabled
    if change.severity is not None:
        data["severity"] = change.severity
    if change.params is not None:
        unknown = {k for k in change.params if not DECLARED[rule.check].params.accepts(k)}
        if unknown:
            raise RulesetError(
                f"{overlay.where('rules', rule.id, 'params', sorted(unknown)[0])}: unknown key"
            )
        data["params"] = {**rule.params, **change.params}
    try:
        return Rule.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        loc = tuple(
            p for p in first["loc"] if not (isinstance(p, str) and p.startswith("function-"))
        )
        raise RulesetError(f"{overlay.where('rules', rule.id, *loc)}: {first['msg']}") from None


def _overrides_by_id(base: LoadedRuleset, overlay: LoadedOverlay) -> dict[str, RuleOverride]:
    """The overlay's changes by the id each rule has now: a former id (an alias) names the rule
    it was renamed to; naming one rule twice, by its id and an alias, is refused."""
    ids = {r.id for r in base.model.rules}
    aliases = base.model.aliases()
    out: dict[str, RuleOverride] = {}
    named: dict[str, str] = {}
    for rule_id, change in overlay.model.rules.items():
        current = rule_id if rule_id in ids else aliases.get(rule_id)
        if current is None:
            raise RulesetError(f"{overlay.where('rules', rule_id)}: no such rule in {base.id}")
        if current in out:
            raise RulesetError(
                f"{overlay.where('rules', rule_id)}: {rule_id} and {named[current]} name the same "
                f"rule, {current}"
            )
        out[current] = change
        named[current] = rule_id
    return out


def overlay_change(loaded: LoadedRuleset, rule: Rule) -> RuleOverride | None:
    """What the ruleset's ``--house`` overlay changes in this rule (named by its id or an alias)."""
    if loaded.overlay is None:
        return None
    by_alias = {alias: rule.id for alias in rule.aliases}
    for rule_id, change in loaded.overlay.model.rules.items():
        if rule_id == rule.id or by_alias.get(rule_id) == rule.id:
            return change
    return None


def house_reading(loaded: LoadedRuleset, rule: Rule) -> tuple[str, str] | None:
    """The reading the ruleset's overlay gives of the rule, as (overlay id, its words), or None."""
    change = overlay_change(loaded, rule)
    if change is None or change.reading is None:
        return None
    assert loaded.overlay is not None  # a change comes from it
    return loaded.overlay.model.overlay, change.reading


def _judge(old: Rule, new: Rule, overlay: LoadedOverlay) -> tuple[bool, bool, bool]:
    """What an override does to a rule: (made a regulation rule stricter, turned a house rule on,
    set a parameter that is the house's). Refuses, naming the overlay's line and key, whatever
    would disable, downgrade or loosen a rule of the regulation, or change what it fixes.
    A ``reading`` is words, not a setting: any rule may have the house's beside its own."""
    params = sorted(
        {
            *DECLARED[old.check].params.model_fields,
            *(old.settings.model_extra or {}),
            *(new.settings.model_extra or {}),
        }
    )
    changed = [
        k for k in params if getattr(old.settings, k, None) != getattr(new.settings, k, None)
    ]
    if old.authority == "house":
        return False, new.enabled and not old.enabled, bool(changed)

    def refuse(*loc: Any, why: str) -> RulesetError:
        return RulesetError(
            f"{overlay.where('rules', old.id, *loc)}: {old.id} encodes the regulation "
            f"({old.citation.article}); {why}"
        )

    stricter = new.enabled and not old.enabled
    if old.enabled and not new.enabled:
        raise refuse(
            "enabled",
            why="a house overlay cannot turn it off (only --ignore or the configuration's "
            "ignore can, and the report then says so)",
        )
    up = SEVERITY_ORDER.index(new.severity) - SEVERITY_ORDER.index(old.severity)
    if up < 0:
        raise refuse(
            "severity",
            why=f"a house overlay cannot lower its severity from {old.severity} to {new.severity}",
        )
    stricter = stricter or up > 0
    house = False
    for key in changed:
        was, now = getattr(old.settings, key), getattr(new.settings, key)
        how = old.overlay.get(key)
        if how is None:
            raise refuse(
                "params",
                key,
                why=f"{key} is fixed by the regulation ({_show(was)}); a house overlay cannot "
                f"change it to {_show(now)}",
            )
        if how == "house":
            house = True
            continue
        if isinstance(how, list):
            steps = old.ladder(key)
            if now not in steps:
                raise refuse(
                    "params",
                    key,
                    why=f"{key} may only move towards the strict end of "
                    f"{', '.join(map(_show, steps))}; {_show(now)} is not one of them",
                )
            ok = steps.index(now) > steps.index(was)
            rule_of = f"{key} may only move from {_show(was)} towards the strict end of {', '.join(map(_show, steps))}"
        elif how in ("raise", "lower"):
            ok = now > was if how == "raise" else now < was
            rule_of = (
                f"{key} may only be {'raised' if how == 'raise' else 'lowered'} from {_show(was)}"
            )
        else:
            olds, news = set(was), set(now)
            if olds == news:
                continue  # the same values, in another order or repeated
            ok = news < olds if how == "narrow" else news > olds
            rule_of = (
                f"{key} may only lose values of {_show(was)}"
                if how == "narrow"
                else f"{key} may only gain values beside {_show(was)}"
            )
        if not ok:
            raise refuse("params", key, why=f"{rule_of}; {_show(now)} would loosen it")
        stricter = True
    return stricter, False, house


def _show(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class Library:
    """Every ruleset available to an audit, by id, with overlays applied.

    An overlay given for a ruleset applies at every table of it; an overlay
    given for a table pattern (configuration) applies at the tables it matches.
    """

    def __init__(
        self,
        rulesets: dict[str, LoadedRuleset],
        table_overlays: list[tuple[str, LoadedOverlay]] | None = None,
    ):
        self.rulesets = rulesets
        self.table_overlays = table_overlays or []
        self._merged: dict[tuple[str, int], LoadedRuleset] = {}
        self._aliases: dict[str, str] | None = None
        #: how to load this library again (in another process, for --jobs)
        self.spec: dict = {}
        #: whether the audit keeps the surveillance statistics (``--statistics``)
        self.statistics = False
        #: when a gaming day begins, if the audit counts its inputs' gaming days (a run recorded in
        #: the history store: ``InputSummary.gaming_day``); None: not counted
        self.gaming_day_start: time | None = None

    def for_table(self, ruleset_id: str, table: str) -> LoadedRuleset | None:
        base = self.rulesets.get(ruleset_id)
        if base is None:
            return None
        for index, (pattern, overlay) in enumerate(self.table_overlays):
            if overlay.model.ruleset == ruleset_id and fnmatchcase(table, pattern):
                key = (ruleset_id, index)
                if key not in self._merged:
                    self._merged[key] = apply_overlay(base, overlay)
                return self._merged[key]
        return base

    @classmethod
    def load(
        cls,
        directory: Path | None = None,
        overlays: list[Path] | None = None,
        table_overlays: list[tuple[str, Path]] | None = None,
    ) -> Library:
        folders = [directory] if directory is not None else shipped_folders()
        for folder in folders:
            if not folder.is_dir():
                raise RulesetError(f"{folder}: rulesets directory not found")
        found: dict[str, LoadedRuleset] = {}
        for path in (p for folder in folders for p in sorted(folder.glob("*.yaml"))):
            loaded = load_ruleset(path)
            if loaded.id in found:
                raise RulesetError(
                    f"{path}: id: ruleset {loaded.id} is also defined in {found[loaded.id].path}"
                )
            if loaded.id != path.stem:
                raise RulesetError(
                    f"{path}: id: {loaded.id!r} does not match the file name {path.stem!r}"
                )
            found[loaded.id] = loaded
        _unique_aliases_across(found)
        for opath in overlays or []:
            overlay = load_overlay(opath)
            base = found.get(overlay.model.ruleset)
            if base is None:
                raise RulesetError(f"{opath}: ruleset: no ruleset {overlay.model.ruleset!r}")
            if base.overlay is not None:
                raise RulesetError(
                    f"{opath}: ruleset {base.id} already has overlay {base.overlay.path}"
                )
            found[base.id] = apply_overlay(base, overlay)
        per_table = []
        for pattern, opath in table_overlays or []:
            overlay = load_overlay(opath)
            if overlay.model.ruleset not in found:
                raise RulesetError(f"{opath}: ruleset: no ruleset {overlay.model.ruleset!r}")
            apply_overlay(
                found[overlay.model.ruleset], overlay
            )  # refuse a bad overlay now, not at its table
            per_table.append((pattern, overlay))
        library = cls(found, per_table)
        library.spec = {
            "directory": directory,  # None: the shipped folders, found again
            "overlays": list(overlays or []),
            "table_overlays": list(table_overlays or []),
        }
        return library

    @property
    def aliases(self) -> dict[str, str]:
        """Each former rule id of every ruleset -> the rule's id now."""
        if self._aliases is None:
            self._aliases = {
                alias: rule_id
                for _, loaded in sorted(self.rulesets.items())
                for alias, rule_id in loaded.model.aliases().items()
            }
        return self._aliases

    def overlays(self) -> list[tuple[str, LoadedOverlay]]:
        """Every overlay in use, with the tables it applies at (``*``: every table of its ruleset),
        ruleset-wide ones first in ruleset order, then the configuration's in its order."""
        wide = [("*", r.overlay) for _, r in sorted(self.rulesets.items()) if r.overlay is not None]
        return wide + list(self.table_overlays)

    def get(self, ruleset_id: str) -> LoadedRuleset | None:
        return self.rulesets.get(ruleset_id)

    @property
    def format_rules(self) -> LoadedRuleset:
        return self.rulesets["del-v1"]


def _unique_aliases_across(found: dict[str, LoadedRuleset]) -> None:
    """No alias of one ruleset is a rule id or an alias of another (a former id names one rule)."""
    ids = {rule.id for loaded in found.values() for rule in loaded.model.rules}
    aliased: dict[str, str] = {}
    for rs_id in sorted(found):
        loaded = found[rs_id]
        for i, rule in enumerate(loaded.model.rules):
            for j, alias in enumerate(rule.aliases):
                clash = alias_clash(alias, rule.id, ids, aliased)
                if clash:
                    _, node, _ = _read(loaded.path)
                    loc = ("rules", i, "aliases", j)
                    line = _line_of(node, loc)
                    where = f", line {line}" if line else ""
                    raise RulesetError(f"{loaded.path}{where}: {_loc_text(loc)}: {clash}")
                aliased[alias] = rule.id
