"""The order ratings are applied in: by tournament, then schedule position.

TrueSkill updates do not commute, so the arena's ratings depend on the order in which matches
are applied. With K matches at once, matches finish, and are recorded, in an order nobody
controls; applying them as they are recorded would make the ratings depend on timing. Instead
every match gets a fixed place, ``matches.rating_order``:

- a tournament's match: ``(2 · tournament id) · 2³² + ordinal`` (its schedule position);
- a single match (not in a tournament): ``(2 · T + 1) · 2³² + its id``, where T is the newest
  tournament when it was recorded: after that tournament's matches, before the next one's.

and ratings are the updates of the *applied* matches in that order. A tournament's match is
applied once every earlier game of its schedule is recorded (its prefix is complete), or once
the tournament is no longer running (finished, decided early, cancelled: the gaps are for
good); until then it is recorded but waits. So within a tournament results are applied in
schedule order whatever K was, and a resumed or SIGKILLed run changes nothing: what is recorded
is in the database, and what is applied follows from it.

A tournament whose stored config says ``"rating_order": "recorded"`` (``RECORDED``) is rated as
it is recorded instead: each of its matches takes a single match's place when it is recorded
and is applied at once. The ladder's pairs are such tournaments: pairs are chosen by what has
been played, so no fixed order exists to keep, and several pairs played at once would otherwise
place a later-recorded match before one already applied (the pairs' tournament ids interleave
with their results), and rebuild every rating for it.

When a match's turn comes after a later-placed match was already applied (two tournaments
recorded at once, a single match played during a tournament), the ratings are rebuilt from the
applied matches in order: slower, but exact. ``recompute`` does the same rebuild, and gives the
same figures bit for bit, since both apply the same updates in the same order from the same
start. Every application holds one lock (PostgreSQL: a transaction advisory lock; SQLite: its
write lock), so the check "does it come after everything applied?" and the update are atomic.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import ColumnElement, func, select, text
from sqlalchemy.orm import Session, load_only

from arena.ratings import Rater
from arena.store import marks
from arena.store.models import (
    BotVersion,
    Match,
    Rating,
    Setting,
    Tournament,
    TournamentGame,
)
from arena.store.rows import GameStatus, TournamentStatus

GROUP = 2**32
"""Positions within a tournament (ordinals) and match ids stay below 2³²."""
PG_RATINGS_LOCK = 0x5350_4144_5241
"""PostgreSQL advisory lock key held while ratings are applied."""
ORDER_KEY = "rating_order"
"""The key of a tournament's stored config that chooses how its matches are placed."""
RECORDED = "recorded"
"""``ORDER_KEY``'s value for a tournament rated as its matches are recorded (module docstring)."""
STALE_KEY = "ratings_stale"
"""A settings row present when the stored ratings were computed in another order (migration
0002): the next application rebuilds them."""


def mark_ratings_changed(s: Session) -> None:
    """Bump the ratings' mark (``arena.store.marks``) in the transaction that writes a rating."""
    marks.bump(s, marks.RATINGS)


_COLUMNS = (
    Match.id,
    Match.rating_order,
    Match.rating_applied,
    Match.seat0_version_id,
    Match.seat1_version_id,
    Match.winner,
    Match.faults0,
    Match.faults1,
)
"""What applying a match reads: never its decision record."""


def tournament_order(tournament_id: int, ordinal: int) -> int:
    return 2 * tournament_id * GROUP + ordinal


def single_order(s: Session, match_pk: int) -> int:
    newest = s.scalar(select(func.max(Tournament.id))) or 0
    return (2 * newest + 1) * GROUP + match_pk


def rated_as_recorded(config: dict[str, object] | None) -> bool:
    return config is not None and config.get(ORDER_KEY) == RECORDED


def place(s: Session, match_pk: int, tournament_id: int | None, ordinal: int | None) -> int:
    """A newly recorded match's place in the order (module docstring)."""
    if tournament_id is None or ordinal is None:
        return single_order(s, match_pk)
    t = s.get(Tournament, tournament_id)
    if t is not None and rated_as_recorded(t.config):
        return single_order(s, match_pk)
    return tournament_order(tournament_id, ordinal)


def lock(s: Session, dialect: str) -> None:
    """Serialize rating application (SQLite's write transactions are serial already)."""
    if dialect == "postgresql":
        s.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_RATINGS_LOCK})


def _ready(s: Session, tournament_id: int | None) -> list[Match]:
    """Rated matches not yet applied whose turn has come, in rating order."""
    where: list[ColumnElement[bool]] = [Match.rated.is_(True), Match.rating_applied.is_(False)]
    if tournament_id is None:
        where.append(Match.tournament_id.is_(None))
    else:
        where.append(Match.tournament_id == tournament_id)
        t = s.get(Tournament, tournament_id, populate_existing=True)
        if (
            t is not None
            and t.status == TournamentStatus.RUNNING.value
            and not rated_as_recorded(t.config)
        ):
            first_pending = s.scalar(
                select(func.min(TournamentGame.ordinal)).where(
                    TournamentGame.tournament_id == tournament_id,
                    TournamentGame.status == GameStatus.PENDING.value,
                )
            )
            if first_pending is not None:
                where.append(Match.rating_order < tournament_order(tournament_id, first_pending))
    query = select(Match).options(load_only(*_COLUMNS)).where(*where)
    return list(s.scalars(query.order_by(Match.rating_order)))


def apply_ready(s: Session, rater: Rater, dialect: str, tournament_id: int | None) -> list[int]:
    """Apply what has become applicable in ``tournament_id`` (None: single matches); return
    the ids of the matches applied. The caller holds ``lock``."""
    ready = _ready(s, tournament_id)
    stale = s.get(Setting, STALE_KEY) is not None
    if not ready and not stale:
        return []
    last = s.scalar(select(func.max(Match.rating_order)).where(Match.rating_applied.is_(True)))
    for m in ready:
        m.rating_applied = True
    s.flush()
    first = ready[0].rating_order if ready else None
    if stale or (first is not None and last is not None and first < last):
        rebuild(s, rater, dialect)
        return [m.id for m in ready]
    versions = sorted({v for m in ready for v in (m.seat0_version_id, m.seat1_version_id)})
    ratings = {
        r.bot_version_id: r
        for r in s.scalars(
            select(Rating)
            .where(Rating.bot_version_id.in_(versions))
            .order_by(Rating.bot_version_id)
            .with_for_update()
        )
    }
    mark_ratings_changed(s)  # last, after the ratings' locks: the order every writer takes
    for m in ready:
        _apply(rater, ratings, m)
    return [m.id for m in ready]


def apply_all_ready(s: Session, rater: Rater, dialect: str) -> None:
    """Whatever has become applicable anywhere (for ``recompute``)."""
    tournaments = s.scalars(select(Tournament.id).order_by(Tournament.id)).all()
    for m in _ready(s, None):
        m.rating_applied = True
    for tid in tournaments:
        for m in _ready(s, tid):
            m.rating_applied = True
    s.flush()


def rebuild(s: Session, rater: Rater, dialect: str) -> int:
    """Every rating from fresh, by the applied matches in rating order; returns how many."""
    if dialect == "postgresql":
        # Blocks recorders (their FOR UPDATE) until the rebuild commits; reads go on.
        s.execute(text("LOCK TABLE ratings IN EXCLUSIVE MODE"))
    mark_ratings_changed(s)
    ratings = {r.bot_version_id: r for r in s.scalars(select(Rating))}
    mu, sigma = rater.initial()
    for vid in s.scalars(select(BotVersion.id)).all():
        r = ratings.get(vid)
        if r is None:
            r = ratings[vid] = Rating(bot_version_id=vid)
            s.add(r)
        r.mu, r.sigma = mu, sigma
        r.matches = r.wins = r.losses = r.draws = r.faults = 0
    history = s.scalars(
        select(Match)
        .options(load_only(*_COLUMNS))
        .where(Match.rated.is_(True), Match.rating_applied.is_(True))
        .order_by(Match.rating_order)
    ).all()
    for m in history:
        _apply(rater, ratings, m)
    stale = s.get(Setting, STALE_KEY)
    if stale is not None:
        s.delete(stale)
    return len(history)


def _apply(rater: Rater, ratings: dict[int, Rating], m: Match) -> None:
    """One rated match's update: TrueSkill and the tallies."""
    pair: Sequence[Rating] = (ratings[m.seat0_version_id], ratings[m.seat1_version_id])
    a, b = pair
    (a.mu, a.sigma), (b.mu, b.sigma) = rater.rate((a.mu, a.sigma), (b.mu, b.sigma), m.winner)
    for seat, r in enumerate(pair):
        r.matches += 1
        r.faults += (m.faults0, m.faults1)[seat]
        if m.winner is None:
            r.draws += 1
        elif m.winner == seat:
            r.wins += 1
        else:
            r.losses += 1
