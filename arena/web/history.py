"""Rating history: every bot version's (mu, sigma) after each of its rated matches.

The store keeps only the current rating. The history is rebuilt the way the store rebuilds
ratings (``arena ratings --recompute``): every rated match applied in the store's rating order
with its TrueSkill settings, so a version's last point is its stored rating. One version's
history depends on every match its opponents played before, so the whole history is kept in
memory and rebuilt when the rated matches change. A small database is rebuilt while the request
waits; a large one in the background, the previous history being served meanwhile (and none,
with a note on the page, the first time).
"""

from __future__ import annotations

import threading
from array import array
from dataclasses import dataclass
from typing import Any

from arena.ratings import Rater
from arena.store import Store

SYNC_LIMIT = 1000
"""Up to this many rated matches a request waits for the rebuild (about 0.2 s); past it, the
rebuild runs in the background."""


@dataclass(frozen=True, slots=True)
class Point:
    sequence: int
    """The match's recorded sequence (0 for the initial rating)."""
    mu: float
    sigma: float
    order: int
    """Where the point stands on a chart's x-axis: for a rating, the match's place in the order
    the ratings apply them (1 for the first; that is not the recorded order when a tournament's
    results arrive out of schedule order); 0 for the initial rating."""


class _Series:
    __slots__ = ("mu", "order", "seq", "sigma")

    def __init__(self) -> None:
        self.seq = array("q")
        self.order = array("q")
        self.mu = array("d")
        self.sigma = array("d")


class RatingHistory:
    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._building = False
        self._built: tuple[Any, ...] | None = None
        self._size: int | None = None
        """Rated matches in the last build: whether the next one waits or runs behind."""
        self._series: dict[int, _Series] = {}
        self._rater = self._make_rater()

    def _make_rater(self) -> Rater:
        return Rater(self._store.rating_settings() or self._store.rating_config)

    @property
    def initial(self) -> Point:
        """The rating every version starts from (before its first match)."""
        mu, sigma = self._rater.initial()
        return Point(0, mu, sigma, 0)

    def series(self, version_id: int) -> list[Point] | None:
        """The version's history, oldest first; None before a large history is first built."""
        self._refresh()
        with self._lock:
            if self._built is None:
                return None
            s = self._series.get(version_id)
            if s is None:
                return []
            return [
                Point(q, m, g, o) for q, m, g, o in zip(s.seq, s.mu, s.sigma, s.order, strict=True)
            ]

    def _refresh(self) -> None:
        fingerprint = self._store.ratings_fingerprint()
        if fingerprint == self._built or self._building:
            return
        size = self._size
        if size is None:  # the first build: counted once; later ones go by the last
            size = self._store.rated_match_count()
        if size > SYNC_LIMIT:
            with self._lock:
                if self._building:
                    return
                self._building = True
            threading.Thread(
                target=self._rebuild, args=(fingerprint,), name="arena-web-history", daemon=True
            ).start()
            return
        self._rebuild(fingerprint)

    def _rebuild(self, fingerprint: tuple[Any, ...]) -> None:
        try:
            rater = self._make_rater()
            ratings: dict[int, tuple[float, float]] = {}
            series: dict[int, _Series] = {}
            initial = rater.initial()
            rated = self._store.rated_in_rating_order()
            for order, (seq, v0, v1, winner) in enumerate(rated, start=1):
                a, b = rater.rate(ratings.get(v0, initial), ratings.get(v1, initial), winner)
                ratings[v0], ratings[v1] = a, b
                for vid, (mu, sigma) in ((v0, a), (v1, b)):
                    s = series.get(vid)
                    if s is None:
                        s = series[vid] = _Series()
                    s.seq.append(seq)
                    s.order.append(order)
                    s.mu.append(mu)
                    s.sigma.append(sigma)
            with self._lock:
                self._series, self._rater, self._built = series, rater, fingerprint
                self._size = len(rated)
        finally:
            self._building = False
