"""The class a Python bot author subclasses: one method per decision, plain values in and out."""

from __future__ import annotations

from collections.abc import Iterable

from arena.sdk.cards import ACE, QUEEN, SPADES, rank_of, suit_of
from arena.sdk.view import HandEnd, MatchEnd, MatchStart, View


class Bot:
    """A Spades bot. Override the decisions you care about; the rest have simple defaults.

    One bot object serves every match of its process, possibly several at once from several
    threads: keep no per-match state on ``self`` unless it is keyed by ``view.match_id`` (and
    guarded by a lock). Every request carries the whole information set, so most bots need
    no state at all. An exception raised here fails the RPC with status INTERNAL, which the
    referee counts as a fault of the bot.
    """

    name: str = "bot"

    # -- notices ----------------------------------------------------------------------------

    def start_match(self, start: MatchStart) -> None:
        """A match begins; ``start.seat`` is this bot's seat."""

    def end_hand(self, end: HandEnd) -> None:
        """A hand was scored (bids, tricks, points, scores, bags, and every trick)."""

    def end_match(self, end: MatchEnd) -> None:
        """A match ended; drop any state kept for ``end.match_id``."""

    # -- decisions --------------------------------------------------------------------------

    def decide_double_nil(self, view: View) -> bool:
        """Declare Double Nil before seeing a card of the hand (R-3.3)? Default: never."""
        return False

    def draw(self, view: View) -> bool:
        """Keep (True) or reject (False) ``view.looking_at`` (R-2.1).

        Rejecting means the next, unseen card must be kept. Default: keep spades and cards
        from ten up, reject the rest."""
        card = view.looking_at
        assert card is not None
        return suit_of(card) == SPADES or rank_of(card) >= 10

    def exchange(self, view: View) -> Iterable[int]:
        """After declaring Double Nil: up to ``view.max_cards`` cards of the hand to put aside,
        replaced at random from the discard pile (R-3.4). Default: none."""
        return ()

    def bid(self, view: View) -> int:
        """Tricks to bid, one of ``view.legal_bids``; 0 is Nil (R-3.1).

        Default: one trick per ace and per spade from queen up, at least one."""
        sure = sum(
            1
            for c in view.hand
            if rank_of(c) == ACE or (suit_of(c) == SPADES and rank_of(c) >= QUEEN)
        )
        return max(1, sure)

    def play(self, view: View) -> int:
        """The card to play, one of ``view.legal_cards`` (R-4). Default: the lowest one."""
        return min(view.legal_cards, key=rank_of)
