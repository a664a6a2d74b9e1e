"""marks and kept summaries: a counter per kind of change (``ratings``: bumped by every rating
update; ``tournaments``, ``analyses``), so the web knows the ratings changed by one row's read,
not a pass over every rating;
and a tournament's summary (its standings) stored once it is over, with what it was computed from

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03 20:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    marks = op.create_table(
        "marks",
        sa.Column("key", sa.String(length=40), nullable=False),
        sa.Column("value", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_marks")),
    )
    op.bulk_insert(marks, [{"key": k, "value": 0} for k in ("ratings", "tournaments", "analyses")])
    op.create_table(
        "tournament_summaries",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("basis", sa.String(length=400), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_summaries_tournament_id_tournaments"),
        ),
        sa.PrimaryKeyConstraint("tournament_id", name=op.f("pk_tournament_summaries")),
    )


def downgrade() -> None:
    op.drop_table("tournament_summaries")
    op.drop_table("marks")
