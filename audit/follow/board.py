"""What the live page shows, as HTML made by the HTML report's own code (``reporters.html``).

The follow (its main thread) tells the board of each finding, anomaly and look at the tables;
the page's server (its own thread) reads it: a whole page for a ``GET /``, and each change as a
server-sent event to the pages open. Every piece is markup made here, from escaped text
(``reporters.html.markup``), so a log's text can only ever show as text. What is kept is
bounded: the last ``MAX_ROWS`` findings, the anomalies (few: one a group a night), a row a table.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from ..findings import SEVERITIES, Finding
from ..reporters.html.findings_section import _COLUMNS, _finding_row
from ..reporters.html.markup import Html, el, join, money, number, row, void
from ..rulesets import Library
from ..statistics import Group
from .live_stats import LiveAnomaly

#: the findings the page lists, newest first (the JSON lines output keeps every one)
MAX_ROWS = 500
TABLE_COLUMNS = (
    "file",
    "table",
    "ruleset",
    "state",
    "rounds",
    "drop",
    "result",
    "expected",
    "z",
)
ANOMALY_COLUMNS = ("where", "group", "test", "p adjusted", "look", "what")


class Board:
    """The live page's content; ``send`` is set by the server: it hands an event to the pages."""

    def __init__(self, library: Library) -> None:
        self.regulations = {
            r.id: r.model.regulation.short or r.model.title for r in library.rulesets.values()
        }
        self.lock = threading.Lock()
        self.findings: deque[Html] = deque(maxlen=MAX_ROWS)
        self.anomalies: list[Html] = []
        self.tables = Html("")
        self.counts = dict.fromkeys(SEVERITIES, 0)
        self.files = self.lines = self.open = 0
        #: (path, table) -> the table's money group at its last shoe's end (result, expected, z)
        self.expected: dict[tuple[str, str], Group] = {}
        self.listeners: list[Callable[[str, str], None]] = []

    # -- told by the follow
    def finding(self, f: Finding) -> None:
        with self.lock:
            html = _finding_row(f, self.regulations)
            self.findings.appendleft(html)
            self.counts[f.severity] = self.counts.get(f.severity, 0) + 1
            self._send("finding", {"html": html, "figures": self._figures()})

    def anomaly(self, a: LiveAnomaly) -> None:
        g = a.group
        with self.lock:
            html = el(
                "tr",
                el("td", el("code", f"{g.path}:{a.line}"), void("br"), f"table {g.table or '—'}"),
                el("td", g.scope, " ", el("code", g.id, class_="id")),
                el("td", g.test),
                el("td", number(a.p_adjusted), class_="num"),
                el("td", a.look, class_="num"),
                el("td", a.message),
                class_="anomaly",
            )
            self.anomalies.insert(0, html)
            self._send("anomaly", {"html": html, "figures": self._figures()})

    def observe(self, group: Group) -> None:
        """A group the live statistics worked out: a table's money group is shown beside it."""
        if group.scope == "table" and group.test == "result":
            with self.lock:
                self.expected[(group.path, group.id)] = group

    def look(self, follower) -> None:
        """The tables as the follow reads them now: sent when anything shown changed."""
        rows, lines, tables_open = [], 0, 0
        for path, followed in sorted(follower.files.items()):
            replay = followed.replay
            lines += followed.lineno
            tables_open += len(replay.tables)
            for table_id, t in sorted(replay.stats.tables.items()):
                g = self.expected.get((path, table_id))
                result = t.result if t.house_banked else None
                rows.append(
                    row(
                        el("code", path),
                        el("code", table_id, class_="id"),
                        t.ruleset,
                        "open" if table_id in replay.tables else "closed",
                        t.rounds,
                        money(t.drop),
                        money(result),
                        _expected(g),
                        number(g.z if g is not None else None),
                        numeric=(4, 5, 6, 7, 8),
                        class_="live-table",
                    )
                )
        with self.lock:
            self.lines, self.open, self.files = lines, tables_open, len(follower.files)
            tables = join(rows)
            if tables != self.tables:
                self.tables = tables
                self._send("tables", {"html": tables, "figures": self._figures()})

    # -- read by the server
    def snapshot(self, listener: Callable[[str, str], None] | None = None) -> dict[str, Html]:
        """Every part of the page as it stands (and, with ``listener``, every change from then on)."""
        with self.lock:
            if listener is not None:
                self.listeners.append(listener)
            return {
                "figures": self._figures(),
                "tables": self.tables,
                "anomalies": join(self.anomalies),
                "findings": join(self.findings),
            }

    def forget(self, listener: Callable[[str, str], None]) -> None:
        with self.lock:
            if listener in self.listeners:
                self.listeners.remove(listener)

    # -- (under the lock)
    def _send(self, kind: str, data: dict[str, Any]) -> None:
        text = json.dumps(data)
        for listener in list(self.listeners):
            listener(kind, text)

    def _figures(self) -> Html:
        figures: list[tuple[int | str, str, str]] = [
            (self.counts.get(s, 0), f"{s} findings", f"sev-{s}") for s in SEVERITIES
        ]
        figures += [
            (len(self.anomalies), "anomalies", "anomaly"),
            (self.open, "tables open", ""),
            (self.files, "files followed", ""),
            (f"{self.lines:,}", "lines read", ""),
        ]
        return join(
            el(
                "div",
                el("span", n, class_="n"),
                el("span", label, class_="label"),
                class_=f"figure {kind}".strip(),
            )
            for n, label, kind in figures
        )


def _expected(g: Group | None) -> str:
    if g is None or g.expected is None:
        return "—"
    return money(g.expected)


def page(parts: dict[str, Html], script: str, policy: str, css: str) -> str:
    """The whole page: the report's style, the figures, the tables, the anomalies and the findings."""
    findings_head = el("thead", el("tr", *(el("th", c, scope="col") for c in _COLUMNS)))
    cols = el("colgroup", *(void("col", class_=f"c-{c}") for c in _COLUMNS))
    head = el(
        "head",
        void("meta", charset="utf-8"),
        void("meta", http_equiv="Content-Security-Policy", content=policy),
        void("meta", name="viewport", content="width=device-width, initial-scale=1"),
        el("title", "Live audit"),
        el("style", Html(css)),
    )
    body = el(
        "body",
        el(
            "header",
            el("h1", "Live audit of the tables"),
            el(
                "p",
                "Findings and anomalies as audit follow reports them; this page only reads. ",
                el("span", "connecting…", id="live-state"),
                class_="meta",
            ),
        ),
        el("div", parts["figures"], id="figures", class_="figures"),
        el(
            "main",
            el("h2", "Tables", id="tables"),
            el(
                "table",
                el(
                    "caption",
                    "Each table followed: its rounds, the chips staked, the house's result, and its "
                    "exact expectation and z at the last shoe's end",
                ),
                el("thead", el("tr", *(el("th", c, scope="col") for c in TABLE_COLUMNS))),
                el("tbody", parts["tables"], id="tables-body"),
                class_="live-tables",
            ),
            el("h2", "Anomalies", id="anomalies"),
            el(
                "table",
                el("thead", el("tr", *(el("th", c, scope="col") for c in ANOMALY_COLUMNS))),
                el("tbody", parts["anomalies"], id="anomalies-body"),
                class_="live-anomalies",
            ),
            el("h2", "Findings", id="findings"),
            el(
                "table",
                el("caption", f"The newest first, the last {MAX_ROWS} at most"),
                cols,
                findings_head,
                el("tbody", parts["findings"], id="findings-body"),
                id="findings-table",
                class_="findings",
            ),
        ),
        el("script", Html(script)),
    )
    return f"<!DOCTYPE html>\n{el('html', head, body, lang='en')}\n"
