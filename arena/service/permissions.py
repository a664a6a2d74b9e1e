"""Who may do what on the service, and how much a request may ask: the refusals a caller can act
on (docs/service.md, "Who may do what").

- **Bounds** (``TournamentLimits``): bots, games (deal seeds per pair, the tournament's rounds),
  the total match count, clocks and fault allowances are capped before anything is built, so a
  request costs at most what the caps allow (INVALID_ARGUMENT above).
- **Who may pit whom** (``check_may_start``): every tournament the service plays is rated. A
  member token may start one only of its own bots and the arena's sample bots; a tournament of
  anyone else's bots needs an admin token (or the service's own scheduler, which acts as admin).
  No one picks the deal seed: the server draws it (``arena.service.deals``).
- **Quotas** (``Quotas``): submissions per token per hour, bytes stored per token and in total,
  tournaments running per token and on the server (RESOURCE_EXHAUSTED, saying what to do).
- **Who may stop or resume a tournament** (``check_may_control``): the token that created it,
  or an admin.
- **Names** (``check_bot_name``): a bot name sent to the service follows bot.toml's rule; the
  sample bots' names are reserved.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from arena.errors import ArenaError
from arena.runtime.manifest import NAME_PATTERN

MIB = 1024 * 1024


class PolicyError(ArenaError):
    """The caller's token may not do this (PERMISSION_DENIED); the message says who may."""


class QuotaError(ArenaError):
    """A quota is full (RESOURCE_EXHAUSTED); the message says which and what to do."""


@dataclass(frozen=True, slots=True)
class TournamentLimits:
    """What one StartTournament may ask; defaults that a real tournament never meets."""

    max_bots: int = 64
    max_games: int = 10_000
    """Deal seeds per pair (rounds of the round robin)."""
    max_matches: int = 100_000
    """Matches of the whole schedule: bots·(bots-1)/2 pairs · games · 2 seatings."""
    max_move_timeout_ms: int = 60_000
    max_time_bank_ms: int = 600_000
    max_faults: int = 1000


@dataclass(frozen=True, slots=True)
class Quotas:
    submissions_per_hour: int = 30
    """Accepted submissions per token in any hour."""
    stored_bytes_per_token: int = 1024 * MIB
    """Unpacked bytes a token's uploads may keep on the server."""
    stored_bytes_total: int = 20 * 1024 * MIB
    """Unpacked bytes of every upload together."""
    running_per_token: int = 2
    """Tournaments one token may have running at once."""
    running_total: int = 8
    """Tournaments running at once on the server."""


def schedule_size(num_bots: int, games: int) -> int:
    """Matches of a round robin: every pair, every deal seed, both seatings."""
    return num_bots * (num_bots - 1) // 2 * games * 2


def check_tournament_bounds(
    limits: TournamentLimits,
    *,
    num_bots: int,
    games: int,
    move_timeout_ms: int,
    time_bank_ms: int,
    max_faults: int,
) -> None:
    """INVALID_ARGUMENT for a request beyond the caps, before any schedule is built."""
    if num_bots > limits.max_bots:
        raise ArenaError(f"{num_bots} bots; a tournament here takes at most {limits.max_bots}")
    if games > limits.max_games:
        raise ArenaError(
            f"games {games}; a tournament here plays at most {limits.max_games} deal seeds per pair"
        )
    matches = schedule_size(num_bots, games)
    if matches > limits.max_matches:
        raise ArenaError(
            f"{num_bots} bots with games {games} make {matches} matches; a tournament here "
            f"plays at most {limits.max_matches}: fewer bots or games"
        )
    if move_timeout_ms > limits.max_move_timeout_ms:
        raise ArenaError(
            f"move_timeout_ms {move_timeout_ms}; at most {limits.max_move_timeout_ms} here"
        )
    if time_bank_ms > limits.max_time_bank_ms:
        raise ArenaError(f"time_bank_ms {time_bank_ms}; at most {limits.max_time_bank_ms} here")
    if max_faults > limits.max_faults:
        raise ArenaError(f"max_faults {max_faults}; at most {limits.max_faults} here")


def check_bot_name(name: str, *, reserved: Iterable[str] = (), admin: bool = False) -> None:
    """A bot name from a caller: bot.toml's rule (no control characters, escapes, NUL or '/'),
    and not a sample bot's name unless the caller is an admin."""
    if not NAME_PATTERN.fullmatch(name):
        shown = name if len(name) <= 40 else name[:40] + "…"
        raise ArenaError(
            f"{shown!r} is not a valid bot name: 1 to 64 characters of a-z, 0-9, '_' and '-', "
            "starting with a letter or digit"
        )
    if not admin and name in set(reserved):
        raise PolicyError(f"bot name {name!r} is reserved for the arena's sample bot")


def check_may_start(
    *,
    admin: bool,
    token_id: int | None,
    owners: Mapping[str, int | None],
    sample_names: Iterable[str],
) -> None:
    """Whether a caller may start a rated tournament of these bots (``owners``: each bot's
    owning token id, None for a bot registered locally or a sample bot).

    An admin (and the service's own scheduler) may pit any bots. A member may pit its own bots
    and the arena's sample bots, never another member's nor a locally registered bot: a rated
    tournament of other people's bots is how ratings get manipulated."""
    if admin:
        return
    samples = set(sample_names)
    others = sorted(
        name
        for name, owner in owners.items()
        if owner != token_id and not (owner is None and name in samples)
    )
    if others:
        listed = ", ".join(others[:5]) + (" …" if len(others) > 5 else "")
        raise PolicyError(
            f"rated tournaments of other tokens' bots need an admin token; not yours: {listed} "
            "(pit your own bots and the sample bots, or ask the arena's admin)"
        )


def check_may_control(
    *, admin: bool, token_id: int | None, owner_token_id: int | None, tournament_id: int, verb: str
) -> None:
    """Whether a caller may ``verb`` (cancel, resume) a tournament: the token that created it
    (``owner_token_id``; None when no token did, e.g. a local run) or an admin."""
    if admin:
        return
    if token_id is None or owner_token_id is None or token_id != owner_token_id:
        raise PolicyError(
            f"tournament {tournament_id} was started by another token: only that token or an "
            f"admin token may {verb} it"
        )
