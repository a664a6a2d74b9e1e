"""Rating history: every bot version's (mu, sigma) after each of its rated matches.

The store keeps only the current rating. The history is rebuilt the way ``Store.
recompute_ratings`` rebuilds ratings: every rated match applied in recorded order with the
store's TrueSkill settings, so its last point is the stored rating, bit for bit. One version's
history depends on every match its opponents played before, so the whole history is kept in
memory, built once (in the background when the database is large) and extended with the matches
recorded since. A match that appears below the last sequence applied (a transaction that
committed late) makes it rebuild from the start.
"""

from __future__ import annotations

import threading
from array import array
from dataclasses import dataclass

from arena.ratings import Rater
from arena.store import Store
from arena.web import queries

SYNC_LIMIT = 3000
"""Up to this many matches to apply, a request waits for the history; past it, it is built in
the background and the page says so."""


@dataclass(frozen=True, slots=True)
class Point:
    sequence: int
    """The match's recorded sequence."""
    mu: float
    sigma: float


class _Series:
    __slots__ = ("mu", "seq", "sigma")

    def __init__(self) -> None:
        self.seq = array("q")
        self.mu = array("d")
        self.sigma = array("d")


class RatingHistory:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._building = False
        self._reset()

    def _reset(self) -> None:
        self._applied = 0
        self._last = 0
        self._ratings: dict[int, tuple[float, float]] = {}
        self._series: dict[int, _Series] = {}
        settings = self._store.rating_settings() or self._store.rating_config
        self._rater = Rater(settings)

    @property
    def initial(self) -> Point:
        """The rating every version starts from (before its first match)."""
        mu, sigma = self._rater.initial()
        return Point(0, mu, sigma)

    def series(self, version_id: int) -> list[Point] | None:
        """The version's history, oldest first; None while a large history is being built."""
        if not self._refresh():
            return None
        with self._lock:
            s = self._series.get(version_id)
            if s is None:
                return []
            return [Point(q, m, g) for q, m, g in zip(s.seq, s.mu, s.sigma, strict=True)]

    def _refresh(self) -> bool:
        if self._building:
            return False
        count, top = queries.rated_match_count(self._store)
        if count == self._applied and top == self._last:
            return True
        todo = count - self._applied if top >= self._last else count
        if todo > SYNC_LIMIT:
            with self._lock:
                if not self._building:
                    self._building = True
                    threading.Thread(
                        target=self._build_in_background, name="arena-web-history", daemon=True
                    ).start()
            return False
        with self._lock:
            self._apply_new()
        return True

    def _build_in_background(self) -> None:
        try:
            with self._lock:
                self._apply_new()
        finally:
            self._building = False

    def _apply_new(self) -> None:
        rows = queries.rated_matches_after(self._store, self._last)
        expected_total = queries.rated_match_count(self._store)[0]
        if self._applied + len(rows) < expected_total:
            # A match committed below the last applied sequence: start over.
            self._reset()
            rows = queries.rated_matches_after(self._store, 0)
        initial = self._rater.initial()
        for seq, v0, v1, winner, _f0, _f1 in rows:
            a = self._ratings.get(v0, initial)
            b = self._ratings.get(v1, initial)
            a, b = self._rater.rate(a, b, winner)
            self._ratings[v0], self._ratings[v1] = a, b
            for vid, (mu, sigma) in ((v0, a), (v1, b)):
                s = self._series.get(vid)
                if s is None:
                    s = self._series[vid] = _Series()
                s.seq.append(seq)
                s.mu.append(mu)
                s.sigma.append(sigma)
            self._applied += 1
            self._last = seq
