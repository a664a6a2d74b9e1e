"""The store's matches: recording one with its rating update, reading them back.

A match and its rating update are committed in one transaction. Ratings are applied not in the
recorded order but by tournament, then schedule position (``rating_order.py``): a tournament's
result that arrives before an earlier game of its schedule waits for it, in the database, and is
applied in the transaction that records that game. The transaction holds one lock while it
applies (a PostgreSQL advisory lock; ``BEGIN IMMEDIATE`` on SQLite), so ``recompute_ratings``
replays the applied matches in the same order and gets the same numbers, bit for bit.

What is rated: a match that ended by the rules (win, loss, or draw), and a forfeit, which counts
as a loss for the side that forfeited. Kept but not rated, with the reason (``rated.py``):
aborted matches (the arena stopped; a tournament game stays pending and is played again),
matches that never started, forfeits with no winner, a bot version playing itself, and matches
between one owner's bots.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import or_, select, update
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
from arena.store.models import Bot, BotVersion, Match, Rating, TournamentGame
from arena.store.rated import UnratedReason, member_owners, unrated_reason
from arena.store.ratings_store import RatingsMixin, rating_info
from arena.store.rows import HUMAN, GameStatus, MatchSummary, RatingInfo, RecordedMatch, StoredMatch
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
        seat_versions = check_seats(seat_versions)
        _check_result(result)
        try:
            return self._record(result, seat_versions, tournament_game_id, pair_id, rate)
        except IntegrityError as exc:
            # The unique match ids, taken by another writer between our check and our insert.
            raise AlreadyRecordedError(
                f"match {result.match_id} (or its scheduled game) was recorded at the same "
                f"moment by another writer: {first_line(exc)}"
            ) from None

    def _record(
        self,
        result: MatchResult,
        seat_versions: tuple[int, int],
        tournament_game_id: int | None,
        pair_id: int | None,
        rate: bool = True,
    ) -> RecordedMatch:
        blob = encode_decisions(result.decisions)
        means, maxima = _decision_times(result.decisions)
        with self._write() as s:
            tournament_id: int | None = None
            game: TournamentGame | None = None
            if tournament_game_id is not None:
                game = s.scalar(
                    select(TournamentGame)
                    .where(TournamentGame.id == tournament_game_id)
                    .with_for_update()
                )
                if game is None:
                    raise NotFoundError(f"no tournament game with id {tournament_game_id}")
                _check_game(game, result, seat_versions)
                tournament_id = game.tournament_id
                pair_id = pair_id if pair_id is not None else game.pair_id
            if s.scalar(select(Match.id).where(Match.match_id == result.match_id)) is not None:
                raise AlreadyRecordedError(f"match {result.match_id} was already recorded")
            owner_of = member_owners(s, seat_versions)
            missing = sorted(set(seat_versions) - set(owner_of))
            if missing:
                raise NotFoundError(f"no bot version with id {missing[0]}")
            why_not = unrated_reason(
                result, seat_versions, (owner_of[seat_versions[0]], owner_of[seat_versions[1]])
            )
            if why_not is None and not rate:
                why_not = UnratedReason.UNRATED_PLAY
            rated = why_not is None

            # Ratings are applied in rating order (rating_order.py), one writer at a time.
            rating_order.lock(s, self.dialect)
            if rated or game is not None:  # a game of a tournament may release rated ones
                self._check_rating_settings(s)

            match = Match(
                match_id=result.match_id,
                seed=result.seed,
                rules=result.rules.to_dict(),
                engine_version=result.engine_version,
                seat0_version_id=seat_versions[0],
                seat1_version_id=seat_versions[1],
                winner=result.winner,
                score0=result.scores[0],
                score1=result.scores[1],
                hands_played=result.hands_played,
                termination=result.termination.value,
                detail=result.detail,
                faults0=result.faults[0],
                faults1=result.faults[1],
                rated=rated,
                unrated_reason=None if why_not is None else why_not.value,
                decisions=blob,
                decision_count=len(result.decisions),
                mean_decision_us0=means[0],
                mean_decision_us1=means[1],
                max_decision_us0=maxima[0],
                max_decision_us1=maxima[1],
                started_at=result.started_at,
                finished_at=result.finished_at,
                tournament_id=tournament_id,
                tournament_game_id=tournament_game_id,
                pair_id=pair_id,
            )
            s.add(match)
            s.flush()
            match.rating_order = rating_order.place(
                s,
                match.id,
                None if game is None else game.tournament_id,
                None if game is None else game.ordinal,
            )

            if game is not None and result.termination is not Termination.ABORTED:
                done = s.execute(
                    update(TournamentGame)
                    .where(TournamentGame.id == game.id, TournamentGame.match_id.is_(None))
                    .values(match_id=result.match_id, status=GameStatus.DONE.value)
                    .execution_options(synchronize_session=False)
                )
                if done.rowcount != 1:
                    raise AlreadyRecordedError(
                        f"tournament {game.tournament_id} game {game.ordinal} was already recorded"
                    )
                self._finish_if_complete(s, game.tournament_id)
            applied = rating_order.apply_ready(s, self._rater, self.dialect, tournament_id)
            after: tuple[RatingInfo, RatingInfo] | None = None
            if match.id in applied:
                after = (
                    rating_info(s.get(Rating, seat_versions[0])),
                    rating_info(s.get(Rating, seat_versions[1])),
                )
            return RecordedMatch(
                sequence=match.id,
                match_id=match.match_id,
                rated=rated,
                ratings=after,
                unrated_reason=match.unrated_reason,
            )

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
    totals, counts, maxima = [0, 0], [0, 0], [0, 0]
    for d in decisions:
        totals[d.seat] += d.elapsed_us
        counts[d.seat] += 1
        maxima[d.seat] = max(maxima[d.seat], d.elapsed_us)
    mean = tuple(round(totals[i] / counts[i]) if counts[i] else None for i in (0, 1))
    peak = tuple(maxima[i] if counts[i] else None for i in (0, 1))
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
