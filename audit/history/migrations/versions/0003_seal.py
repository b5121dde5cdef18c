"""The seal of each recorded input: its rows chained to the input recorded before it.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # the inputs recorded before keep no seal: ``audit history verify`` counts them as unsealed
    with op.batch_alter_table("audit_input") as batch:
        batch.add_column(sa.Column("seal", sa.String(64)))


def downgrade() -> None:
    with op.batch_alter_table("audit_input") as batch:
        batch.drop_column("seal")
