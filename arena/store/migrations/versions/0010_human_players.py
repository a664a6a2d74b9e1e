"""people as players: a bot row is a bot or a human; a signed-in person's row names its account

Revision ID: 0010
Revises: 0008
Create Date: 2026-12-03 08:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMNs, no foreign key (as 0005 did): on SQLite a key means a batch copy of
    # bots, a table the versions refer to, refused under foreign_keys=ON once rows exist.
    # Accounts are never deleted (disabling keeps the row), so an id always names one.
    op.add_column(
        "bots", sa.Column("kind", sa.String(length=10), server_default="bot", nullable=False)
    )
    op.add_column("bots", sa.Column("account_id", sa.Integer(), nullable=True))
    op.create_index("ix_bots_account_id", "bots", ["account_id"], unique=True)
    op.create_index("ix_bots_kind", "bots", ["kind"])
    # The people who played at /play before: their matches were recorded under "human:<name>".
    op.execute("UPDATE bots SET kind = 'human' WHERE name LIKE 'human:%'")


def downgrade() -> None:
    # Plain DROP COLUMNs (SQLite 3.35+), for the same reason: no copy of bots.
    op.drop_index("ix_bots_kind", table_name="bots")
    op.drop_index("ix_bots_account_id", table_name="bots")
    op.drop_column("bots", "account_id")
    op.drop_column("bots", "kind")
