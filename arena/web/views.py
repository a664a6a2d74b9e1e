"""What the pages and the JSON API show, shared by both."""

from __future__ import annotations

from arena.store import Store, TournamentStatus


def tournament_state(store: Store, status: TournamentStatus, tournament_id: int) -> str:
    """running, finished, cancelled, or interrupted (running, but no process plays it)."""
    if status is not TournamentStatus.RUNNING:
        return status.value
    played = store.tournament_being_played(tournament_id)
    return "interrupted" if played is False else "running"
