"""Matches' double-dummy analyses (arena.analysis), kept with the solver version that made them.

An analysis is derived data: it can always be recomputed from the match's record, and one made
by an older solver is replaced, not kept beside the new one. Saving twice is harmless (the last
one stays), so a background worker and an on-demand request may race.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, union_all
from sqlalchemy.exc import IntegrityError

from arena.analysis import (
    SOLVER_VERSION,
    MatchAnalysis,
    PlayClass,
    analysis_from_dict,
    analysis_to_dict,
)
from arena.store import marks
from arena.store.core import StoreCore
from arena.store.errors import NotFoundError
from arena.store.models import Match, MatchAnalysisRow, utcnow


@dataclass(frozen=True, slots=True)
class VersionLoss:
    """A bot version's card-play loss over its analysed matches (the mean only)."""

    version_id: int
    hands: int
    loss: int

    @property
    def per_hand(self) -> float | None:
        return self.loss / self.hands if self.hands else None


class AnalysesMixin(StoreCore):
    def save_analysis(self, match_id: str, analysis: MatchAnalysis) -> None:
        """Keep ``analysis`` as match ``match_id``'s, replacing any earlier one."""
        data = analysis_to_dict(analysis)
        complete = [h for h in analysis.hands if h.complete]
        fields: dict[str, Any] = {
            "solver_version": analysis.solver_version,
            "data": data,
            "hands": len(complete),
            "loss0": sum(h.loss(0) for h in complete),
            "loss1": sum(h.loss(1) for h in complete),
            "blunders0": _blunders(analysis, 0),
            "blunders1": _blunders(analysis, 1),
        }
        for _ in range(2):  # a concurrent first save wins the insert; then update it
            try:
                with self._write() as s:
                    pk = s.scalar(select(Match.id).where(Match.match_id == match_id))
                    if pk is None:
                        raise NotFoundError(f"no match with id {match_id!r}")
                    row = s.scalar(select(MatchAnalysisRow).where(MatchAnalysisRow.match_pk == pk))
                    if row is None:
                        s.add(MatchAnalysisRow(match_pk=pk, **fields))
                    else:
                        for k, v in fields.items():
                            setattr(row, k, v)
                        row.created_at = utcnow()
                    marks.bump(s, marks.ANALYSES)
                return
            except IntegrityError:
                continue
        raise NotFoundError(f"could not save the analysis of match {match_id!r}")

    def get_analysis(self, match_id: str) -> MatchAnalysis | None:
        """The stored analysis of the current solver version; None if there is none."""
        with self._read() as s:
            data = s.scalar(
                select(MatchAnalysisRow.data)
                .join(Match, Match.id == MatchAnalysisRow.match_pk)
                .where(Match.match_id == match_id)
                .where(MatchAnalysisRow.solver_version == SOLVER_VERSION)
            )
        return None if data is None else analysis_from_dict(data)

    def analyses_of(self, match_ids: list[str]) -> dict[str, MatchAnalysis]:
        """The stored analyses of the current solver of ``match_ids`` that have one, in one
        read (a page of matches asks for them all at once)."""
        if not match_ids:
            return {}
        with self._read() as s:
            rows = s.execute(
                select(Match.match_id, MatchAnalysisRow.data)
                .join(Match, Match.id == MatchAnalysisRow.match_pk)
                .where(Match.match_id.in_(match_ids))
                .where(MatchAnalysisRow.solver_version == SOLVER_VERSION)
            ).all()
        return {mid: analysis_from_dict(data) for mid, data in rows}

    def analysis_for(self, match_id: str) -> MatchAnalysis:
        """The current solver's analysis of ``match_id``: the stored one, or one made now from
        the match's record and stored. Raises NotFoundError for an unknown match, and the
        replay's error for a record the engine cannot replay."""
        found = self.get_analysis(match_id)
        if found is not None:
            return found
        from arena.referee.analysed import analyse_result

        analysis = analyse_result(self.get_match(match_id).result)  # type: ignore[attr-defined]
        self.save_analysis(match_id, analysis)
        return analysis

    def unanalysed_matches(self, limit: int) -> list[str]:
        """Up to ``limit`` match ids with no analysis of the current solver, newest first."""
        current = select(MatchAnalysisRow.match_pk).where(
            MatchAnalysisRow.solver_version == SOLVER_VERSION
        )
        with self._read() as s:
            return list(
                s.scalars(
                    select(Match.match_id)
                    .where(Match.id.not_in(current))
                    .order_by(Match.id.desc())
                    .limit(limit)
                )
            )

    def loss_history(self, version_id: int) -> list[tuple[int, int, int]]:
        """``(match sequence, complete hands, par loss)`` of each analysed match of a version,
        in recorded order (current solver)."""
        a, m = MatchAnalysisRow, Match
        with self._read() as s:
            rows = s.execute(
                select(m.id, m.seat0_version_id, a.hands, a.loss0, a.loss1)
                .join(a, a.match_pk == m.id)
                .where(a.solver_version == SOLVER_VERSION)
                .where((m.seat0_version_id == version_id) | (m.seat1_version_id == version_id))
                .order_by(m.id)
            ).all()
        return [
            (pk, hands, loss0 if seat0 == version_id else loss1)
            for pk, seat0, hands, loss0, loss1 in rows
        ]

    def card_play_losses(self) -> dict[int, VersionLoss]:
        """Each bot version's card-play loss over its matches analysed by the current solver."""
        a, m = MatchAnalysisRow, Match
        current = a.solver_version == SOLVER_VERSION
        seats = union_all(
            select(m.seat0_version_id.label("v"), a.hands.label("h"), a.loss0.label("l"))
            .join(a, a.match_pk == m.id)
            .where(current),
            select(m.seat1_version_id.label("v"), a.hands.label("h"), a.loss1.label("l"))
            .join(a, a.match_pk == m.id)
            .where(current),
        ).subquery()
        with self._read() as s:
            rows = s.execute(
                select(seats.c.v, func.sum(seats.c.h), func.sum(seats.c.l)).group_by(seats.c.v)
            ).all()
        return {v: VersionLoss(v, int(h or 0), int(loss or 0)) for v, h, loss in rows}


def _blunders(analysis: MatchAnalysis, seat: int) -> int:
    return sum(
        1
        for p in analysis.plays
        if p.seat == seat and not p.substituted and p.kind is PlayClass.BLUNDER
    )
