"""The rules of two-player Spades (spades-rules.md) as a pure, deterministic engine.

``Match(seed, rules)`` is the state; everything a referee, a bot or a researcher needs is
exported here. The package does no I/O and imports nothing of the rest of the arena.
"""

from arena.rules.cards import (
    CLUBS,
    DIAMONDS,
    FULL_DECK,
    HEARTS,
    NUM_CARDS,
    RANKS,
    SPADES,
    SPADES_MASK,
    SUIT_MASKS,
    SUIT_NAMES,
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
from arena.rules.decisions import Action, Decision
from arena.rules.errors import (
    IllegalActionError,
    InvalidRuleSetError,
    MatchOverError,
    RulesError,
    WrongDecisionError,
)
from arena.rules.match import ENGINE_VERSION, Match, exchange_order, stock_order
from arena.rules.observation import InformationSet, Observation, SeatView, TrickView
from arena.rules.outcome import HandResult, Outcome, Termination
from arena.rules.playout import TrickPlay, legal_plays, settle
from arena.rules.ruleset import RuleSet
from arena.rules.scoring import bag_penalty, hand_points

__all__ = [
    "CLUBS",
    "DIAMONDS",
    "ENGINE_VERSION",
    "FULL_DECK",
    "HEARTS",
    "NUM_CARDS",
    "RANKS",
    "SPADES",
    "SPADES_MASK",
    "SUITS",
    "SUIT_MASKS",
    "SUIT_NAMES",
    "Action",
    "Decision",
    "HandResult",
    "IllegalActionError",
    "InformationSet",
    "InvalidRuleSetError",
    "Match",
    "MatchOverError",
    "Observation",
    "Outcome",
    "RuleSet",
    "RulesError",
    "SeatView",
    "Termination",
    "TrickPlay",
    "TrickView",
    "WrongDecisionError",
    "bag_penalty",
    "card_name",
    "cards_of",
    "exchange_order",
    "format_cards",
    "hand_points",
    "legal_plays",
    "make_card",
    "mask_of",
    "parse_card",
    "rank_of",
    "settle",
    "stock_order",
    "suit_of",
]
