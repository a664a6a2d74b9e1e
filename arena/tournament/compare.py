"""A comparison of two bots: duplicate pairs of A against B, until an SPRT decides or a cap.

A comparison is a tournament of its own kind: two entrants (A first), a schedule of
``max_pairs`` deal seeds (each seed a duplicate pair: both seatings), recorded and rated like any
other tournament and resumable like one. What sets it apart is its stop rule: after every pair
the counts go to ``arena.stats`` and, with an SPRT, the tournament stops as soon as the LLR
crosses a bound.

The test reads the pairs **in schedule order**: pair r counts once pair r and every pair before
it are recorded (with K matches at once they finish in any order). The decision is taken at the
first such prefix whose LLR crosses a bound, and is kept: matches that were still in play when it
fell are recorded (and rated), but they are past the test's stopping point. So the decision, the
pairs it took and every figure are a function of the results alone, whatever K, however often
the run was stopped and resumed.

With duplicate deals the sample is the pair (the pentanomial: A's match points in the pair, 0 to
2 in halves); with independent deals every match has its own seed, and the sample is the match
(the trinomial: A's loss, draw, win).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from arena.errors import ArenaError
from arena.stats import Estimate, Sprt, SprtStatus, estimate
from arena.tournament.standings import GameRecord

DEFAULT_MAX_PAIRS_SPRT = 2000
"""The cap with an SPRT: a near-equal pair of bots may need thousands of pairs to decide."""
DEFAULT_PAIRS_FIXED = 100
"""Without an SPRT: a fixed number of pairs, and the interval they give."""

A, B = 0, 1
"""Entrant indices: the comparison is always from A's side."""


@dataclass(frozen=True, slots=True)
class CompareSpec:
    """What is stored with a comparison tournament, beside the usual tournament config."""

    max_pairs: int
    sprt: Sprt | None = None

    def __post_init__(self) -> None:
        if self.max_pairs < 1:
            raise ArenaError(f"--max-pairs must be at least 1, got {self.max_pairs}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "max_pairs": self.max_pairs,
            "sprt": self.sprt.to_dict() if self.sprt is not None else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CompareSpec:
        sprt = data.get("sprt")
        return cls(
            max_pairs=int(data["max_pairs"]), sprt=Sprt(**sprt) if sprt is not None else None
        )


@dataclass(frozen=True, slots=True)
class CompareState:
    """The test as it stands after ``pairs`` pairs in schedule order."""

    pairs: int
    """Duplicate pairs counted (a complete prefix of the schedule)."""
    max_pairs: int
    model: str
    """``pentanomial`` (duplicate deals: the pair is the sample) or ``trinomial``."""
    pentanomial: tuple[int, int, int, int, int]
    """Pairs in which A took 0, ½, 1, 1½, 2 match points."""
    wins: int
    draws: int
    losses: int
    """A's match results over the counted pairs."""
    estimate: Estimate
    sprt: Sprt | None
    status: SprtStatus | None
    beyond: int
    """Matches recorded but not counted: once the test is finished, those still in play when it
    decided; before that, those waiting for an earlier pair to complete."""

    @property
    def counts(self) -> list[int]:
        return list(self.pentanomial) if self.model == "pentanomial" else self.trinomial

    @property
    def trinomial(self) -> list[int]:
        return [self.losses, self.draws, self.wins]

    @property
    def decision(self) -> str | None:
        return self.status.decision if self.status is not None else None

    @property
    def finished(self) -> bool:
        """Nothing more to play: the SPRT decided or the cap was reached."""
        return self.decision is not None or self.pairs >= self.max_pairs

    def to_dict(self) -> dict[str, Any]:
        e = self.estimate
        return {
            "pairs": self.pairs,
            "max_pairs": self.max_pairs,
            "matches": self.wins + self.draws + self.losses,
            "model": self.model,
            "pentanomial": list(self.pentanomial),
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": e.score,
            "raw_score": e.raw_score,
            "score_low": e.score_low,
            "score_high": e.score_high,
            "elo": e.elo,
            "elo_low": e.elo_low,
            "elo_high": e.elo_high,
            "elo95": e.elo95,
            "los": e.los,
            "sprt": None
            if self.sprt is None or self.status is None
            else {
                **self.sprt.to_dict(),
                "llr": self.status.llr,
                "lower": self.status.lower,
                "upper": self.status.upper,
                "decision": self.status.decision,
            },
            "beyond": self.beyond,
        }


def points_of_a(game: GameRecord) -> float:
    """A's match points in one match: a win 1, a draw ½ (R-6.3: equal scores at the hand limit;
    also a match neither bot could play), a loss 0 (a forfeit is a loss for the side at fault)."""
    if game.winner is None:
        return 0.5
    return 1.0 if game.seats[game.winner] == A else 0.0


class SequentialTest:
    """Feeds recorded games in any order; counts complete pairs in schedule order."""

    def __init__(self, spec: CompareSpec, independent: bool) -> None:
        self.spec = spec
        self.independent = independent
        self._games: dict[int, list[GameRecord]] = {}
        self._penta = [0] * 5
        self._tri = [0, 0, 0]  # A's losses, draws, wins
        self._pairs = 0
        self._status: SprtStatus | None = None
        self._recorded = 0

    def add(self, game: GameRecord) -> list[CompareState]:
        """Take one recorded game; return the state after each pair this completes, in order."""
        self._recorded += 1
        self._games.setdefault(game.pair_id, []).append(game)
        out = []
        while not self._finished():
            games = self._games.get(self._pairs, [])
            if len(games) < 2:
                break
            points = [points_of_a(g) for g in games]
            self._penta[round(sum(points) * 2)] += 1
            for p in points:
                self._tri[round(p * 2)] += 1
            self._pairs += 1
            if self.spec.sprt is not None:
                self._status = self.spec.sprt.status(self._counts())
            out.append(self.state())
        return out

    def add_all(self, games: Iterable[GameRecord]) -> CompareState:
        for g in games:
            self.add(g)
        return self.state()

    def _finished(self) -> bool:
        decided = self._status is not None and self._status.decision is not None
        return decided or self._pairs >= self.spec.max_pairs

    def _counts(self) -> list[int]:
        return list(self._tri) if self.independent else list(self._penta)

    def state(self) -> CompareState:
        status = self._status
        if status is None and self.spec.sprt is not None:
            status = self.spec.sprt.status(self._counts())
        counted = 2 * self._pairs
        return CompareState(
            pairs=self._pairs,
            max_pairs=self.spec.max_pairs,
            model="trinomial" if self.independent else "pentanomial",
            pentanomial=tuple(self._penta),  # type: ignore[arg-type]
            wins=self._tri[2],
            draws=self._tri[1],
            losses=self._tri[0],
            estimate=estimate(self._counts()),
            sprt=self.spec.sprt,
            status=status,
            beyond=self._recorded - counted,
        )
