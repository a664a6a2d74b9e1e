"""Twin lanes: which of a bot's processes plays each game, so that no process sees a deal twice.

Every hand's deck comes from the deal seed alone and the draw alternates (R-2.1, R-2.3), so the
26 cards a bot sees in one seating of a deal are exactly the 26 its opponent sees in the other
seating (its duplicate twin), and the same 26 again whenever it takes the same seat of that deal
against another bot (``duplicate`` deals are shared by all pairs). A process that remembers what
it was offered would know its opponent's options, or its own future draws. So a bot runs as
several processes, its *lanes*, and a game goes to the lane given by how many times the bot has
already played that deal in the run: the first time lane 0, the second lane 1, and so on. No lane
plays one deal seed twice, in either seat; in particular a deal's two seatings never share one.

A bot needs as many lanes as the most times it plays one deal: two under ``pairs`` deals (the
default: a seed per duplicate pair, so a bot meets a deal only in its own twin pair), whatever
the field, and in any duplicate pair of two bots (a comparison, a ladder pair); ``2 * (B - 1)`` in
a round robin of B bots on ``duplicate`` deals (shared by all pairs); one on independent deals (a
seed per match). Lanes share nothing: each is its own process under its own supervisor (in the
sandbox its own instance: own tmpfs, own uid, own cgroup), started when its first game comes up.

The order in which games are handed out (``play_order``) keeps a lane busy with different deals
at once when more than one match is in play: per block of two rounds, every first seating of the
block goes out (each on lane 0 of both its bots), bot pair by bot pair, then every twin (lane 1).
So the matches in play at once share processes (two deals of one bot pair: both of its bots'
processes; the next pair: one bot's), as one process per bot did before lanes, and never both
seatings of one deal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from arena.tournament.schedule import ScheduledGame

ROUNDS_TOGETHER = 2
"""Rounds whose first seatings are handed out before their twins: a bot pair's two deals side
by side, which its two bots' processes serve at once (as one process per bot served a twin pair
before lanes). Blocks of more rounds would hold every twin back longer: a match stays sealed
until its twin is played."""


def assign_lanes(games: Iterable[tuple[tuple[int, int], int]]) -> list[tuple[int, int]]:
    """For games given as (entrants in seats 0 and 1, deal seed), in the order they are to be
    played, the lane of each seat's entrant: the number of earlier games in which that entrant
    played that seed. Raises ValueError for an entrant in both seats of one game."""
    seen: Counter[tuple[int, int]] = Counter()
    out: list[tuple[int, int]] = []
    for (a, b), seed in games:
        if a == b:
            raise ValueError(f"entrant {a} cannot play both seats of one game")
        lanes = (seen[a, seed], seen[b, seed])
        seen[a, seed] += 1
        seen[b, seed] += 1
        out.append(lanes)
    return out


def play_order(games: Sequence[ScheduledGame], concurrency: int) -> list[ScheduledGame]:
    """The games (pending, in schedule order) in the order they are handed out and given lanes.

    One match at a time: schedule order. More: per block of ``ROUNDS_TOGETHER`` rounds, the
    first seating of each of the block's deals, bot pair by bot pair (a pair's two rounds side
    by side), then their twins in the same order. Schedule order put a deal's two seatings side
    by side, on different lanes of both bots; here the games next to each other share lanes (a
    pair's two deals: both bots' lane 0, then both lane 1; one pair and the next, when they
    share a bot: its lane). Blocks go in round order, so a tournament stopped early is still
    balanced across pairs, to within a block. A game's place in its twin pair is counted among
    the games given (a resumed run whose first seating is done plays the twin as a first)."""
    if concurrency < 2:
        return list(games)
    pair_index: dict[tuple[int, int], int] = {}
    seen: Counter[int] = Counter()
    keys: list[tuple[int, int, int, int, int]] = []
    for i, g in enumerate(games):
        a, b = g.seats
        pair = pair_index.setdefault((min(a, b), max(a, b)), len(pair_index))
        place = seen[g.pair_id]
        seen[g.pair_id] += 1
        keys.append((g.round // ROUNDS_TOGETHER, place, pair, g.round, i))
    return [games[i] for i in sorted(range(len(games)), key=keys.__getitem__)]
