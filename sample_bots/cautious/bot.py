"""Cautious: a plain, careful Spades bot, for tournaments that need a middle strength.

It counts its honours and long spades, bids one trick less than that for safety, never bids Nil
and does nothing about the opponent's Nil; it takes tricks until its bid is made and ducks
after. So it is seldom set but collects bags and leaves points on the table: clearly weaker than
``heuristic``, far stronger than ``random``. It is self-contained (only the SDK), and short
enough to read as a second example after ``random``.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.sdk import ACE, KING, QUEEN, SPADES, Bot, View, rank_of, serve, suit_of, trick_winner


def keep_value(card: int) -> int:
    """Spades and high cards are worth keeping in the draw (R-2.1)."""
    rank = rank_of(card)
    if suit_of(card) == SPADES:
        return 2 + (rank >= QUEEN)
    return 1 if rank >= KING else 0


def is_master(card: int, view: View) -> bool:
    """No card of its suit that this bot has not seen ranks above it."""
    top = (card // 13 + 1) * 13
    return view.unseen_mask & ((1 << top) - (1 << (card + 1))) == 0


class CautiousBot(Bot):
    name = "cautious"

    def draw(self, view: View) -> bool:
        card = view.looking_at
        assert card is not None
        unseen = view.unseen
        average = sum(keep_value(c) for c in unseen) / max(1, len(unseen))
        return keep_value(card) >= average

    def bid(self, view: View) -> int:
        """Its honours and its long spades, counted low, one trick less for safety."""
        tricks = 0.0
        suits: list[list[int]] = [[], [], [], []]
        for card in view.hand:
            suits[suit_of(card)].append(rank_of(card))
        for suit, ranks in enumerate(suits):
            for rank in ranks:
                if rank == ACE:
                    tricks += 1.0
                elif rank == KING:
                    tricks += 0.8 if len(ranks) >= 2 else 0.3
                elif rank == QUEEN and len(ranks) >= 3:
                    tricks += 0.4
                elif suit == SPADES and rank >= 10:
                    tricks += 0.6
        tricks += max(0, len(suits[SPADES]) - 3) * 0.8  # long trumps win late
        return max(1, min(13, round(tricks) - 1))

    def play(self, view: View) -> int:
        legal = view.legal_cards
        me = view.me
        assert me.bid is not None
        if me.tricks_won < max(1, me.bid):
            return self.take(view, legal)
        return self.duck(view, legal)

    def take(self, view: View, legal: Sequence[int]) -> int:
        led = view.led_card
        if led is None:
            masters = [c for c in legal if is_master(c, view)]
            return max(masters, key=rank_of) if masters else min(legal, key=rank_of)
        winners = [c for c in legal if trick_winner(led, c) == c]
        if winners:
            return min(winners)  # the same suit sorts before spades, lowest first
        return min(legal, key=lambda c: (suit_of(c) == SPADES, rank_of(c)))

    def duck(self, view: View, legal: Sequence[int]) -> int:
        led = view.led_card
        if led is None:
            return min(legal, key=lambda c: (suit_of(c) == SPADES, rank_of(c)))
        losers = [c for c in legal if trick_winner(led, c) == led]
        if losers:
            return max(losers, key=lambda c: (suit_of(c) == SPADES, rank_of(c)))
        return max(legal, key=rank_of)


def make_bot() -> CautiousBot:
    return CautiousBot()


if __name__ == "__main__":
    serve(make_bot())
