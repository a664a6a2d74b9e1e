"""Card helpers for bot authors: the engine's int cards, with names for the ranks.

A card is ``suit * 13 + rank - 2``: 0 is the two of clubs, 51 the ace of spades, so cards of one
suit sort by rank and ``card // 13`` is the suit.
"""

from __future__ import annotations

from arena.rules.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    SPADES,
    SUITS,
    card_name,
    cards_of,
    format_cards,
    make_card,
    mask_of,
    parse_card,
    rank_of,
    suit_of,
)

JACK, QUEEN, KING, ACE = 11, 12, 13, 14

__all__ = [
    "ACE",
    "CLUBS",
    "DIAMONDS",
    "HEARTS",
    "JACK",
    "KING",
    "QUEEN",
    "SPADES",
    "SUITS",
    "card_name",
    "cards_of",
    "format_cards",
    "make_card",
    "mask_of",
    "parse_card",
    "rank_of",
    "suit_of",
]
