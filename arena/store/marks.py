"""Marks: a counter per kind of change (``marks`` table, migration 0012), bumped in the
transaction that makes the change, so that a reader who keeps something derived from it (the
web's leaderboard, its tournament filter) tells "changed since" by one row's read instead of a
pass over a table. The increment is atomic (``value = value + 1``): two writers never lose a
bump, the row being locked until the first commits. A writer bumps after its other writes'
locks, the order every writer takes."""

from __future__ import annotations

from sqlalchemy import Update, select, update
from sqlalchemy.orm import Session

from arena.store.models import Mark

RATINGS = "ratings"
"""Any stored rating written (a match rated, a version's first rating, a rebuild, a bulk load)."""
TOURNAMENTS = "tournaments"
"""A tournament created, or its status changed (finished, cancelled, running again)."""
ANALYSES = "analyses"
"""A match's analysis stored (or replaced)."""
KEYS = (RATINGS, TOURNAMENTS, ANALYSES)


def bump_sql(key: str) -> Update:
    """The bump, for a writer on a plain connection."""
    return update(Mark).where(Mark.key == key).values(value=Mark.value + 1)


def bump(s: Session, key: str) -> None:
    s.execute(bump_sql(key))


def read(s: Session, key: str) -> int:
    return int(s.scalar(select(Mark.value).where(Mark.key == key)) or 0)


def read_all(s: Session) -> dict[str, int]:
    """Every mark in one read (a key the database lacks reads 0)."""
    found = {k: int(v) for k, v in s.execute(select(Mark.key, Mark.value)).all()}
    return {k: found.get(k, 0) for k in KEYS}
