"""Secret deals: the seed of a rated tournament is the server's, and no deal is known before it
is played.

The engine deals every hand from the match's seed alone (R-2), so whoever knows a seed before a
match knows both hands. Hence, for every tournament the service plays:

- the tournament seed is drawn by the server from the operating system's cryptographic source
  (``secrets``), 63 bits: deal seeds derive from it by a hash (blake2b), and recovering it from
  published deal seeds would take 2**63 trials;
- while the tournament runs, its seed is never shown, and a match's seed (and its decisions,
  which show the cards) are shown only once no game still to be played has the same deal: the
  other seating of a pair shares it (and, in ``duplicate`` mode, every pair of the round). That
  rule is ``arena.visibility``'s, for every surface.
"""

from __future__ import annotations

import secrets

TOURNAMENT_SEED_BITS = 63
"""Fits the signed 64-bit seed of arena.v1 and the store."""


def secret_tournament_seed() -> int:
    """A tournament seed no one can guess or derive (the ladder uses this too)."""
    return secrets.randbits(TOURNAMENT_SEED_BITS)
