"""The store's read API for pages and reports: plain rows read in one query each, where the
facade's per-thing methods would build ORM objects or take several round trips (a bot with its
versions, ratings and owner; its record against every opponent; the leaderboard as plain rows;
what changed in a tournament since a sequence; a fingerprint of the ratings).

Every statement is SQLAlchemy Core with bound parameters. Reads only: nothing here writes.
``Store`` offers these methods; what they return is frozen dataclasses defined here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import case, func, literal, select, union_all

from arena.ratings import conservative_score
from arena.store import marks
from arena.store.core import StoreCore
from arena.store.errors import NotFoundError
from arena.store.models import ApiToken, Bot, BotVersion, Match, Rating, Tournament
from arena.store.rows import HUMAN, RatingInfo, player_filter_kinds


@dataclass(frozen=True, slots=True)
class VersionRow:
    id: int
    label: str
    content_hash: str
    source: str
    created_at: datetime
    rating: RatingInfo | None


@dataclass(frozen=True, slots=True)
class BotDetail:
    id: int
    name: str
    created_at: datetime
    owner_token_id: int | None
    owner: str | None
    versions: tuple[VersionRow, ...]
    """Oldest first."""
    human: bool = False
    """A person's player (``/play``), not a bot."""

    @property
    def version_ids(self) -> list[int]:
        return [v.id for v in self.versions]


@dataclass(frozen=True, slots=True)
class Opponent:
    """A bot's record against one opponent bot (all versions of each), across tournaments."""

    bot: str
    matches: int
    wins: int
    losses: int
    draws: int
    aborted: int
    points_for: int
    points_against: int
    faults: int
    """This bot's faults in those matches."""


@dataclass(frozen=True, slots=True)
class BoardRow:
    bot: str
    version: str
    mu: float
    sigma: float
    matches: int
    wins: int
    losses: int
    draws: int
    faults: int
    bot_version_id: int
    human: bool = False


def _rating_columns() -> tuple[Any, list[Any]]:
    """Which matches are in the ratings, and in what order they are applied.

    A store that orders ratings explicitly (``matches.rating_order``, with
    ``matches.rating_applied``) is followed; otherwise ratings go in recorded order."""
    applied = getattr(Match, "rating_applied", None)
    order = getattr(Match, "rating_order", None)
    where = applied.is_(True) if applied is not None else Match.rated.is_(True)
    return where, ([order, Match.id] if order is not None else [Match.id])


class ReadsMixin(StoreCore):
    """Reads for pages and reports (``arena.web``, benchmarks), over the store's own sessions."""

    def bot_detail(self, name: str) -> BotDetail:
        """A bot, its versions with their ratings, and its owner's token name."""
        with self._read() as s:
            row = s.execute(
                select(Bot, ApiToken.name)
                .outerjoin(ApiToken, ApiToken.id == Bot.owner_token_id)
                .where(Bot.name == name)
            ).first()
            if row is None:
                raise NotFoundError(f"no bot named {name!r}")
            bot, owner = row
            versions = s.execute(
                select(BotVersion, Rating)
                .outerjoin(Rating, Rating.bot_version_id == BotVersion.id)
                .where(BotVersion.bot_id == bot.id)
                .order_by(BotVersion.id)
            ).all()
        return BotDetail(
            id=bot.id,
            name=bot.name,
            created_at=bot.created_at,
            owner_token_id=bot.owner_token_id,
            owner=owner,
            versions=tuple(
                VersionRow(
                    id=v.id,
                    label=v.version_label,
                    content_hash=v.content_hash,
                    source=v.source,
                    created_at=v.created_at,
                    rating=None
                    if r is None
                    else RatingInfo(
                        r.bot_version_id,
                        r.mu,
                        r.sigma,
                        r.matches,
                        r.wins,
                        r.losses,
                        r.draws,
                        r.faults,
                    ),
                )
                for v, r in versions
            ),
            human=bot.kind == HUMAN,
        )

    def head_to_head(self, version_ids: Sequence[int]) -> list[Opponent]:
        """Against every opponent bot, most-played first; self-play left out."""
        if not version_ids:
            return []
        ids = list(version_ids)
        aborted = "aborted"

        def side(seat: int):
            me = Match.seat0_version_id if seat == 0 else Match.seat1_version_id
            opp = Match.seat1_version_id if seat == 0 else Match.seat0_version_id
            mine = Match.score0 if seat == 0 else Match.score1
            theirs = Match.score1 if seat == 0 else Match.score0
            my_faults = Match.faults0 if seat == 0 else Match.faults1
            return select(
                opp.label("opp"),
                case((Match.termination == aborted, None), else_=Match.winner).label("winner"),
                literal(seat).label("seat"),
                case((Match.termination == aborted, 1), else_=0).label("aborted"),
                mine.label("pf"),
                theirs.label("pa"),
                my_faults.label("faults"),
            ).where(me.in_(ids), opp.not_in(ids))

        sides = union_all(side(0), side(1)).subquery()
        played = 1 - sides.c.aborted
        query = (
            select(
                Bot.name,
                func.count(),
                func.sum(case((sides.c.winner == sides.c.seat, 1), else_=0)),
                func.sum(
                    case(
                        ((sides.c.winner.is_not(None)) & (sides.c.winner != sides.c.seat), 1),
                        else_=0,
                    )
                ),
                func.sum(case((sides.c.winner.is_(None), played), else_=0)),
                func.sum(sides.c.aborted),
                func.sum(sides.c.pf),
                func.sum(sides.c.pa),
                func.sum(sides.c.faults),
            )
            .select_from(sides)
            .join(BotVersion, BotVersion.id == sides.c.opp)
            .join(Bot, Bot.id == BotVersion.bot_id)
            .group_by(Bot.name)
            .order_by(func.count().desc(), Bot.name)
        )
        with self._read() as s:
            rows = s.execute(query).all()
        return [
            Opponent(
                bot=name,
                matches=int(n),
                wins=int(w or 0),
                losses=int(lo or 0),
                draws=int(d or 0),
                aborted=int(a or 0),
                points_for=int(pf or 0),
                points_against=int(pa or 0),
                faults=int(f or 0),
            )
            for name, n, w, lo, d, a, pf, pa, f in rows
        ]

    def count_matches(self, version_ids: Sequence[int]) -> int:
        if not version_ids:
            return 0
        ids = list(version_ids)
        with self._read() as s:
            a = s.scalar(
                select(func.count()).select_from(Match).where(Match.seat0_version_id.in_(ids))
            )
            b = s.scalar(
                select(func.count())
                .select_from(Match)
                .where(Match.seat1_version_id.in_(ids), Match.seat0_version_id.not_in(ids))
            )
        return int(a or 0) + int(b or 0)

    def ratings_fingerprint(self) -> tuple[Any, ...]:
        """Changes whenever any stored rating does (a match rated, a version added, a recompute):
        the key of what the web derives from the ratings. One row's read: the ratings' mark,
        which every writer of a rating bumps in its transaction (``arena.store.marks``)."""
        with self._read() as s:
            return (marks.RATINGS, marks.read(s, marks.RATINGS))

    def marks(self) -> dict[str, int]:
        """Every mark (``arena.store.marks``: ratings, tournaments, analyses) in one read."""
        with self._read() as s:
            return marks.read_all(s)

    def rated_match_count(self) -> int:
        """Rated matches whose update is in the ratings."""
        where, _order = _rating_columns()
        with self._read() as s:
            return int(s.scalar(select(func.count()).select_from(Match).where(where)) or 0)

    def rated_in_rating_order(self) -> list[tuple[int, int, int, int | None]]:
        """Every rated match as (sequence, seat 0 version, seat 1 version, winner), in the order
        the ratings apply them."""
        where, order = _rating_columns()
        with self._read() as s:
            rows = s.execute(
                select(Match.id, Match.seat0_version_id, Match.seat1_version_id, Match.winner)
                .where(where)
                .order_by(*order)
            ).all()
        return [(int(a), int(b), int(c), d) for a, b, c, d in rows]

    def tournament_ids_of(self, version_ids: Sequence[int]) -> list[int]:
        """The tournaments these versions played in (from their recorded matches)."""
        if not version_ids:
            return []
        ids = list(version_ids)
        query = union_all(
            select(Match.tournament_id).where(
                Match.seat0_version_id.in_(ids), Match.tournament_id.is_not(None)
            ),
            select(Match.tournament_id).where(
                Match.seat1_version_id.in_(ids), Match.tournament_id.is_not(None)
            ),
        ).subquery()
        with self._read() as s:
            return sorted({int(t) for (t,) in s.execute(select(query.c[0]).distinct())})

    def tournament_match_state(self, tournament_id: int) -> tuple[str, int, int]:
        """(status, matches recorded, highest sequence): cheap, for the live poller."""
        with self._read() as s:
            status = s.scalar(select(Tournament.status).where(Tournament.id == tournament_id))
            if status is None:
                raise NotFoundError(f"no tournament with id {tournament_id}")
            n, top = s.execute(
                select(func.count(), func.max(Match.id)).where(Match.tournament_id == tournament_id)
            ).one()
        return str(status), int(n or 0), int(top or 0)

    def tournament_match_sequences(self, tournament_id: int) -> set[int]:
        with self._read() as s:
            return set(
                s.scalars(select(Match.id).where(Match.tournament_id == tournament_id)).all()
            )

    def leaderboard_rows(self, min_matches: int, players: str = "all") -> list[BoardRow]:
        """Every rated version, ranked as ``Store.leaderboard`` ranks them (mu - 3 sigma, then mu,
        name, age), read as plain rows: the store's facade builds ORM objects, too slow for a page
        of a thousand bots."""
        with self._read() as s:
            rows = s.execute(
                select(
                    Rating.bot_version_id,
                    Rating.mu,
                    Rating.sigma,
                    Rating.matches,
                    Rating.wins,
                    Rating.losses,
                    Rating.draws,
                    Rating.faults,
                    Bot.name,
                    BotVersion.version_label,
                    BotVersion.content_hash,
                    Bot.kind,
                )
                .join(BotVersion, BotVersion.id == Rating.bot_version_id)
                .join(Bot, Bot.id == BotVersion.bot_id)
                .where(Rating.matches >= min_matches, Bot.kind.in_(player_filter_kinds(players)))
            ).all()
            rows = list(rows)
            shared = {
                (name, label)
                for name, label in s.execute(
                    select(Bot.name, BotVersion.version_label)
                    .join(Bot, Bot.id == BotVersion.bot_id)
                    .group_by(Bot.name, BotVersion.version_label)
                    .having(func.count() > 1)
                ).all()
            }
        rows.sort(key=lambda r: (-conservative_score(r[1], r[2]), -r[1], r[8], r[0]))
        return [
            BoardRow(
                bot=r[8],
                version=f"{r[9]}+{r[10][:8]}" if (r[8], r[9]) in shared else r[9],
                mu=r[1],
                sigma=r[2],
                matches=r[3],
                wins=r[4],
                losses=r[5],
                draws=r[6],
                faults=r[7],
                bot_version_id=r[0],
                human=r[11] == HUMAN,
            )
            for r in rows
        ]
