"""What the bot knows of the opponent's hand, and deals sampled consistently with all of it.

Hard facts (never contradicted by a sampled deal):
- the opponent's cards are none of: the bot's hand, the cards played, the card it looks at, its
  own discards (unless the opponent's Double Nil exchange drew them back from the pile, R-3.4),
  the cards it put aside in its own exchange;
- a suit the opponent did not follow is a void (R-4.3); a spade led by the opponent before
  spades were broken means it then held only spades (R-4.5): a void in the three other suits;
- the opponent holds 13 cards less the ones it has played; an exchange of k cards drew at most
  k of the bot's discards, and every discard of the bot it has played is one of those.

Soft facts: the draw and the bid. An opponent that draws with sense keeps a good card it looks
at and rejects a poor one, so an unseen good card is likelier in its hand than on the pile
(``KEEP_WEIGHT`` to one; the sampling draws without replacement by those weights). And the
opponent's bid. A sampled hand whose rough trick count is far from the bid is
rejected with a chance that grows with the gap (importance resampling), so the deals lean
towards hands that would have made that bid; a blind Double Nil tells nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from random import Random

from arena.rules.cards import FULL_DECK, SPADES, SUIT_MASKS, cards_of, mask_of
from arena.sdk import View

SPADES_MASK = SUIT_MASKS[SPADES]
KEEP_WEIGHT = 2.5
"""How much likelier a good card (an ace, king or queen, or a spade from the eight up) is to be
in the opponent's hand than on the pile: a good card passing through a sensible drawer's hands is
kept about three times in four, a poor one about one in four."""
PRIOR_TRIES = 8
"""Candidate hands drawn per sample at most when weighting by the opponent's bid."""
PRIOR_SIGMA = 1.6
"""How far (in tricks) a sampled hand's estimate may be from the bid before it is unlikely."""


@dataclass(frozen=True, slots=True)
class Knowledge:
    """The bot's information about the hidden cards, from one request."""

    seat: int
    hand: int
    """The bot's own cards (mask)."""
    opp_count: int
    """Cards the opponent holds now."""
    pool: tuple[int, ...]
    """Unseen cards the opponent may hold (its void suits removed)."""
    weights: tuple[float, ...]
    """Per card of ``pool``: -1/w for its sampling weight w (the key of weighted sampling)."""
    discards: tuple[int, ...]
    """The bot's own discards the opponent may have drawn in its exchange (void suits removed)."""
    discard_draws: int
    """At most this many of ``discards`` are in the opponent's hand."""
    pile_size: int
    """Cards on the pile when the opponent exchanged; with ``forced``, the urn of its draws."""
    forced: int
    """The bot's discards the opponent has played: drawn by its exchange for certain."""
    voids: int
    """Suits the opponent is known to lack, as a 4-bit mask."""
    opp_played: int
    """Cards the opponent has played this hand (mask), for the bid prior."""
    opp_bid: int | None
    """The opponent's bid when it carries information (None for none or a blind Double Nil)."""

    @property
    def possible(self) -> int:
        """Every card the opponent may hold."""
        return mask_of(self.pool) | mask_of(self.discards)


def opponent_voids(view: View) -> int:
    """Suits the opponent has shown it lacks, from the tricks (R-4.3, R-4.5)."""
    opp = view.opponent
    voids = 0
    broken = False
    for trick in view.tricks:
        cards = trick.cards
        lead = cards[0]
        if trick.leader == opp and lead // 13 == SPADES and not broken:
            voids |= 0b0111  # it led a spade unbroken: it held only spades
        if trick.leader != opp and len(cards) == 2 and cards[1] // 13 != lead // 13:
            voids |= 1 << (lead // 13)
        if any(c // 13 == SPADES for c in cards):
            broken = True
    return voids


def knowledge_of(view: View) -> Knowledge:
    """The facts of ``view`` about the hidden cards. The cards the bot put aside in its own
    Double Nil exchange are out of play (R-3.4): the view carries them (``own_put_aside``, part
    of the information set), so the bot keeps no memory of its own."""
    own_aside = mask_of(view.own_put_aside)
    hand = view.hand_mask
    played = view.played_mask
    opp = view.opponent
    opp_played = 0
    for trick in view.tricks:
        for i, c in enumerate(trick.cards):
            if (trick.leader if i == 0 else trick.leader ^ 1) == opp:
                opp_played |= 1 << c
    own_discards = mask_of(view.own_discards) & ~hand
    seen = hand | played | own_discards | own_aside
    if view.looking_at is not None:
        seen |= 1 << view.looking_at
    voids = opponent_voids(view)
    allowed = FULL_DECK
    for s in range(4):
        if voids >> s & 1:
            allowed &= ~SUIT_MASKS[s]
    exchanged = view.opp.cards_exchanged or 0
    forced = (own_discards & opp_played).bit_count()
    pile = 26
    if view.me.cards_exchanged and view.is_first_drawer is False:
        pile -= view.me.cards_exchanged  # the second player exchanges first
    opp_count = 13 - opp_played.bit_count()
    pool = FULL_DECK & ~seen & allowed
    discards = own_discards & ~played & allowed if exchanged else 0
    opp_bid = view.opp.bid
    if view.opp.double_nil:
        opp_bid = None
    if pool.bit_count() + min(exchanged - forced, discards.bit_count()) < opp_count:
        # Not enough room: some fact was wrong (a referee that does not send the put-aside
        # cards): fall back on the cards unseen, without voids.
        pool = FULL_DECK & ~(hand | played | own_discards)
    return Knowledge(
        seat=view.seat,
        hand=hand,
        opp_count=opp_count,
        pool=cards_of(pool),
        weights=tuple(-1.0 / (KEEP_WEIGHT if _good(c) else 1.0) for c in cards_of(pool)),
        discards=cards_of(discards),
        discard_draws=max(0, exchanged - forced),
        pile_size=pile,
        forced=forced,
        voids=voids,
        opp_played=opp_played,
        opp_bid=opp_bid,
    )


def _good(card: int) -> bool:
    r = card % 13
    return r >= 10 or (card >= 39 and r >= 6)


def _discards_held(k: Knowledge, rng: Random) -> int:
    """How many of the bot's discards (still unplayed) the opponent holds: its exchange drew
    uniformly from a pile holding 13 of them, less the ones it has already played."""
    if not k.discard_draws or not k.discards:
        return 0
    mine = 13
    total = k.pile_size
    draws = k.discard_draws + k.forced
    for _ in range(20):
        got = 0
        m, t = mine, total
        for _ in range(draws):
            if rng.random() * t < m:
                got += 1
                m -= 1
            t -= 1
        if got >= k.forced:
            return min(got - k.forced, len(k.discards), k.opp_count)
    return 0


def sample_hand(k: Knowledge, rng: Random) -> int:
    """One hand (mask) for the opponent, consistent with every hard fact of ``k``."""
    j = _discards_held(k, rng)
    need = k.opp_count - j
    if need > len(k.pool):
        j = k.opp_count - len(k.pool)
        need = len(k.pool)
    hand = 0
    pool = k.pool
    random = rng.random
    log = math.log
    # Weighted sampling without replacement (Efraimidis-Spirakis): the largest log(u)/w.
    keys = [log(1.0 - random()) * w for w in k.weights]
    for i in sorted(range(len(pool)), key=keys.__getitem__)[:need]:
        hand |= 1 << pool[i]
    if j:
        for c in rng.sample(k.discards, j):
            hand |= 1 << c
    return hand


def sample_weighted(k: Knowledge, rng: Random) -> int:
    """A hand for the opponent as ``sample_hand``, leaning towards hands that fit its bid."""
    hand = sample_hand(k, rng)
    bid = k.opp_bid
    if bid is None:
        return hand
    best, best_w = hand, -1.0
    for _ in range(PRIOR_TRIES):
        gap = estimate_tricks(hand | k.opp_played) - bid
        if bid > 0 and gap > 0:
            gap *= 0.5  # bidding under one's tricks is common; over them is rare
        w = math.exp(-gap * gap / (2 * PRIOR_SIGMA * PRIOR_SIGMA))
        if rng.random() < w:
            return hand
        if w > best_w:
            best, best_w = hand, w
        hand = sample_hand(k, rng)
    return best


# A card's rough trick value, by suit kind and rank index (0 = two ... 12 = ace).
_SPADE_TOP = (0.0,) * 8 + (0.3, 0.45, 0.6, 0.85, 1.0)
_SIDE_TOP = (0.0,) * 9 + (0.05, 0.25, 0.6, 0.9)


def estimate_tricks(hand: int) -> float:
    """A quick count of the tricks a 13-card hand (mask) takes: high cards, long spades, and
    ruffs from short side suits."""
    spades = hand >> 39 & 0x1FFF
    n_spades = spades.bit_count()
    total = 0.0
    for r in range(13):
        if spades >> r & 1:
            total += _SPADE_TOP[r]
    total += 0.7 * max(0, n_spades - 4)
    for s in range(3):
        suit = hand >> (13 * s) & 0x1FFF
        n = suit.bit_count()
        for r in range(9, 13):
            if suit >> r & 1 and n > 12 - r:
                total += _SIDE_TOP[r]
        if n < 2 and n_spades > 2:
            total += 0.45 * (2 - n)
    return total
