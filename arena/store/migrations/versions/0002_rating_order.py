"""rating order: ratings applied by tournament, then schedule position

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01 09:20:26.010814

Ratings used to be applied in the order matches were recorded, which with K matches at once
depends on timing. ``matches.rating_order`` is the order they are applied in now (by
tournament, then schedule position: ``arena/store/rating_order.py``), and
``matches.rating_applied`` says whether a match's update is in the ratings table. Existing
matches get their order and count as applied; the stored ratings were computed in the old order,
so the migration marks them stale (settings key ``ratings_stale``) and the next rating update,
or ``arena ratings --recompute``, rebuilds them in the new one.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

GROUP = 4294967296  # 2**32: rating_order = group * 2**32 + position (rating_order.py)


def upgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("rating_order", sa.BigInteger(), nullable=True))
        batch_op.add_column(
            sa.Column("rating_applied", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch_op.create_index(batch_op.f("ix_matches_rating_order"), ["rating_order"], unique=False)

    op.execute(
        f"""
        UPDATE matches SET rating_order = CASE
          WHEN tournament_game_id IS NOT NULL THEN
            2 * tournament_id * {GROUP}
            + (SELECT g.ordinal FROM tournament_games g WHERE g.id = matches.tournament_game_id)
          ELSE
            (2 * COALESCE((SELECT MAX(t.id) FROM tournaments t
                           WHERE t.created_at <= matches.recorded_at), 0) + 1) * {GROUP}
            + matches.id
        END
        """
    )
    matches = sa.table("matches", sa.column("rated", sa.Boolean), sa.column("rating_applied"))
    op.execute(matches.update().values(rating_applied=matches.c.rated))
    settings = sa.table("settings", sa.column("key", sa.String), sa.column("value", sa.JSON))
    rated = op.get_bind().execute(sa.text("SELECT COUNT(*) FROM matches WHERE rated")).scalar()
    if rated:
        op.bulk_insert(settings, [{"key": "ratings_stale", "value": {"since": "revision 0002"}}])


def downgrade() -> None:
    op.execute("DELETE FROM settings WHERE key = 'ratings_stale'")
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_matches_rating_order"))
        batch_op.drop_column("rating_applied")
        batch_op.drop_column("rating_order")
