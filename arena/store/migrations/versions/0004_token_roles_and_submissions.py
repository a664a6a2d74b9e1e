"""token roles and the submissions the service's quotas count

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("role", sa.String(length=20), server_default="member", nullable=False)
        )
    op.create_table(
        "submissions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_id", sa.Integer(), nullable=True),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("stored_bytes", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["token_id"], ["api_tokens.id"], name=op.f("fk_submissions_token_id_api_tokens")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_submissions")),
    )
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_submissions_created_at"), ["created_at"])
        batch_op.create_index(batch_op.f("ix_submissions_token_id"), ["token_id"])


def downgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_submissions_token_id"))
        batch_op.drop_index(batch_op.f("ix_submissions_created_at"))
    op.drop_table("submissions")
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.drop_column("role")
