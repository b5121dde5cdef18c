"""The store's tables, as SQLAlchemy Core sees them (docs/history.md, "Schema").

One row per recorded input; under it, per table, per dealer at a table, per finding and per
statistics group. Money is kept as the exact decimal string of the report (``"1905.00"``) and
added up in Python as ``Decimal``: SQLite has no exact decimal type, and a sum made by the
program is the same to the cent on every backend. The migrations
(``audit/history/migrations``) create these tables; a test checks that both agree.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Date,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

#: a decimal amount as written in the report: sign, digits, point, two decimals (room to spare)
Money = String(40)
#: a figure per unit staked, as the report writes it (four decimals)
Units = String(40)


def _input_id() -> Column:
    return Column(
        "input_id", Integer, ForeignKey("audit_input.id", ondelete="CASCADE"), nullable=False
    )


inputs = Table(
    "audit_input",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("sha256", String(64), nullable=False, unique=True),
    Column("path", Text, nullable=False),
    Column("size", BigInteger, nullable=False),
    Column("lines", BigInteger, nullable=False),
    Column("events", BigInteger, nullable=False),
    #: the input's first event time, as the log wrote it (None: no event had one)
    Column("first_event", String(64)),
    Column("gaming_day", Date),
    Column("tables", Integer, nullable=False),
    Column("rounds", Integer, nullable=False),
    Column("findings", Integer, nullable=False),
    Column("suppressed", Integer, nullable=False),
    #: the statistics' error rate of the run (None: recorded without statistics)
    Column("alpha", Float),
    Column("audit_version", String(40), nullable=False),
    #: when it was recorded, UTC, ISO 8601
    Column("recorded_at", String(40), nullable=False),
    #: the SHA-256 of its rows chained to the seal of the input recorded before it (``seal.py``);
    #: None for an input recorded before the store was sealed
    Column("seal", String(64)),
    Index("ix_audit_input_gaming_day", "gaming_day"),
)

tables = Table(
    "audit_table_night",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    _input_id(),
    Column("table_id", String(64), nullable=False),
    Column("game", String(40), nullable=False),
    Column("ruleset", String(80), nullable=False),
    Column("overlay", String(200)),
    Column("house_banked", Boolean, nullable=False),
    Column("rounds", Integer, nullable=False),
    Column("drop_amount", Money, nullable=False),
    Column("paid", Money, nullable=False),
    Column("collected", Money, nullable=False),
    UniqueConstraint("input_id", "table_id", name="uq_audit_table_night"),
)

dealers = Table(
    "audit_dealer_night",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    _input_id(),
    Column("table_id", String(64), nullable=False),
    #: None: rounds dealt before any DEALER line of the table
    Column("dealer", String(64)),
    Column("rounds", Integer, nullable=False),
    Index("ix_audit_dealer_night_input", "input_id"),
)

findings = Table(
    "audit_finding",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    _input_id(),
    Column("rule", String(80), nullable=False),
    Column("category", String(40), nullable=False),
    Column("severity", String(16), nullable=False),
    Column("line", BigInteger, nullable=False),
    Column("table_id", String(64)),
    Column("round", Integer),
    Column("time", String(64)),
    Column("dealer", String(64)),
    Column("shoe", Integer),
    Column("fingerprint", String(80), nullable=False),
    Column("message", Text, nullable=False),
    #: accepted by the run's baseline (reported as suppressed)
    Column("suppressed", Boolean, nullable=False),
    Index("ix_audit_finding_input", "input_id"),
    Index("ix_audit_finding_rule", "rule"),
)

groups = Table(
    "audit_stat_group",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    _input_id(),
    Column("scope", String(16), nullable=False),
    Column("ident", String(100), nullable=False),
    Column("test", String(16), nullable=False),
    Column("table_id", String(64)),
    Column("ruleset", String(80)),
    Column("rounds", Integer, nullable=False),
    Column("handle", Money),
    Column("result", Money),
    Column("expected", Money),
    Column("sd", Money),
    Column("cards", Integer),
    Column("statistic", Float),
    Column("z", Float),
    Column("p", Float),
    #: set when the group was an anomaly of its run (Holm-corrected p below the run's alpha)
    Column("p_adjusted", Float),
    Column("message", Text, nullable=False),
    #: the units test (test "units"): main bets, their results per unit staked, its expectation, sd
    Column("bets", Integer),
    Column("units", Units),
    Column("units_expected", Units),
    Column("units_sd", Units),
    Index("ix_audit_stat_group_input", "input_id"),
)
