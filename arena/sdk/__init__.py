"""The Python bot SDK: subclass :class:`Bot`, override the decisions, call :func:`serve`.

    from arena.sdk import Bot, View, serve

    class MyBot(Bot):
        name = "mybot"

        def play(self, view: View) -> int:
            return max(view.legal_cards)

    if __name__ == "__main__":
        serve(MyBot())

``play_local(bot0, bot1, seed)`` (from ``arena.sdk.local``) plays a match in-process for tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arena.rules.decisions import Decision
from arena.rules.observation import SeatView, TrickView
from arena.rules.outcome import HandResult
from arena.rules.ruleset import RuleSet
from arena.sdk.bot import Bot
from arena.sdk.cards import (
    ACE,
    CLUBS,
    DIAMONDS,
    HEARTS,
    JACK,
    KING,
    QUEEN,
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
from arena.sdk.server import ADDRESS_ENV, BotServer, serve, start
from arena.sdk.view import Clock, HandEnd, MatchEnd, MatchStart, View, trick_winner

if TYPE_CHECKING:
    from arena.sdk.local import LocalResult, play_local

__all__ = [
    "ACE",
    "ADDRESS_ENV",
    "CLUBS",
    "DIAMONDS",
    "HEARTS",
    "JACK",
    "KING",
    "QUEEN",
    "SPADES",
    "SUITS",
    "Bot",
    "BotServer",
    "Clock",
    "Decision",
    "HandEnd",
    "HandResult",
    "LocalResult",
    "MatchEnd",
    "MatchStart",
    "RuleSet",
    "SeatView",
    "TrickView",
    "View",
    "card_name",
    "cards_of",
    "format_cards",
    "make_card",
    "mask_of",
    "parse_card",
    "play_local",
    "rank_of",
    "serve",
    "start",
    "suit_of",
    "trick_winner",
]


def __getattr__(name: str) -> Any:
    # The in-process player pulls in the engine's Match; bots that only serve never need it.
    if name in ("play_local", "LocalResult"):
        from arena.sdk import local

        return getattr(local, name)
    raise AttributeError(f"module 'arena.sdk' has no attribute {name!r}")
