"""Cards as small integers, and sets of cards as bit masks.

A card is ``suit * 13 + (rank - 2)``: 0 is the two of clubs, 51 the ace of spades. Suits are
ordered clubs, diamonds, hearts, spades (R-1.1); ranks run 2 (low) to 14, the ace (high). A set
of cards is an int whose bit ``c`` is set when card ``c`` is in it, so suit filters, membership
and removal are single integer operations on the engine's hot path.
"""

from __future__ import annotations

from collections.abc import Iterable

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUITS = (CLUBS, DIAMONDS, HEARTS, SPADES)
SUIT_LETTERS = "cdhs"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_LETTERS = "23456789TJQKA"
RANKS = tuple(range(2, 15))

NUM_CARDS = 52
FULL_DECK = (1 << NUM_CARDS) - 1
SUIT_MASKS = tuple(((1 << 13) - 1) << (13 * s) for s in SUITS)
SPADES_MASK = SUIT_MASKS[SPADES]


def make_card(suit: int, rank: int) -> int:
    """The card of ``suit`` (0-3) and ``rank`` (2-14)."""
    if suit not in SUITS or rank not in RANKS:
        raise ValueError(f"no such card: suit {suit!r}, rank {rank!r} (R-1.1)")
    return suit * 13 + rank - 2


def suit_of(card: int) -> int:
    return card // 13


def rank_of(card: int) -> int:
    return card % 13 + 2


def card_name(card: int) -> str:
    """Short name, rank then suit letter: ``"As"``, ``"Th"``, ``"2c"``."""
    return RANK_LETTERS[card % 13] + SUIT_LETTERS[card // 13]


def parse_card(text: str) -> int:
    """Parse ``"As"``, ``"10h"``, ``"th"``, ``"QD"`` into a card."""
    t = text.strip()
    if len(t) < 2:
        raise ValueError(f"not a card: {text!r} (expected rank then suit, e.g. 'As', '10h')")
    rank_text, suit_text = t[:-1].upper(), t[-1].lower()
    if rank_text == "10":
        rank_text = "T"
    if len(rank_text) != 1 or rank_text not in RANK_LETTERS or suit_text not in SUIT_LETTERS:
        raise ValueError(f"not a card: {text!r} (expected rank then suit, e.g. 'As', '10h')")
    return SUIT_LETTERS.index(suit_text) * 13 + RANK_LETTERS.index(rank_text)


def mask_of(cards: Iterable[int]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


_CARDS_OF: dict[int, tuple[int, ...]] = {}
"""Recent masks' cards: a hand is asked for again and again while it is played out."""


def cards_of(mask: int) -> tuple[int, ...]:
    """The cards of a mask, lowest first."""
    cards = _CARDS_OF.get(mask)
    if cards is not None:
        return cards
    out = []
    m = mask
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    cards = tuple(out)
    if len(_CARDS_OF) >= 65536:
        _CARDS_OF.clear()
    _CARDS_OF[mask] = cards
    return cards


def format_cards(cards: Iterable[int]) -> str:
    return " ".join(card_name(c) for c in cards)
