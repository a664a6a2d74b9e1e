"""people as players: a bot row is a bot or a human; a signed-in person's row names its account

Revision ID: 0010
Revises: 0008
Create Date: 2026-12-03 08:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bots", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("kind", sa.String(length=10), server_default="bot", nullable=False)
        )
        batch_op.add_column(sa.Column("account_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_bots_account_id_accounts"), "accounts", ["account_id"], ["id"]
        )
        batch_op.create_index(batch_op.f("ix_bots_account_id"), ["account_id"], unique=True)
        batch_op.create_index(batch_op.f("ix_bots_kind"), ["kind"])
    # The people who played at /play before: their matches were recorded under "human:<name>".
    op.execute("UPDATE bots SET kind = 'human' WHERE name LIKE 'human:%'")


def downgrade() -> None:
    with op.batch_alter_table("bots", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_bots_kind"))
        batch_op.drop_index(batch_op.f("ix_bots_account_id"))
        batch_op.drop_constraint(batch_op.f("fk_bots_account_id_accounts"), type_="foreignkey")
        batch_op.drop_column("account_id")
        batch_op.drop_column("kind")
