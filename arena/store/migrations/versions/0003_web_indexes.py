"""web indexes: matches by bot and by tournament, in recorded order

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 09:45:00

The web arena asks for a bot's newest matches (``WHERE seat0_version_id = ? … ORDER BY id DESC
LIMIT n``) and, for every live tournament page, twice a second for the count and newest sequence
of a tournament's matches. The single-column indexes on ``seat0_version_id``,
``seat1_version_id`` and ``tournament_id`` become ``(column, id)``: the same lookups, and the
rows come out already in recorded order (PostgreSQL reads the newest n without sorting, and
answers count/max from the index alone). SQLite's indexes already end with the rowid, so there
they keep their shape; the number of indexes, and so the cost of recording a match, is
unchanged.
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

COLUMNS = ("seat0_version_id", "seat1_version_id", "tournament_id")


def upgrade() -> None:
    for column in COLUMNS:
        op.create_index(f"ix_matches_{column}_id", "matches", [column, "id"], unique=False)
        op.drop_index(f"ix_matches_{column}", table_name="matches")


def downgrade() -> None:
    for column in COLUMNS:
        op.create_index(f"ix_matches_{column}", "matches", [column], unique=False)
        op.drop_index(f"ix_matches_{column}_id", table_name="matches")
