"""The units test of a statistics group: its main bets and their results per unit staked.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

#: a figure per unit staked, as the report writes it (four decimals)
UNITS = sa.String(40)


def upgrade() -> None:
    with op.batch_alter_table("audit_stat_group") as batch:
        batch.add_column(sa.Column("bets", sa.Integer))
        batch.add_column(sa.Column("units", UNITS))
        batch.add_column(sa.Column("units_expected", UNITS))
        batch.add_column(sa.Column("units_sd", UNITS))


def downgrade() -> None:
    with op.batch_alter_table("audit_stat_group") as batch:
        for name in ("units_sd", "units_expected", "units", "bets"):
            batch.drop_column(name)
