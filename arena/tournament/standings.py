"""What a tournament's results say: leaderboard, head-to-head per pair, faults.

The leaderboard is TrueSkill over the tournament's matches **in schedule order**, from fresh
ratings. TrueSkill updates depend on their order, and with K matches at once the matches finish
(and are recorded) in an order no one controls; replaying them in schedule order makes the
tournament's ratings a function of its results alone. An interrupted and resumed tournament, and
one run at K = 1 or K = 8, end with the same ratings when their bots played the same matches.

A duplicate pair (both seatings of one bot pair on one deal seed) is *won* by the bot that took
more match points in its two matches (a win 1, a draw ½); equal points are a *split*. The score
margin (points scored minus points conceded, summed over both matches) is reported beside it:
it says by how much, but it does not decide, because a forfeit's scores say nothing of play.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from arena.ratings import Rater, conservative_score
from arena.stats import estimate
from arena.store import LeaderboardRow


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One recorded match of a tournament, as the standings need it."""

    index: int
    pair_id: int
    seats: tuple[int, int]
    """Bot indices (into the tournament's bot list) in seats 0 and 1."""
    winner: int | None
    """The winning seat, None for a draw."""
    scores: tuple[int, int]
    termination: str
    """The referee's termination value (``target_reached``, ``forfeit_timeout``, …)."""
    faults: tuple[int, int]
    rated: bool = True
    """False for matches that say nothing of strength (an aborted match)."""

    @property
    def forfeit(self) -> bool:
        return self.termination.startswith("forfeit_")


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """One bot pair, from the first bot's side."""

    bot_a: str
    bot_b: str
    matches: int
    wins_a: int
    wins_b: int
    draws: int
    pairs_won_a: int
    pairs_won_b: int
    pairs_split: int
    margin_a: int
    """Points bot A scored minus points bot B scored, over all their matches."""
    pairs: int = 0
    """Complete duplicate pairs (both seatings recorded): the sample of the score below."""
    score_a: float | None = None
    """A's match points per match over the complete pairs; None when there is none."""
    score_a_low: float | None = None
    """The 95 % interval of ``score_a``, from the pentanomial variance (``arena.stats``)."""
    score_a_high: float | None = None


@dataclass(frozen=True, slots=True)
class FaultRow:
    bot: str
    faults: int
    """Faults in all matches, substituted or not."""
    forfeits: dict[str, int] = field(default_factory=dict)
    """Matches this bot forfeited (lost, or left without a winner), by termination reason."""

    @property
    def forfeit_total(self) -> int:
        return sum(self.forfeits.values())


@dataclass(frozen=True, slots=True)
class Standings:
    leaderboard: list[LeaderboardRow]
    head_to_head: list[HeadToHead]
    faults: list[FaultRow]
    played: int
    total: int


STANDINGS_FORM = "standings-1"
"""The form of ``standings_to_dict``: a kept summary of another form is computed again."""


def standings_to_dict(standings: Standings) -> dict[str, Any]:
    """Plain JSON data, read back by ``standings_from_dict`` as the same standings (floats
    travel exactly through JSON)."""
    return {
        "form": STANDINGS_FORM,
        "leaderboard": [asdict(r) for r in standings.leaderboard],
        "head_to_head": [asdict(h) for h in standings.head_to_head],
        "faults": [asdict(f) for f in standings.faults],
        "played": standings.played,
        "total": standings.total,
    }


def standings_from_dict(data: dict[str, Any]) -> Standings | None:
    """The standings ``standings_to_dict`` made; None for data of another form."""
    if data.get("form") != STANDINGS_FORM:
        return None
    return Standings(
        leaderboard=[LeaderboardRow(**r) for r in data["leaderboard"]],
        head_to_head=[HeadToHead(**h) for h in data["head_to_head"]],
        faults=[FaultRow(**f) for f in data["faults"]],
        played=int(data["played"]),
        total=int(data["total"]),
    )


def rate_in_order(
    num_bots: int, games: Iterable[GameRecord], rater: Rater
) -> list[tuple[float, float]]:
    """(mu, sigma) of every bot after the rated ``games``, applied in schedule order."""
    ratings = [rater.initial() for _ in range(num_bots)]
    for g in sorted(games, key=lambda g: g.index):
        if not g.rated:
            continue
        a, b = g.seats
        ratings[a], ratings[b] = rater.rate(ratings[a], ratings[b], g.winner)
    return ratings


def compute_standings(
    bots: Sequence[tuple[str, str]],
    games: Sequence[GameRecord],
    rater: Rater,
    total: int,
) -> Standings:
    """The full report from the tournament's bots (name, version) and its recorded games."""
    ratings = rate_in_order(len(bots), games, rater)
    scores = [conservative_score(mu, sigma) for mu, sigma in ratings]
    wins, losses, draws, matches, faults = ([0] * len(bots) for _ in range(5))
    forfeits: list[dict[str, int]] = [defaultdict(int) for _ in bots]
    for g in games:
        for seat, bot in enumerate(g.seats):
            faults[bot] += g.faults[seat]
            # A forfeit is counted against the side that made it, rated or not (a match that
            # never started, or between one owner's bots, is not rated: arena.store.rated).
            if g.forfeit and g.winner != seat:
                forfeits[bot][g.termination] += 1
            if not g.rated:
                continue
            matches[bot] += 1
            if g.winner is None:
                draws[bot] += 1
            elif g.winner == seat:
                wins[bot] += 1
            else:
                losses[bot] += 1

    order = sorted(range(len(bots)), key=lambda i: (-scores[i], bots[i][0], bots[i][1]))
    leaderboard = [
        LeaderboardRow(
            rank=rank,
            bot=bots[i][0],
            version=bots[i][1],
            mu=ratings[i][0],
            sigma=ratings[i][1],
            score=scores[i],
            matches=matches[i],
            wins=wins[i],
            losses=losses[i],
            draws=draws[i],
            faults=faults[i],
        )
        for rank, i in enumerate(order, start=1)
    ]
    fault_rows = [
        FaultRow(bots[i][0], faults[i], dict(sorted(forfeits[i].items()))) for i in range(len(bots))
    ]
    return Standings(leaderboard, _head_to_head(bots, games), fault_rows, len(games), total)


def _head_to_head(bots: Sequence[tuple[str, str]], games: Sequence[GameRecord]) -> list[HeadToHead]:
    by_pair: dict[tuple[int, int], list[GameRecord]] = defaultdict(list)
    for g in games:
        by_pair[(min(g.seats), max(g.seats))].append(g)
    rows = []
    for (a, b), pair_games in sorted(by_pair.items()):
        wins = {a: 0, b: 0}
        draws = margin = 0
        duplicates: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
        for g in pair_games:
            seat_a = g.seats.index(a)
            margin += g.scores[seat_a] - g.scores[1 - seat_a]
            dup = duplicates[g.pair_id]
            dup[2] += 1
            if g.winner is None:
                draws += 1
                dup[0] += 0.5
                dup[1] += 0.5
            elif g.winner == seat_a:
                wins[a] += 1
                dup[0] += 1
            else:
                wins[b] += 1
                dup[1] += 1
        complete = [d for d in duplicates.values() if d[2] == 2]
        penta = [0] * 5
        for d in complete:
            penta[round(d[0] * 2)] += 1
        est = estimate(penta) if complete else None
        rows.append(
            HeadToHead(
                bot_a=bots[a][0],
                bot_b=bots[b][0],
                matches=len(pair_games),
                wins_a=wins[a],
                wins_b=wins[b],
                draws=draws,
                pairs_won_a=sum(1 for d in complete if d[0] > d[1]),
                pairs_won_b=sum(1 for d in complete if d[1] > d[0]),
                pairs_split=sum(1 for d in complete if d[0] == d[1]),
                margin_a=margin,
                pairs=len(complete),
                score_a=est.raw_score if est else None,  # what was scored: 1.0 after all wins
                score_a_low=est.score_low if est else None,
                score_a_high=est.score_high if est else None,
            )
        )
    return rows
