"""Who plays whom, on which deal and in which seat: the round-robin schedule.

A tournament of B bots and N deal seeds has B*(B-1)/2 pairs; every pair plays every deal seed
twice with the seats swapped. The two matches of one pair on one seed form a *duplicate pair*:
each bot holds the other's cards in the other match (the engine shuffles every hand from the seed
alone), so the luck of the deal cancels within the pair. The pair shares one ``pair_id`` and the
two matches stand next to each other in the schedule.

How the seeds are given out is the deal mode:

- ``pairs`` (the default): each duplicate pair gets a seed of its own, ``deal_seed(seed, r,
  "pair", a, b)`` for the bot pair ``(a, b)`` (indices into the stored entrant list, so a resume
  derives the same seeds) in round ``r``. Its two seatings share it, no other pair plays it: a
  bot meets a deal only in its own twin pair, so two processes per bot are enough for none of
  them to see a deal twice, whatever the field (``arena.tournament.lanes``).
- ``duplicate``: the N seeds are shared across all pairs as well (every bot plays the same
  deals, as in duplicate bridge, so pairs can be compared deal by deal); each bot then meets
  every deal once per opponent and seat, which takes ``2 * (B - 1)`` processes per bot.
- ``independent``: every match a seed of its own, the control against which the benefit of
  duplicates is measured (docs/benchmarks.md).

The schedule is a pure function of (number of bots, N, tournament seed, deal mode): a resumed
tournament, or a second run with the same seed, plays the same matches in the same order.
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass
from itertools import combinations

from arena.errors import ArenaError

SEED_BITS = 48
"""Deal seeds stay below 2**48: exact in JSON numbers and in a signed 64-bit column."""


class DealMode(enum.Enum):
    PAIRS = "pairs"
    """Both seatings of a pair play one seed, which no other pair plays (the default)."""
    DUPLICATE = "duplicate"
    """Both seatings of a pair play one seed, and every pair plays the same N seeds."""
    INDEPENDENT = "independent"
    """Every match gets its own seed (the control for measuring what duplicates buy)."""


DEFAULT_DEALS = DealMode.PAIRS
"""The mode of a tournament that names none: fair play (no bot process sees a deal twice) at two
processes per bot. A stored tournament keeps the mode it was created with."""


def parse_deal_mode(text: str) -> DealMode:
    """A ``--deals`` value, or an error naming the modes."""
    try:
        return DealMode(text)
    except ValueError:
        names = ", ".join(m.value for m in DealMode)
        raise ArenaError(f"--deals must be one of {names}, got {text!r}") from None


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    index: int
    """Position in schedule order, from 0; the order in which ratings are computed."""
    pair_id: int
    """The duplicate pair: both seatings of one bot pair on one deal seed share it."""
    seats: tuple[int, int]
    """Indices into the tournament's bot list of the bots in seats 0 and 1."""
    seed: int
    """The deal seed of the match (R-2: the only chance in a match)."""
    round: int
    """Which of the N deal seeds (0 ... N-1) this match belongs to."""


def deal_seed(tournament_seed: int, *parts: int | str) -> int:
    """A seed derived from the tournament seed by a stable hash (never Python's ``hash``)."""
    text = "spades-arena/deal/" + "/".join(str(p) for p in (tournament_seed, *parts))
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> (64 - SEED_BITS)


def validate(num_bots: int, games: int) -> None:
    """The checks a user can act on, before anything is started or written."""
    if num_bots < 2:
        raise ArenaError(f"a tournament needs at least two bots, got {num_bots}")
    if games <= 0:
        raise ArenaError(f"--games must be at least 1 (deal seeds per pair), got {games}")


def build_schedule(
    num_bots: int, games: int, seed: int, deals: DealMode = DEFAULT_DEALS
) -> list[ScheduledGame]:
    """Every pair, times ``games`` deal seeds, times both seatings, round by round.

    Round ``r`` holds one duplicate pair of every bot pair, so any prefix of the schedule is
    balanced across pairs (a tournament stopped early still compares everyone on equal terms),
    and the K matches running at once are spread over different bots.
    """
    validate(num_bots, games)
    pairs = list(combinations(range(num_bots), 2))
    out: list[ScheduledGame] = []
    for r in range(games):
        shared = deal_seed(seed, r)
        for p, (a, b) in enumerate(pairs):
            pair_id = r * len(pairs) + p
            own = deal_seed(seed, r, "pair", a, b) if deals is DealMode.PAIRS else shared
            for seats in ((a, b), (b, a)):
                index = len(out)
                game_seed = own if deals is not DealMode.INDEPENDENT else deal_seed(seed, r, index)
                out.append(ScheduledGame(index, pair_id, seats, game_seed, r))
    return out
