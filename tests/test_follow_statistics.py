"""audit follow's live statistics: a look at each shoe's end, each anomaly reported once, when it
first crosses, with the fields of the statistics contract; once across restarts too."""

from __future__ import annotations

import gc
import json
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from audit.follow.emit import anomaly_line
from audit.follow.live_stats import LiveStatistics, spent
from audit.statistics import SCOPES, Group

ROOT = Path(__file__).resolve().parent.parent
#: the fields of an anomaly in the JSON report (statistics contract, section 2)
CONTRACT = {"scope", "id", "path", "table", "z", "p", "p_adjusted", "message"}
#: what an anomaly says of where its rounds were (section 3)
CONTEXT = (
    "dealers",
    "shoes",
    "first_line",
    "last_line",
    "first_time",
    "last_time",
    "rounds",
    "handle",
    "result",
    "expected",
    "sd",
)


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "audit", *args], cwd=ROOT, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def stacked(tmp_path_factory) -> tuple[Path, dict]:
    """A night whose first table's second shoe comes in clumps (every round legal)."""
    tmp = tmp_path_factory.mktemp("stacked")
    log, expected = tmp / "night.del", tmp / "expected.json"
    done = run(
        "simulate",
        "-r",
        "fr-bataille-2007",
        "--tables",
        "2",
        "--rounds",
        "200",
        "--seed",
        "3",
        "--anomaly",
        "stacked-shoe",
        "-o",
        str(log),
        "--expected",
        str(expected),
    )
    assert done.returncode == 0, done.stderr
    return log, json.loads(expected.read_text())


def anomalies(text: str) -> list[dict]:
    objs = (json.loads(line) for line in text.splitlines() if line.endswith("}"))
    return [o for o in objs if o["type"] == "anomaly"]


def test_a_stacked_shoe_is_reported_once_when_its_shoe_ends(stacked):
    log, expected = stacked
    done = run("follow", "--once", "-f", "jsonl", "--heartbeat", "0", str(log))
    assert done.returncode == 0, done.stderr
    found = anomalies(done.stdout)
    keys = Counter((a["path"], a["scope"], a["id"], a["test"]) for a in found)
    assert keys and max(keys.values()) == 1  # each group once
    shoe = next(a for a in found if a["scope"] == "shoe")
    assert (shoe["id"], shoe["table"]) == (expected["id"], expected["table"])
    assert shoe.keys() >= CONTRACT and shoe["p_adjusted"] < 0.001 and shoe["look"] == 1
    lines = log.read_text().splitlines()
    # reported at the line that ended the shoe: the table's next SHOE new (or its CLOSE)
    ended = lines[shoe["line"] - 1]
    assert f" {expected['table']} " in f" {ended} " and (" SHOE new" in ended or "CLOSE" in ended)
    table, number = expected["id"].split("#")
    begun = [i + 1 for i, t in enumerate(lines) if f" {table} " in t and " SHOE new" in t]
    assert shoe["line"] == begun[int(number)]  # the shoe after it begins: this one is over
    # and audit check names the same group for the night as a whole
    report = json.loads(run("check", "--statistics", "-f", "json", str(log)).stdout)
    named = {(a["scope"], a["id"]) for a in report["statistics"]["anomalies"]}
    assert ("shoe", expected["id"]) in named
    # with what the report's anomaly says of it, to pull the footage (contract, section 3)
    same = next(
        a
        for a in report["statistics"]["anomalies"]
        if (a["scope"], a["id"], a["test"]) == ("shoe", shoe["id"], shoe["test"])
    )
    assert {k: shoe[k] for k in CONTEXT} == {k: same[k] for k in CONTEXT}
    assert shoe["dealers"] and shoe["shoes"] == [expected["id"]] and shoe["handle"] is not None
    assert shoe["first_line"] < shoe["last_line"] < shoe["line"] and shoe["first_time"]


def test_the_text_line_and_no_statistics(stacked):
    log, expected = stacked
    text = run("follow", "--once", str(log)).stdout
    line = next(t for t in text.splitlines() if f"anomaly shoe {expected['id']} (order)" in t)
    assert re.search(rf"; lines \d+-\d+ \(.+ to .+\), dealers \w+.*, shoes {expected['id']}$", line)
    off = run("follow", "--once", "--no-statistics", "-f", "jsonl", str(log)).stdout
    assert not anomalies(off)
    strict = run("follow", "--once", "--alpha", "1e-300", "-f", "jsonl", str(log)).stdout
    assert not anomalies(strict)  # alpha is what decides


def read_lines(out: Path) -> int:
    """The lines read, as the last heartbeat says."""
    if not out.exists():
        return 0
    for line in reversed(out.read_bytes().splitlines(keepends=True)):
        if line.endswith(b"\n") and (obj := json.loads(line))["type"] == "status":
            return obj["lines"]
    return 0


def test_killed_and_restarted_each_anomaly_is_written_once(stacked, tmp_path):
    log, _ = stacked
    data = log.read_bytes()
    whole = {
        (a["scope"], a["id"], a["test"])
        for a in anomalies(run("follow", "--once", "-f", "jsonl", str(log)).stdout)
    }
    live, out, state = tmp_path / "live.del", tmp_path / "out.jsonl", tmp_path / "state.json"
    live.write_bytes(b"")
    args = ("follow", str(live), "--state", str(state), "-f", "jsonl", "-o", str(out))
    args += ("--interval", "0.01", "--heartbeat", "0.05")

    def start() -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-m", "audit", *args], cwd=ROOT, stderr=subprocess.PIPE
        )

    proc, at, kills = start(), 0, 0
    step = len(data) // 40
    while at < len(data):
        with live.open("ab") as f:
            f.write(data[at : at + step])
        at += step
        lines, deadline = data[:at].count(b"\n"), time.monotonic() + 60
        while read_lines(out) < lines and time.monotonic() < deadline:
            time.sleep(0.01)  # until it has read what was written (a loaded machine is slow)
        seen = len(anomalies(out.read_text())) if out.exists() else 0
        if seen > kills:  # an anomaly just written: killed at once, maybe before its state
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            kills += 1
            proc = start()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    last = subprocess.run(
        [sys.executable, "-m", "audit", *args, "--until-idle", "0.3"], cwd=ROOT, timeout=120
    )
    assert last.returncode in (0, 1)
    got = Counter((a["scope"], a["id"], a["test"]) for a in anomalies(out.read_text()))
    assert kills >= 1 and set(got) == whole and max(got.values()) == 1
    assert json.loads(state.read_text())["anomalies"]


def test_an_anomaly_written_before_the_state_is_read_back(stacked, tmp_path):
    """Killed between an anomaly's line and the state: the restart finds it in the output."""
    log, _ = stacked
    out, state = tmp_path / "out.jsonl", tmp_path / "state.json"
    first = run("follow", "--once", "-f", "jsonl", "-o", str(out), str(log))
    assert first.returncode == 0 and anomalies(out.read_text())
    state.write_text(
        json.dumps(
            {
                "format": "del-audit-follow-state",
                "version": 1,
                "output": {"path": str(out.resolve()), "size": 0},
                "files": {},
                "anomalies": [],
            }
        )
    )
    before = out.read_text()
    again = run("follow", "--once", "--state", str(state), "-f", "jsonl", "-o", str(out), str(log))
    assert again.returncode == 0, again.stderr
    assert anomalies(out.read_text()) == anomalies(before)  # none again


def _group(rounds: int, p: float, ident: str = "P1") -> Group:
    return Group("player", ident, "night.del", "result", "T1", "r", rounds, p_exact=p, p=p)


def look(live: LiveStatistics, group: Group, line: int) -> None:
    """A look at one group, its anomaly (if any) reported as the end of a look reports it."""
    live._test(group, line)
    live._tell()


def test_a_group_is_looked_at_when_its_rounds_double_and_pays_k_k_plus_1():
    told = []
    live = LiveStatistics(None, told.append, alpha=0.001)  # type: ignore[arg-type]
    for rounds in (30, 40, 59, 60, 100, 119, 120):
        look(live, _group(rounds, 0.5), line=rounds)
    assert live.looks[("night.del", "player", "P1", "result")] == (3, 120)
    assert sum(1 / spent(k) for k in range(1, 10_000)) < 1
    # the fourth look at one group of one: p times 4 x 5 must be below alpha
    look(live, _group(240, 0.001 / 20 * 1.01), line=240)
    assert not told
    look(live, _group(480, 0.001 / 30 * 0.99), line=480)
    assert [a.look for a in told] == [5] and told[0].p_adjusted < 0.001
    look(live, _group(960, 1e-9), line=960)
    assert len(told) == 1  # once
    look(live, _group(30, 0.001 / 2 / 2 * 0.99, "P2"), line=1)  # first look, two groups tested
    assert [a.group.id for a in told] == ["P1", "P2"] and told[1].tested == 2


def test_other_tables_sums_looked_up_are_those_read_whole(stacked, monkeypatch, tmp_path):
    """A look reads the other tables' sums of the groups it moved by look-up (players' by dealer,
    pairs, and those let go to disk): the same groups, the same figures, as reading every record
    of every table; and each group's last look has the figures of ``audit check``."""
    from audit.follow import live_stats
    from audit.follow.tail import Follower
    from audit.reporters.json_report import money
    from audit.rulesets import Library

    night, _ = stacked
    log = tmp_path / "shared.del"  # the same dealers and players at both tables: groups across them
    text = re.sub(r"DEALER id=\w+", "DEALER id=D0001", night.read_text())
    log.write_text(text.replace("player=P02-", "player=P01-"))
    read = Counter()
    whole = live_stats._records_now

    def counted(surv):
        read[surv.table] += 1
        return whole(surv)

    def groups(log: Path) -> tuple[list, dict]:
        library = Library.load()
        library.statistics = True
        live = LiveStatistics(library, lambda a: None)
        seen: list = []
        live.observe = lambda g: seen.append(
            (g.key, g.table, g.rounds, g.result, g.expected, g.z)
            if g.test == "result"
            else (g.key, g.table, g.rounds, g.units, g.units_expected, g.z)
        )
        follower = Follower(library, [str(log)], lambda p, f: None, {}, None, live)
        follower.poll()
        follower.finish()
        follower.close()
        rows = live.store.db.execute("SELECT scope, count(*) FROM sums GROUP BY scope")
        return seen, {SCOPES[scope]: n for scope, n in rows}

    def figures(test: str, result, expected) -> tuple[str, str]:
        """As the JSON report writes them: money to the cent, units as they are."""
        if test == "units":
            return str(result), str(expected)
        return money(result), money(expected)

    def as_checked(log: Path, seen: list) -> None:
        """Each group's last look has the figures of ``audit check``."""
        last = {
            key: (table, rounds, *figures(key[3], result, expected), z)
            for key, table, rounds, result, expected, z in seen
            if key[3] in ("result", "units")
        }
        report = json.loads(run("check", "-f", "json", str(log)).stdout)["statistics"]["groups"]
        check = {
            (str(log), g["scope"], g["id"], g["test"]): (
                g["table"],
                g["rounds"],
                g["result"],
                g["expected"],
                g["z"],
            )
            if g["test"] == "result"
            else (g["table"], g["rounds"], g["units"], g["units_expected"], g["z"])
            for g in report
            if g["scope"] in ("dealer", "player", "pair")
        }
        assert {k[1] for k in check} == {"dealer", "player", "pair"}
        assert {k[3] for k in check} == {"result", "units"}  # the units test live too
        assert {k: last[k] for k in check} == check

    monkeypatch.setattr(live_stats, "_records_now", counted)
    monkeypatch.setattr(LiveStatistics, "look", _counting(LiveStatistics.look, read))
    looked_up, let_go = groups(log)
    assert read["look"] == sum(n for table, n in read.items() if table != "look")  # its own only
    assert let_go["player"] and let_go["pair"]  # players who left: their sums read back from disk
    as_checked(log, looked_up)
    one_table, let_go = groups(night)  # the dealers of each table change: those gone let go too
    assert let_go["dealer"]
    as_checked(night, one_table)
    monkeypatch.setattr(
        live_stats,
        "_records_of",
        lambda surv, moved: [r for r in live_stats._records_now(surv) if r[:3] in moved],
    )
    read_whole, _ = groups(log)
    assert looked_up == read_whole
    across = {k[1] for k, table, *_ in looked_up if table is None}  # summed over both tables
    assert across == {"dealer", "player", "pair"}
    gc.collect()  # the followers' tables let go: they no longer count in what this process holds


def _counting(look, read: Counter):
    def counted(self, replay, surv):
        read["look"] += 1
        return look(self, replay, surv)

    return counted


def _clumped_and_colluding(log: Path) -> None:
    """A night whose first table has a colluding dealer (``--anomaly collusion``) and, as
    ``--anomaly stacked-shoe`` stacks it, a second shoe that comes in clumps (the cards not drawn
    yet when it begins, sorted by rank in blocks): every round legal."""
    from typer.testing import CliRunner

    from audit.cli import app
    from audit.games.bataille import simulate as bataille
    from audit.simulate.anomalies import STACKED, stack

    new_shoe = bataille.BatailleNight._new_shoe

    def stacked(self) -> None:
        new_shoe(self)
        if self.anomaly is not None and self.shoes == STACKED:
            rest = self.shoe.cards[self.shoe.drawn :]
            stack(rest, bataille.BATAILLE_VALUE)
            self.shoe.cards[self.shoe.drawn :] = rest

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bataille.BatailleNight, "_new_shoe", stacked)
        done = CliRunner().invoke(
            app,
            ["simulate", "-r", "fr-bataille-2007", "--tables", "2", "--rounds", "300"]
            + ["--seed", "1", "--anomaly", "collusion", "-o", str(log)],
        )
    assert done.exit_code == 0, done.output


def _linked_part(message: str) -> str:
    """What a linked anomaly's message says of the shoes (after the group's own sentence)."""
    return message.split("; ", 1)[1] if "; " in message else ""


def test_a_live_player_anomaly_is_linked_to_a_clumped_shoe_of_his_table(tmp_path):
    """As the night's report links them: the pair's (and player's) anomaly names the clumped shoe
    of its table (``linked_shoes``) and whether he was its beneficiary or its victim."""
    log = tmp_path / "night.del"
    _clumped_and_colluding(log)
    live = anomalies(run("follow", "--once", "-f", "jsonl", "--heartbeat", "0", str(log)).stdout)
    report = json.loads(run("check", "-f", "json", str(log)).stdout)["statistics"]["anomalies"]
    checked = {(a["scope"], a["id"], a["test"]): a for a in report}
    shoe = next(a for a in live if a["scope"] == "shoe" and a["test"] == "order")
    linked = [a for a in live if a.get("linked_shoes")]
    assert linked and {a["scope"] for a in linked} <= {"player", "pair"}
    assert all(a["linked_shoes"] == [shoe["id"]] and a["line"] > shoe["line"] for a in linked)
    assert any(a["id"] == "DX777+PX777" for a in linked)
    assert all("he was the beneficiary" in a["message"] for a in linked if a["z"] < 0)
    both = [a for a in live if (a["scope"], a["id"], a["test"]) in checked]
    assert any(a.get("linked_shoes") for a in both)
    for a in both:  # where both name the group, both link it alike
        night = checked[(a["scope"], a["id"], a["test"])]
        assert a.get("linked_shoes") == night.get("linked_shoes")
        assert _linked_part(a["message"]) == _linked_part(night["message"])


def _card(ident: str, p: float, path: str = "night.del") -> Group:
    return Group("shoe", ident, path, "order", ident.rsplit("#", 1)[0], "r", 60, p_exact=p, p=p)


def _player(p: float, z: float, ident: str = "P1") -> Group:
    g = _group(120, p, ident)
    g.z, g.shoes = z, ("T1#1", "T1#2")
    g.message = f"player {ident} won"
    return g


def test_a_shoe_found_in_the_same_look_or_before_a_restart_is_linked():
    told: list = []
    live = LiveStatistics(None, told.append, alpha=0.001)  # type: ignore[arg-type]
    live._test(_player(1e-12, -9.0), line=50)  # players are tested before their table's shoe
    live._test(_card("T1#2", 1e-40), line=50)
    live._tell()
    assert [(a.group.scope, a.linked) for a in told] == [("player", ("T1#2",)), ("shoe", ())]
    assert told[0].message.endswith(
        "his rounds include shoe T1#2, whose cards are an anomaly too: he was the beneficiary"
    )
    assert told[0].as_object()["linked_shoes"] == ["T1#2"]
    assert anomaly_line(told[0]).rstrip().endswith("he was the beneficiary")  # the text line too
    # restarted: the shoe written before is known from the state's anomalies
    told.clear()
    again = LiveStatistics(
        None,  # type: ignore[arg-type]
        told.append,
        alpha=0.001,
        reported=[("night.del", "shoe", "T1#2", "order"), ("other.del", "shoe", "T1#3", "order")],
    )
    look(again, _player(1e-12, 9.0, "P2"), line=80)
    assert told[0].linked == ("T1#2",) and "he was the victim" in told[0].message


def test_a_player_written_before_his_shoe_crossed_is_not_written_again():
    told: list = []
    live = LiveStatistics(None, told.append, alpha=0.001)  # type: ignore[arg-type]
    look(live, _player(1e-12, -9.0), line=50)
    look(live, _card("T1#2", 1e-40), line=90)
    look(live, _player(1e-15, -9.5), line=200)  # crossing again: reported once, at its first
    assert [(a.group.scope, a.linked) for a in told] == [("player", ()), ("shoe", ())]
    assert "linked_shoes" not in told[0].as_object()


def test_a_look_is_kept_once_all_its_anomalies_are_written(tmp_path):
    """The state is written after each anomaly's line: a look's looks are kept (committed) only
    once all its anomalies are written, and each counts as reported once written, so that a kill
    between two of them leaves the look to be taken again, and the second written, after a restart."""
    import sqlite3

    kept = str(tmp_path / "state.json.looks")
    seen: list = []

    def written(a) -> None:
        live.store.commit()  # as the state's write after each line
        other = sqlite3.connect(kept)
        committed = other.execute("SELECT count(*) FROM looks").fetchone()[0]
        other.close()
        seen.append((a.group.id, sorted(k[2] for k in live.reported), committed))

    live = LiveStatistics(None, written, alpha=0.001, kept=kept)  # type: ignore[arg-type]
    live._test(_player(1e-12, -9.0), line=50)
    live._test(_card("T1#2", 1e-40), line=50)
    live._tell()
    assert seen == [("P1", ["P1"], 0), ("T1#2", ["P1", "T1#2"], 0)]
    live.store.commit()  # the next write of the state keeps them
    again = LiveStatistics(None, written, kept=kept, run=live.store.run)  # type: ignore[arg-type]
    assert again.store.resumed and len(again.looks) == 2
    assert again.looks[("night.del", "shoe", "T1#2", "order")] == (1, 60)


def test_a_look_tests_each_group_once(stacked, monkeypatch):
    """A look makes its groups as the report's build does (``statistics.made_groups``): each group
    it moved is observed and tested once, a shoe's card tests too (they once were tested again with
    the next group of another scope)."""
    from audit.follow.tail import Follower
    from audit.rulesets import Library

    night, _ = stacked
    library = Library.load()
    library.statistics = True
    live = LiveStatistics(library, lambda a: None)
    looks: list[list] = []
    real_look = LiveStatistics._look

    def look(self, *args):
        looks.append([])
        return real_look(self, *args)

    monkeypatch.setattr(LiveStatistics, "_look", look)
    live.observe = lambda g: looks[-1].append(g.key)
    follower = Follower(library, [str(night)], lambda p, f: None, {}, None, live)
    follower.poll()
    follower.finish()
    follower.close()
    seen = [key for keys in looks for key in keys]
    assert any(key[1] == "shoe" and key[3] in ("ranks", "order") for key in seen)
    for keys in looks:
        assert len(keys) == len(set(keys)), Counter(keys).most_common(3)
