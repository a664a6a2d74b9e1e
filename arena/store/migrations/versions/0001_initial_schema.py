"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-12-01 03:04:46.435996
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_tokens")),
        sa.UniqueConstraint("name", name=op.f("uq_api_tokens_name")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_api_tokens_token_hash")),
    )
    op.create_table(
        "settings",
        sa.Column("key", sa.String(length=100), nullable=False),
        sa.Column("value", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_settings")),
    )
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
    )
    op.create_table(
        "bots",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("owner_token_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["owner_token_id"], ["api_tokens.id"], name=op.f("fk_bots_owner_token_id_api_tokens")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bots")),
        sa.UniqueConstraint("name", name=op.f("uq_bots_name")),
    )
    op.create_table(
        "bot_versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("version_label", sa.String(length=100), nullable=False),
        sa.Column("content_hash", sa.String(length=128), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"], name=op.f("fk_bot_versions_bot_id_bots")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bot_versions")),
        sa.UniqueConstraint(
            "bot_id", "content_hash", name=op.f("uq_bot_versions_bot_id_content_hash")
        ),
    )
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_bot_versions_bot_id"), ["bot_id"], unique=False)

    op.create_table(
        "ratings",
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Double(), nullable=False),
        sa.Column("sigma", sa.Double(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("faults", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_versions.id"],
            name=op.f("fk_ratings_bot_version_id_bot_versions"),
        ),
        sa.PrimaryKeyConstraint("bot_version_id", name=op.f("pk_ratings")),
    )
    op.create_table(
        "tournament_games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("pair_id", sa.Integer(), nullable=True),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("seat0_version_id", sa.Integer(), nullable=False),
        sa.Column("seat1_version_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("match_id", sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(
            ["seat0_version_id"],
            ["bot_versions.id"],
            name=op.f("fk_tournament_games_seat0_version_id_bot_versions"),
        ),
        sa.ForeignKeyConstraint(
            ["seat1_version_id"],
            ["bot_versions.id"],
            name=op.f("fk_tournament_games_seat1_version_id_bot_versions"),
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_games_tournament_id_tournaments"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournament_games")),
        sa.UniqueConstraint("match_id", name=op.f("uq_tournament_games_match_id")),
        sa.UniqueConstraint(
            "tournament_id", "ordinal", name=op.f("uq_tournament_games_tournament_id_ordinal")
        ),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("engine_version", sa.String(length=50), nullable=False),
        sa.Column("seat0_version_id", sa.Integer(), nullable=False),
        sa.Column("seat1_version_id", sa.Integer(), nullable=False),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("score0", sa.Integer(), nullable=False),
        sa.Column("score1", sa.Integer(), nullable=False),
        sa.Column("hands_played", sa.Integer(), nullable=False),
        sa.Column("termination", sa.String(length=40), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("faults0", sa.Integer(), nullable=False),
        sa.Column("faults1", sa.Integer(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("decisions", sa.LargeBinary(), nullable=False),
        sa.Column("decision_count", sa.Integer(), nullable=False),
        sa.Column("mean_decision_us0", sa.Integer(), nullable=True),
        sa.Column("mean_decision_us1", sa.Integer(), nullable=True),
        sa.Column("max_decision_us0", sa.Integer(), nullable=True),
        sa.Column("max_decision_us1", sa.Integer(), nullable=True),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=False),
        sa.Column("recorded_at", sa.DateTime(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=True),
        sa.Column("tournament_game_id", sa.Integer(), nullable=True),
        sa.Column("pair_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["seat0_version_id"],
            ["bot_versions.id"],
            name=op.f("fk_matches_seat0_version_id_bot_versions"),
        ),
        sa.ForeignKeyConstraint(
            ["seat1_version_id"],
            ["bot_versions.id"],
            name=op.f("fk_matches_seat1_version_id_bot_versions"),
        ),
        sa.ForeignKeyConstraint(
            ["tournament_game_id"],
            ["tournament_games.id"],
            name=op.f("fk_matches_tournament_game_id_tournament_games"),
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournaments.id"], name=op.f("fk_matches_tournament_id_tournaments")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
        sa.UniqueConstraint("match_id", name=op.f("uq_matches_match_id")),
    )
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_matches_pair_id"), ["pair_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_matches_seat0_version_id"), ["seat0_version_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_matches_seat1_version_id"), ["seat1_version_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_matches_tournament_game_id"), ["tournament_game_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_matches_tournament_id"), ["tournament_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_matches_tournament_id"))
        batch_op.drop_index(batch_op.f("ix_matches_tournament_game_id"))
        batch_op.drop_index(batch_op.f("ix_matches_seat1_version_id"))
        batch_op.drop_index(batch_op.f("ix_matches_seat0_version_id"))
        batch_op.drop_index(batch_op.f("ix_matches_pair_id"))

    op.drop_table("matches")
    op.drop_table("tournament_games")
    op.drop_table("ratings")
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_bot_versions_bot_id"))

    op.drop_table("bot_versions")
    op.drop_table("bots")
    op.drop_table("tournaments")
    op.drop_table("settings")
    op.drop_table("api_tokens")
