"""named API tokens: an account holds any number, each acting as the account

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03 08:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "named_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("revoked_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["token_id"], ["api_tokens.id"], name=op.f("fk_named_tokens_token_id_api_tokens")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_named_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_named_tokens_token_hash")),
    )
    with op.batch_alter_table("named_tokens", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_named_tokens_token_id"), ["token_id"])
    # Each token that works today (its hash a SHA-256: neither revoked nor an account's
    # unissued placeholder) becomes its account's first named token, named as the token was;
    # the identity row keeps a placeholder no token can match.
    live = "token_hash NOT LIKE 'revoked:%' AND token_hash NOT LIKE 'account:%'"
    op.execute(
        "INSERT INTO named_tokens (token_id, name, token_hash, created_at, revoked_at) "
        f"SELECT id, name, token_hash, created_at, NULL FROM api_tokens WHERE {live} ORDER BY id"
    )
    op.execute(f"UPDATE api_tokens SET token_hash = 'account:named-' || id WHERE {live}")


def downgrade() -> None:
    # Back to one token per account: each account's oldest live named token becomes its token
    # again (the others stop working).
    first = (
        "SELECT n.token_hash FROM named_tokens n WHERE n.token_id = api_tokens.id "
        "AND n.revoked_at IS NULL ORDER BY n.id LIMIT 1"
    )
    op.execute(f"UPDATE api_tokens SET token_hash = ({first}) WHERE EXISTS ({first})")
    with op.batch_alter_table("named_tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_named_tokens_token_id"))
    op.drop_table("named_tokens")
