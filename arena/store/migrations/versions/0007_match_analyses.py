"""match analyses: each match's double-dummy analysis with its solver version

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02 17:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "match_analyses",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_pk", sa.Integer(), nullable=False),
        sa.Column("solver_version", sa.String(length=20), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("hands", sa.Integer(), nullable=False),
        sa.Column("loss0", sa.Integer(), nullable=False),
        sa.Column("loss1", sa.Integer(), nullable=False),
        sa.Column("blunders0", sa.Integer(), nullable=False),
        sa.Column("blunders1", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_pk"], ["matches.id"], name=op.f("fk_match_analyses_match_pk_matches")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_match_analyses")),
        sa.UniqueConstraint("match_pk", name=op.f("uq_match_analyses_match_pk")),
    )
    with op.batch_alter_table("match_analyses", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_match_analyses_solver_version"), ["solver_version"])


def downgrade() -> None:
    with op.batch_alter_table("match_analyses", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_match_analyses_solver_version"))
    op.drop_table("match_analyses")
