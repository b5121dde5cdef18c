"""The first schema: inputs, and per input its tables, dealers, findings and statistics groups.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

MONEY = sa.String(40)


def _input_id() -> sa.Column:
    return sa.Column(
        "input_id", sa.Integer, sa.ForeignKey("audit_input.id", ondelete="CASCADE"), nullable=False
    )


def upgrade() -> None:
    op.create_table(
        "audit_input",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("path", sa.Text, nullable=False),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("lines", sa.BigInteger, nullable=False),
        sa.Column("events", sa.BigInteger, nullable=False),
        sa.Column("first_event", sa.String(64)),
        sa.Column("gaming_day", sa.Date),
        sa.Column("tables", sa.Integer, nullable=False),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("findings", sa.Integer, nullable=False),
        sa.Column("suppressed", sa.Integer, nullable=False),
        sa.Column("alpha", sa.Float),
        sa.Column("audit_version", sa.String(40), nullable=False),
        sa.Column("recorded_at", sa.String(40), nullable=False),
    )
    op.create_index("ix_audit_input_gaming_day", "audit_input", ["gaming_day"])
    op.create_table(
        "audit_table_night",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        _input_id(),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("ruleset", sa.String(80), nullable=False),
        sa.Column("overlay", sa.String(200)),
        sa.Column("house_banked", sa.Boolean, nullable=False),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("drop_amount", MONEY, nullable=False),
        sa.Column("paid", MONEY, nullable=False),
        sa.Column("collected", MONEY, nullable=False),
        sa.UniqueConstraint("input_id", "table_id", name="uq_audit_table_night"),
    )
    op.create_table(
        "audit_dealer_night",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        _input_id(),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("dealer", sa.String(64)),
        sa.Column("rounds", sa.Integer, nullable=False),
    )
    op.create_index("ix_audit_dealer_night_input", "audit_dealer_night", ["input_id"])
    op.create_table(
        "audit_finding",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        _input_id(),
        sa.Column("rule", sa.String(80), nullable=False),
        sa.Column("category", sa.String(40), nullable=False),
        sa.Column("severity", sa.String(16), nullable=False),
        sa.Column("line", sa.BigInteger, nullable=False),
        sa.Column("table_id", sa.String(64)),
        sa.Column("round", sa.Integer),
        sa.Column("time", sa.String(64)),
        sa.Column("dealer", sa.String(64)),
        sa.Column("shoe", sa.Integer),
        sa.Column("fingerprint", sa.String(80), nullable=False),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("suppressed", sa.Boolean, nullable=False),
    )
    op.create_index("ix_audit_finding_input", "audit_finding", ["input_id"])
    op.create_index("ix_audit_finding_rule", "audit_finding", ["rule"])
    op.create_table(
        "audit_stat_group",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        _input_id(),
        sa.Column("scope", sa.String(16), nullable=False),
        sa.Column("ident", sa.String(100), nullable=False),
        sa.Column("test", sa.String(16), nullable=False),
        sa.Column("table_id", sa.String(64)),
        sa.Column("ruleset", sa.String(80)),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("handle", MONEY),
        sa.Column("result", MONEY),
        sa.Column("expected", MONEY),
        sa.Column("sd", MONEY),
        sa.Column("cards", sa.Integer),
        sa.Column("statistic", sa.Float),
        sa.Column("z", sa.Float),
        sa.Column("p", sa.Float),
        sa.Column("p_adjusted", sa.Float),
        sa.Column("message", sa.Text, nullable=False),
    )
    op.create_index("ix_audit_stat_group_input", "audit_stat_group", ["input_id"])


def downgrade() -> None:
    for name in (
        "audit_stat_group",
        "audit_finding",
        "audit_dealer_night",
        "audit_table_night",
        "audit_input",
    ):
        op.drop_table(name)
