"""The store's matches: recording one with its rating update, reading them back.

A match and its rating update are committed in one transaction; ``record_matches`` commits many
such records in one (group commit), each recorded or refused on its own. Ratings are applied not
in the recorded order but by tournament, then schedule position (``rating_order.py``): a
tournament's result that arrives before an earlier game of its schedule waits for it, in the
database, and is applied in the transaction that records that game. The transaction holds one
lock while it applies (a PostgreSQL advisory lock; ``BEGIN IMMEDIATE`` on SQLite), so
``recompute_ratings`` replays the applied matches in the same order and gets the same numbers,
bit for bit.

What is rated: a match that ended by the rules (win, loss, or draw), and a forfeit, which counts
as a loss for the side that forfeited. Kept but not rated, with the reason (``rated.py``):
aborted matches (the arena stopped; a tournament game stays pending and is played again),
matches that never started, forfeits with no winner, a bot version playing itself, and matches
between one owner's bots.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import CursorResult, Table, bindparam, case, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from arena.referee.record import (
    DecisionRecord,
    MatchResult,
    Termination,
    decode_decisions,
    encode_decisions,
)
from arena.rules.ruleset import RuleSet
from arena.store import rating_order
from arena.store.bots import BotsMixin
from arena.store.core import check_seats, check_seed, first_line
from arena.store.errors import AlreadyRecordedError, NotFoundError, StoreError
from arena.store.models import Bot, BotVersion, Match, Rating, Tournament, TournamentGame, utcnow
from arena.store.rated import UnratedReason, member_owners, unrated_reason
from arena.store.ratings_store import RatingsMixin, rating_info
from arena.store.rows import (
    HUMAN,
    GameStatus,
    MatchSummary,
    MatchToRecord,
    RatingInfo,
    RecordedMatch,
    StoredMatch,
)
from arena.store.tournaments import TournamentsMixin


class MatchesMixin(BotsMixin, TournamentsMixin, RatingsMixin):
    """Recorded matches. Recording one updates both ratings and marks its tournament game
    done, so this part builds on those."""

    def record_match(
        self,
        result: MatchResult,
        *,
        seat_versions: tuple[int, int],
        tournament_game_id: int | None = None,
        pair_id: int | None = None,
        rate: bool = True,
    ) -> RecordedMatch:
        """Store a played match and apply its rating update, in one transaction.

        With ``rate`` False a match that would be rated is kept unrated (``unrated_play``).
        With ``tournament_game_id``, the scheduled game is marked done in the same transaction
        (unless the match was aborted: the game then stays pending), and a game that was
        already recorded raises ``AlreadyRecordedError`` with nothing written.
        """
        item = MatchToRecord(result, seat_versions, tournament_game_id, pair_id, rate)
        (outcome,) = self.record_matches([item])
        if isinstance(outcome, StoreError):
            raise outcome
        return outcome

    def record_matches(self, items: Sequence[MatchToRecord]) -> list[RecordedMatch | StoreError]:
        """Group commit: store many played matches, each with its rating update and game mark,
        in one transaction (up to ``GROUP_MAX`` a transaction).

        Each item is recorded or refused on its own, in its place in the answer: a refused one
        (``AlreadyRecordedError`` for a game or match id recorded before, ``NotFoundError``,
        ``StoreError`` for a record that does not fit its schedule) is its error, with nothing of
        it written, and the others are recorded all the same. The transaction commits all that
        it records or nothing: a game is recorded exactly once or not at all. Should another
        writer take one of the group's match ids between the checks and the insert, the group is
        written again one match a transaction, as ``record_match`` does.
        """
        out: list[RecordedMatch | StoreError] = []
        for start in range(0, len(items), GROUP_MAX):
            out.extend(self._record_chunk(list(items[start : start + GROUP_MAX])))
        return out

    def _record_chunk(self, items: list[MatchToRecord]) -> list[RecordedMatch | StoreError]:
        outcome: dict[int, RecordedMatch | StoreError] = {}
        checked: list[tuple[int, MatchToRecord]] = []
        for i, item in enumerate(items):
            try:
                item = dataclasses.replace(item, seat_versions=check_seats(item.seat_versions))
                _check_result(item.result)
            except StoreError as exc:
                outcome[i] = exc
                continue
            checked.append((i, item))
        if checked:
            try:
                outcome.update(self._record_group(checked))
            except (IntegrityError, _GroupConflict):
                # Another writer took one of these ids meanwhile: one transaction each, so that
                # only the match it took is refused.
                for i, item in checked:
                    outcome[i] = self._record_alone(item)
        return [outcome[i] for i in range(len(items))]

    def _record_alone(self, item: MatchToRecord) -> RecordedMatch | StoreError:
        try:
            return self._record_group([(0, item)])[0]
        except (IntegrityError, _GroupConflict) as exc:
            why = first_line(exc) if isinstance(exc, IntegrityError) else str(exc)
            return AlreadyRecordedError(
                f"match {item.result.match_id} (or its scheduled game) was recorded at the same "
                f"moment by another writer: {why}"
            )

    def _record_group(
        self, items: list[tuple[int, MatchToRecord]]
    ) -> dict[int, RecordedMatch | StoreError]:
        """One transaction: the checks, then every accepted record with a few statements each
        for the whole group (one insert, one game mark, one rating application per tournament)."""
        outcome: dict[int, RecordedMatch | StoreError] = {}
        encoded = {i: encode_decisions(item.result.decisions) for i, item in items}
        with self._write() as s:
            game_ids = sorted(
                {it.tournament_game_id for _, it in items if it.tournament_game_id is not None}
            )
            games: dict[int, TournamentGame] = {}
            if game_ids:
                games = {
                    g.id: g
                    for g in s.scalars(
                        select(TournamentGame)
                        .where(TournamentGame.id.in_(game_ids))
                        .order_by(TournamentGame.id)
                        .with_for_update()
                    )
                }
            taken = set(
                s.scalars(
                    select(Match.match_id).where(
                        Match.match_id.in_([it.result.match_id for _, it in items])
                    )
                )
            )
            owner_of = member_owners(s, {v for _, it in items for v in it.seat_versions})
            settled: dict[int, str] = {}  # games this group marks done, and by which match
            accepted: list[_Accepted] = []
            for i, it in items:
                try:
                    accepted.append(_accept(it, games, taken, settled, owner_of))
                except StoreError as exc:
                    outcome[i] = exc
                    continue
                taken.add(it.result.match_id)
                accepted[-1].index = i
            if not accepted:
                return outcome

            # Ratings are applied in rating order (rating_order.py), one writer at a time.
            rating_order.lock(s, self.dialect)
            if any(a.rated or a.game is not None for a in accepted):
                self._check_rating_settings(s)  # a tournament's game may release rated ones

            newest = s.scalar(select(func.max(Tournament.id))) or 0
            placed_late: list[_Accepted] = []
            for a in accepted:
                if a.game is None:
                    placed_late.append(a)
                    continue
                t = s.get(Tournament, a.game.tournament_id)
                if t is not None and rating_order.rated_as_recorded(t.config):
                    placed_late.append(a)
                else:
                    a.order = rating_order.tournament_order(a.game.tournament_id, a.game.ordinal)
            table = cast(Table, Match.__table__)
            conn = s.connection()
            pks = (
                conn.execute(
                    insert(table).returning(table.c.id, sort_by_parameter_order=True),
                    [_row(a, encoded[a.index]) for a in accepted],
                )
                .scalars()
                .all()
            )
            for a, pk in zip(accepted, pks, strict=True):
                a.pk = pk
            if placed_late:  # a single match's place follows its id (rating_order.py)
                for a in placed_late:
                    a.order = (2 * newest + 1) * rating_order.GROUP + a.pk
                conn.execute(
                    update(table)
                    .where(table.c.id == bindparam("pk_"))
                    .values(rating_order=bindparam("order_")),
                    [{"pk_": a.pk, "order_": a.order} for a in placed_late],
                )

            marks = {
                a.game.id: a.item.result.match_id
                for a in accepted
                if a.game is not None and a.item.result.termination is not Termination.ABORTED
            }
            if marks:
                done = cast(
                    CursorResult[Any],
                    s.execute(
                        update(TournamentGame)
                        .where(
                            TournamentGame.id.in_(sorted(marks)), TournamentGame.match_id.is_(None)
                        )
                        .values(
                            match_id=case(marks, value=TournamentGame.id),
                            status=GameStatus.DONE.value,
                        )
                        .execution_options(synchronize_session=False)
                    ),
                )
                if done.rowcount != len(marks):
                    raise _GroupConflict(
                        f"{len(marks) - done.rowcount} of {len(marks)} scheduled games were "
                        "recorded meanwhile"
                    )
                for tid in sorted({games[g].tournament_id for g in marks}):
                    self._finish_if_complete(s, tid)

            # Each tournament's (and the single matches') updates, in rating order.
            first: dict[int | None, int] = {}  # a tournament's (None: single matches')
            for a in accepted:
                first[a.tournament_id] = min(first.get(a.tournament_id, a.order), a.order)
            applied: set[int] = set()
            for t_id in sorted(first, key=first.__getitem__):
                applied.update(rating_order.apply_ready(s, self._rater, self.dialect, t_id))
            for a in accepted:
                after: tuple[RatingInfo, RatingInfo] | None = None
                if a.pk in applied:
                    v0, v1 = a.item.seat_versions
                    r0, r1 = s.get(Rating, v0), s.get(Rating, v1)
                    assert r0 is not None and r1 is not None  # applied: both are rated
                    after = (rating_info(r0), rating_info(r1))
                outcome[a.index] = RecordedMatch(
                    sequence=a.pk,
                    match_id=a.item.result.match_id,
                    rated=a.rated,
                    ratings=after,
                    unrated_reason=None if a.why_not is None else a.why_not.value,
                )
        return outcome

    def get_match(self, match_id: str) -> StoredMatch:
        with self._read() as s:
            row = s.scalar(select(Match).where(Match.match_id == match_id))
            if row is None:
                raise NotFoundError(f"no match with id {match_id!r}")
            players = self._players(s, [row])
        summary = _summary(row, players)
        result = MatchResult(
            match_id=row.match_id,
            seed=row.seed,
            rules=RuleSet.from_dict(row.rules),
            engine_version=row.engine_version,
            players=summary.players,
            winner=row.winner,
            scores=summary.scores,
            hands_played=row.hands_played,
            termination=summary.termination,
            faults=summary.faults,
            detail=row.detail,
            decisions=decode_decisions(row.decisions),
            started_at=row.started_at,
            finished_at=row.finished_at,
        )
        return StoredMatch(summary=summary, result=result, decisions_bytes=len(row.decisions))

    def list_matches(
        self,
        *,
        tournament_id: int | None = None,
        bot: str | None = None,
        bot_version_id: int | None = None,
        pair_id: int | None = None,
        rated: bool | None = None,
        limit: int | None = None,
        newest_first: bool = False,
    ) -> list[MatchSummary]:
        """Matches in recorded order (or newest first), without their decision records."""
        columns = [c for c in Match.__table__.columns if c.name != "decisions"]
        query = select(*columns)
        if tournament_id is not None:
            query = query.where(Match.tournament_id == tournament_id)
        if pair_id is not None:
            query = query.where(Match.pair_id == pair_id)
        if rated is not None:
            query = query.where(Match.rated.is_(rated))
        if bot_version_id is not None:
            query = query.where(
                or_(
                    Match.seat0_version_id == bot_version_id,
                    Match.seat1_version_id == bot_version_id,
                )
            )
        if bot is not None:
            ids = [v.id for v in self.list_versions(bot)]
            query = query.where(
                or_(Match.seat0_version_id.in_(ids), Match.seat1_version_id.in_(ids))
            )
        query = query.order_by(Match.id.desc() if newest_first else Match.id)
        if limit is not None:
            query = query.limit(limit)
        with self._read() as s:
            rows = s.execute(query).all()
            players = self._players(s, rows)
        return [_summary(r, players) for r in rows]

    def _players(self, s: Session, rows: Sequence[Any]) -> dict[int, tuple[str, bool]]:
        """Each version's ``name@version`` and whether it is a person's."""
        ids = {r.seat0_version_id for r in rows} | {r.seat1_version_id for r in rows}
        if not ids:
            return {}
        found = s.execute(
            select(BotVersion.id, Bot.name, BotVersion.version_label, Bot.kind)
            .join(Bot, Bot.id == BotVersion.bot_id)
            .where(BotVersion.id.in_(ids))
        ).all()
        return {vid: (f"{name}@{label}", kind == HUMAN) for vid, name, label, kind in found}


GROUP_MAX = 256
"""The most records one group-commit transaction takes (``record_matches`` splits more)."""


class _GroupConflict(Exception):
    """A group met another writer's record after its checks: written again one by one."""


@dataclass(slots=True, eq=False)
class _Accepted:
    """A record of a group that passed its checks, on its way into the database."""

    item: MatchToRecord
    game: TournamentGame | None
    tournament_id: int | None
    pair_id: int | None
    why_not: UnratedReason | None
    index: int = 0
    pk: int = 0
    order: int = 0

    @property
    def rated(self) -> bool:
        return self.why_not is None


def _accept(
    item: MatchToRecord,
    games: Mapping[int, TournamentGame],
    taken: set[str],
    settled: dict[int, str],
    owner_of: Mapping[int, int | None],
) -> _Accepted:
    """Check one record of a group against the database as the group found it (and against
    the group's earlier records); raise the ``StoreError`` that refuses it."""
    result, seats = item.result, item.seat_versions
    game: TournamentGame | None = None
    pair_id = item.pair_id
    if item.tournament_game_id is not None:
        game = games.get(item.tournament_game_id)
        if game is None:
            raise NotFoundError(f"no tournament game with id {item.tournament_game_id}")
        if game.id in settled:
            raise AlreadyRecordedError(
                f"tournament {game.tournament_id} game {game.ordinal} was already recorded as "
                f"match {settled[game.id]}"
            )
        _check_game(game, result, seats)
        pair_id = pair_id if pair_id is not None else game.pair_id
    if result.match_id in taken:
        raise AlreadyRecordedError(f"match {result.match_id} was already recorded")
    missing = sorted(set(seats) - set(owner_of))
    if missing:
        raise NotFoundError(f"no bot version with id {missing[0]}")
    why_not = unrated_reason(result, seats, (owner_of[seats[0]], owner_of[seats[1]]))
    if why_not is None and not item.rate:
        why_not = UnratedReason.UNRATED_PLAY
    if game is not None and result.termination is not Termination.ABORTED:
        settled[game.id] = result.match_id
    return _Accepted(
        item=item,
        game=game,
        tournament_id=None if game is None else game.tournament_id,
        pair_id=pair_id,
        why_not=why_not,
    )


def _row(a: _Accepted, blob: bytes) -> dict[str, Any]:
    """The ``matches`` row of an accepted record."""
    result = a.item.result
    means, maxima = _decision_times(result.decisions)
    return {
        "match_id": result.match_id,
        "seed": result.seed,
        "rules": result.rules.to_dict(),
        "engine_version": result.engine_version,
        "seat0_version_id": a.item.seat_versions[0],
        "seat1_version_id": a.item.seat_versions[1],
        "winner": result.winner,
        "score0": result.scores[0],
        "score1": result.scores[1],
        "hands_played": result.hands_played,
        "termination": result.termination.value,
        "detail": result.detail,
        "faults0": result.faults[0],
        "faults1": result.faults[1],
        "rated": a.rated,
        "unrated_reason": None if a.why_not is None else a.why_not.value,
        "decisions": blob,
        "decision_count": len(result.decisions),
        "mean_decision_us0": means[0],
        "mean_decision_us1": means[1],
        "max_decision_us0": maxima[0],
        "max_decision_us1": maxima[1],
        "started_at": result.started_at,
        "finished_at": result.finished_at,
        "recorded_at": utcnow(),
        "tournament_id": a.tournament_id,
        "tournament_game_id": a.item.tournament_game_id,
        "pair_id": a.pair_id,
        "rating_order": a.order or None,
        "rating_applied": False,
    }


def _check_result(result: MatchResult) -> None:
    if not result.match_id or len(result.match_id) > 64:
        raise StoreError(f"match id must be 1-64 characters, got {result.match_id!r}")
    check_seed(result.seed)
    if result.winner not in (None, 0, 1):
        raise StoreError(f"match {result.match_id}: winner must be 0, 1 or None")


def _check_game(game: TournamentGame, result: MatchResult, seats: tuple[int, int]) -> None:
    where = f"tournament {game.tournament_id} game {game.ordinal}"
    if game.match_id is not None or game.status != GameStatus.PENDING.value:
        raise AlreadyRecordedError(f"{where} was already recorded as match {game.match_id}")
    if game.seed != result.seed:
        raise StoreError(f"{where} is scheduled with seed {game.seed}, not {result.seed}")
    if (game.seat0_version_id, game.seat1_version_id) != seats:
        raise StoreError(
            f"{where} is scheduled for bot versions "
            f"{(game.seat0_version_id, game.seat1_version_id)}, not {seats}"
        )


def _decision_times(
    decisions: Sequence[DecisionRecord],
) -> tuple[tuple[int | None, int | None], tuple[int | None, int | None]]:
    # Comprehensions and C built-ins: this runs for every decision of every record.
    times = (
        [d.elapsed_us for d in decisions if d.seat == 0],
        [d.elapsed_us for d in decisions if d.seat == 1],
    )
    mean = tuple(round(sum(t) / len(t)) if t else None for t in times)
    peak = tuple(max(0, max(t)) if t else None for t in times)
    return (mean[0], mean[1]), (peak[0], peak[1])


def _summary(r: Any, players: Mapping[int, tuple[str, bool]]) -> MatchSummary:
    seat0, seat1 = players[r.seat0_version_id], players[r.seat1_version_id]
    return MatchSummary(
        sequence=r.id,
        match_id=r.match_id,
        seed=r.seed,
        engine_version=r.engine_version,
        seat_versions=(r.seat0_version_id, r.seat1_version_id),
        players=(seat0[0], seat1[0]),
        humans=(seat0[1], seat1[1]),
        winner=r.winner,
        scores=(r.score0, r.score1),
        hands_played=r.hands_played,
        termination=Termination(r.termination),
        faults=(r.faults0, r.faults1),
        detail=r.detail,
        rated=r.rated,
        unrated_reason=r.unrated_reason,
        decision_count=r.decision_count,
        mean_decision_us=(r.mean_decision_us0, r.mean_decision_us1),
        max_decision_us=(r.max_decision_us0, r.max_decision_us1),
        started_at=r.started_at,
        finished_at=r.finished_at,
        recorded_at=r.recorded_at,
        tournament_id=r.tournament_id,
        tournament_game_id=r.tournament_game_id,
        pair_id=r.pair_id,
    )
