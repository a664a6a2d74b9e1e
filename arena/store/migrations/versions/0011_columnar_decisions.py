"""matches' decision records in the columnar form (arena.referee.record.encode_decisions)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03 13:00:00
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

from arena.referee.record import COLUMNAR, decode_decisions, encode_decisions, encode_decisions_v0

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

BATCH = 500
"""Rows read and rewritten at a time: a long history is never all in memory."""


def upgrade() -> None:
    # No column changes: each record is rewritten, decision for decision the same.
    _rewrite(lambda blob: blob[:1] != bytes((COLUMNAR,)), encode_decisions)


def downgrade() -> None:
    _rewrite(lambda blob: blob[:1] == bytes((COLUMNAR,)), encode_decisions_v0)


def _rewrite(needs: Callable[[bytes], bool], encode: Callable[..., bytes]) -> None:
    conn = op.get_bind()
    matches = sa.table(
        "matches", sa.column("id", sa.Integer), sa.column("decisions", sa.LargeBinary)
    )
    change = (
        sa.update(matches)
        .where(matches.c.id == sa.bindparam("row_id"))
        .values(decisions=sa.bindparam("blob"))
    )
    last = 0
    while True:
        rows = conn.execute(
            sa.select(matches.c.id, matches.c.decisions)
            .where(matches.c.id > last)
            .order_by(matches.c.id)
            .limit(BATCH)
        ).all()
        if not rows:
            return
        last = rows[-1].id
        updates = [
            {"row_id": row.id, "blob": encode(decode_decisions(bytes(row.decisions)))}
            for row in rows
            if row.decisions and needs(bytes(row.decisions))
        ]
        if updates:
            conn.execute(change, updates)
