"""accounts with passwords, invite codes, refused sign-ins; every API token becomes an account

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02 18:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("token_id", sa.Integer(), nullable=False),
        sa.Column("password_hash", sa.String(length=200), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("disabled_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["token_id"], ["api_tokens.id"], name=op.f("fk_accounts_token_id_api_tokens")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("name", name=op.f("uq_accounts_name")),
        sa.UniqueConstraint("token_id", name=op.f("uq_accounts_token_id")),
    )
    op.create_table(
        "invite_codes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("created_by", sa.String(length=100), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("used_by", sa.Integer(), nullable=True),
        sa.Column("used_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["used_by"], ["accounts.id"], name=op.f("fk_invite_codes_used_by_accounts")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_invite_codes")),
        sa.UniqueConstraint("code_hash", name=op.f("uq_invite_codes_code_hash")),
    )
    op.create_table(
        "sign_in_failures",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("account_name", sa.String(length=100), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sign_in_failures")),
    )
    with op.batch_alter_table("sign_in_failures", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sign_in_failures_account_name"), ["account_name"])
        batch_op.create_index(batch_op.f("ix_sign_in_failures_address"), ["address"])
        batch_op.create_index(batch_op.f("ix_sign_in_failures_at"), ["at"])
    # Every token's owner becomes an account of the same name and role-less identity (the role
    # stays on the token), with no password yet: signed in with the token, it can set one.
    op.execute(
        "INSERT INTO accounts (name, token_id, password_hash, created_at, disabled_at) "
        "SELECT name, id, NULL, created_at, NULL FROM api_tokens ORDER BY id"
    )


def downgrade() -> None:
    with op.batch_alter_table("sign_in_failures", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sign_in_failures_at"))
        batch_op.drop_index(batch_op.f("ix_sign_in_failures_address"))
        batch_op.drop_index(batch_op.f("ix_sign_in_failures_account_name"))
    op.drop_table("sign_in_failures")
    op.drop_table("invite_codes")
    op.drop_table("accounts")
