"""bot versions record their owner; a match records why it is not rated

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02 17:00:00

``bot_versions.owner_token_id``: the owner of each build (its bot's owner), so that matches
between one owner's bots are recorded but never rated, and the ladder never pairs them.
``matches.unrated_reason``: why a match is kept but not rated; existing unrated matches get
theirs from what the store decided then (aborted, self-play, a forfeit with no winner).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN, without a foreign key: on SQLite a key means a batch copy of
    # bot_versions, a table the matches refer to. Tokens are never deleted (revoking keeps
    # the row), so the id always names one.
    op.add_column("bot_versions", sa.Column("owner_token_id", sa.Integer(), nullable=True))
    op.create_index("ix_bot_versions_owner_token_id", "bot_versions", ["owner_token_id"])
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("unrated_reason", sa.String(length=40), nullable=True))
    op.execute(
        "UPDATE bot_versions SET owner_token_id = "
        "(SELECT bots.owner_token_id FROM bots WHERE bots.id = bot_versions.bot_id)"
    )
    op.execute(
        "UPDATE matches SET unrated_reason = CASE "
        "WHEN termination = 'aborted' THEN 'aborted' "
        "WHEN seat0_version_id = seat1_version_id THEN 'self_play' "
        "WHEN termination = 'forfeit_no_start' THEN 'not_started' "
        "ELSE 'no_winner' END "
        "WHERE NOT rated"
    )


def downgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_column("unrated_reason")
    op.drop_index("ix_bot_versions_owner_token_id", table_name="bot_versions")
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.drop_column("owner_token_id")
