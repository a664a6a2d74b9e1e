"""Heuristic: a rule-based Spades bot that plays like a careful club player.

- Draw (R-2.1): keeps a card when its value beats the average value of the cards it has not
  seen, since a rejected card is replaced by one of those, uniformly at random. The value is a
  card's trick-taking power, or, once the first cards make a Nil hand likely, its lowness.
- Bid (R-3.1): counts sure and likely tricks (aces, guarded kings, high and long spades, ruffs
  from short side suits with spades to spare); bids Nil when the chance of taking no trick,
  estimated suit by suit, is high.
- Play (R-4): takes tricks while the bid is not made; then ducks to avoid bags (R-5.5), unless
  the opponent can still be set. Keeps a Nil by playing the highest card that still loses and
  throwing its most dangerous card when void. Against a Nil bidder it leads the cards the Nil
  bidder is most likely to have to beat, plays under its cards and never ruffs them.

Every unseen card is in the opponent's hand with the same chance (the rest are in the discard
pile), which is what the estimates below rest on. The bot keeps no state between requests.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from arena.sdk import SPADES, SUITS, Bot, View, rank_of, serve, suit_of, trick_winner

SIDE_SUITS = tuple(s for s in SUITS if s != SPADES)

# A card's worth when deciding what to keep in the draw: roughly its chance to take a trick.
_SPADE_VALUE = {14: 1.0, 13: 0.9, 12: 0.8, 11: 0.7, 10: 0.6, 9: 0.55, 8: 0.5}
_SIDE_VALUE = {14: 0.85, 13: 0.6, 12: 0.3, 11: 0.15, 10: 0.05}


def trick_value(card: int) -> float:
    if suit_of(card) == SPADES:
        return _SPADE_VALUE.get(rank_of(card), 0.45)
    return _SIDE_VALUE.get(rank_of(card), 0.0)


def nil_value(card: int) -> float:
    """A card's worth to a Nil hand: low side cards are best, spades (never to be ruffed with,
    played only when forced) worst."""
    rank = rank_of(card)
    if suit_of(card) == SPADES:
        return 0.5 - 0.1 * (rank - 2)
    return 1.0 - 0.1 * (rank - 2)


# -- counting unseen cards -------------------------------------------------------------------


def by_suit(cards: Iterable[int]) -> list[list[int]]:
    """Cards split by suit, each list lowest first."""
    out: list[list[int]] = [[], [], [], []]
    for c in sorted(cards):
        out[c // 13].append(c)
    return out


def higher_unseen(card: int, unseen: int) -> int:
    """How many unseen cards of the card's suit rank above it."""
    top = (card // 13 + 1) * 13
    return (unseen & ((1 << top) - (1 << (card + 1)))).bit_count()


def lower_unseen(card: int, unseen: int) -> int:
    """How many unseen cards of the card's suit rank below it."""
    return (unseen & ((1 << card) - (1 << (card // 13 * 13)))).bit_count()


def unseen_in_suit(suit: int, unseen: int) -> int:
    return (unseen >> (suit * 13) & 0x1FFF).bit_count()


def at_least(n: int, k: int, q: float) -> float:
    """P(Binomial(n, q) >= k): the chance the opponent holds k or more of n unseen cards."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return math.fsum(math.comb(n, j) * q**j * (1 - q) ** (n - j) for j in range(k, n + 1))


# -- the estimates ---------------------------------------------------------------------------


def expected_tricks(hand: Sequence[int], unseen: int) -> float:
    """Tricks the hand should take against a sound opponent."""
    suits = by_suit(hand)
    spades = suits[SPADES][::-1]
    opp_spades = unseen_in_suit(SPADES, unseen) / 2
    tricks = 0.0
    spade_winners = 0
    for i, card in enumerate(spades, start=1):
        top = 0.5 ** higher_unseen(card, unseen)
        length = 0.85 if i > opp_spades + 0.5 else 0.0
        p = max(top, length)
        tricks += p
        spade_winners += p >= 0.5
    ruff_chances = 0.0
    for suit in SIDE_SUITS:
        mine = suits[suit][::-1]
        opp_len = unseen_in_suit(suit, unseen) / 2
        for i, card in enumerate(mine, start=1):
            h = higher_unseen(card, unseen)
            p = 0.5**h
            if len(mine) < h + 1:
                p *= 0.5  # it cannot wait for the higher cards to fall
            if i > opp_len:
                p *= 0.3  # the opponent is out of the suit by then and may ruff
            tricks += min(p, 0.9)
        ruff_chances += max(0.0, opp_len - len(mine) - 0.5)
    spare = len(spades) - spade_winners
    return tricks + 0.45 * min(spare, ruff_chances)


def suit_nil_risk(mine: Sequence[int], unseen: int, q: float) -> float:
    """The chance that a suit costs a Nil bidder a trick.

    The opponent leads its low cards and the Nil bidder must answer under each of them: with
    our cards y1 < y2 < … it fails when, for some i, the opponent holds i cards below y_i."""
    risk = 0.0
    for i, card in enumerate(mine, start=1):
        risk = max(risk, at_least(lower_unseen(card, unseen), i, q))
    return risk


def nil_chance(hand: Sequence[int], unseen: int, q: float = 0.5) -> float:
    """The chance of taking no trick with ``hand``.

    Spades are the worst: a Nil bidder cannot get rid of them on other suits (that is a ruff,
    and it wins), so the opponent must hold at least as many."""
    suits = by_suit(hand)
    chance = 1.0
    for suit in SUITS:
        chance *= 1.0 - suit_nil_risk(suits[suit], unseen, q)
    spades = len(suits[SPADES])
    if spades:
        chance *= at_least(unseen_in_suit(SPADES, unseen), spades, q)
    return chance


# -- the bot ---------------------------------------------------------------------------------


class HeuristicBot(Bot):
    name = "heuristic"
    nil_allowed = True
    """Whether the bot ever bids Nil."""
    bid_margin = 0.0
    """Added to the expected tricks before rounding down (a set costs far more than a bag, so
    the bot rounds down; measured against itself, 0 does better than +0.3 or -0.6)."""
    draw_bias = 0.0
    """Added to the average value of the unseen cards before comparing the card drawn."""
    set_slack = 1
    """Once its bid is made, the bot tries to set the opponent when its sure winners plus this
    many cover the tricks that would set it."""
    nil_bid_chance = 0.55
    """Bid Nil when the chance of taking no trick is at least this: +100 or -100 against the
    few points a weak hand makes by bidding."""
    nil_plan_after = 4
    """Draw turns after which a hand that looks like a Nil hand is built as one."""
    nil_plan_chance = 0.15
    """The chance of Nil, with the cards kept so far, above which the draw builds a Nil hand."""

    # -- the draw ---------------------------------------------------------------------------

    def draw(self, view: View) -> bool:
        card = view.looking_at
        assert card is not None
        unseen = view.unseen
        if not unseen:
            return True
        value = nil_value if self.plans_nil(view) else trick_value
        average = math.fsum(value(c) for c in unseen) / len(unseen)
        return value(card) >= average + self.draw_bias

    def plans_nil(self, view: View) -> bool:
        hand = view.hand
        if not self.nil_allowed or len(hand) < self.nil_plan_after:
            return False
        if view.opp.bid == 0 or view.opp.double_nil:
            return False  # two Nils cannot both be kept
        return nil_chance(hand, view.unseen_mask) >= self.nil_plan_chance

    # -- the bid ----------------------------------------------------------------------------

    def bid(self, view: View) -> int:
        unseen = view.unseen_mask
        opp = view.opp
        if (
            self.nil_allowed
            and 0 in view.legal_bids
            and opp.bid != 0
            and nil_chance(view.hand, unseen) >= self.nil_bid_chance
        ):
            return 0
        bid = math.floor(expected_tricks(view.hand, unseen) + self.bid_margin)
        if opp.bid == 0:
            bid -= 1  # effort goes into setting the Nil
        bid = max(1, min(13, bid))
        if bid in view.legal_bids:
            return bid
        return min(view.legal_bids, key=lambda b: (abs(b - bid), b))

    # -- the play ---------------------------------------------------------------------------

    def play(self, view: View) -> int:
        legal = view.legal_cards
        if len(legal) == 1:
            return legal[0]
        t = Table.of(view)
        me, opp = view.me, view.opp
        if me.bid == 0 and me.tricks_won == 0:
            return t.keep_nil(legal)
        if opp.bid == 0 and opp.tricks_won == 0:
            return t.set_nil(legal)
        if t.wants_tricks(self.set_slack):
            return t.take(legal)
        return t.duck(legal)


class Table:
    """What the bot knows in the play of a hand, and the ways it plays a card."""

    __slots__ = ("q", "unseen", "view", "voids")

    def __init__(self, view: View, unseen: int, q: float, voids: set[int]) -> None:
        self.view = view
        self.unseen = unseen
        """Cards that may be in the opponent's hand (or on the discard pile)."""
        self.q = q
        """The chance that a given unseen card is in the opponent's hand."""
        self.voids = voids
        """Suits the opponent has shown it lacks."""

    @classmethod
    def of(cls, view: View) -> Table:
        voids = set()
        opp_played = 0
        for trick in view.tricks:
            opp_pos = 0 if trick.leader != view.seat else 1
            if len(trick.cards) > opp_pos:
                opp_played += 1
            cards = trick.cards
            if opp_pos == 1 and len(cards) == 2 and cards[1] // 13 != cards[0] // 13:
                voids.add(cards[0] // 13)
        unseen = view.unseen_mask
        count = unseen.bit_count()
        q = (13 - opp_played) / count if count else 0.0
        return cls(view, unseen, min(1.0, q), voids)

    def may_ruff(self) -> bool:
        return SPADES not in self.voids and unseen_in_suit(SPADES, self.unseen) > 0

    # -- what a lead does -------------------------------------------------------------------

    def led_and_won(self, card: int, opponent_ducks: bool) -> float:
        """The chance that leading ``card`` wins the trick.

        An opponent that wants the trick wins it with any higher card of the suit; one that
        ducks (a Nil bidder, or a player with its bid made) lets it win whenever it holds a
        lower card of the suit or none of it."""
        s = suit_of(card)
        if s in self.voids:
            if s == SPADES or not self.may_ruff():
                return 1.0
            return 1.0 if opponent_ducks else 0.5
        above = higher_unseen(card, self.unseen)
        below = lower_unseen(card, self.unseen)
        miss = 1 - self.q
        if opponent_ducks:
            return 1.0 - (miss**below - miss ** (above + below))
        return miss**above

    def opponent_wants_tricks(self) -> bool:
        opp = self.view.opp
        return opp.bid is not None and opp.bid > opp.tricks_won

    # -- modes ------------------------------------------------------------------------------

    def wants_tricks(self, set_slack: int) -> bool:
        view = self.view
        me, opp = view.me, view.opp
        assert me.bid is not None and opp.bid is not None
        if me.bid > 0 and me.tricks_won < me.bid:
            return True
        opp_need = opp.bid - opp.tricks_won
        if opp.bid == 0 or opp_need <= 0:
            return False
        # Set the opponent if enough of the tricks left can be taken: worth far more than a bag.
        to_set = view.tricks_left - opp_need + 1
        return self.masters() + set_slack >= to_set

    def masters(self) -> int:
        """Cards sure to win when led: the highest of their suit, the opponent able to follow."""
        count = 0
        for card in self.view.hand:
            if higher_unseen(card, self.unseen) == 0:
                s = suit_of(card)
                if s == SPADES or s not in self.voids or not self.may_ruff():
                    count += 1
        return count

    def take(self, legal: Sequence[int]) -> int:
        """Win this trick as cheaply as possible."""
        led = self.view.led_card
        if led is None:
            sure = [c for c in legal if self.led_and_won(c, False) >= 0.99]
            side = [c for c in sure if suit_of(c) != SPADES]
            if side:
                return max(side, key=rank_of)
            if sure:
                return max(sure)
            suits = by_suit(legal)
            side_suits = [s for s in SIDE_SUITS if suits[s]]
            if side_suits and self.view.in_suit(SPADES):
                # no sure winner: lead low from the shortest side suit, to ruff it later
                short = min(side_suits, key=lambda s: (len(suits[s]), rank_of(suits[s][0])))
                return suits[short][0]
            return max(legal, key=lambda c: (self.led_and_won(c, False), -rank_of(c)))
        winners = [c for c in legal if trick_winner(led, c) == c]
        if winners:
            return min(winners)  # same suit sorts before spades, and lowest first
        return self.discard_low(legal)

    def discard_low(self, legal: Sequence[int]) -> int:
        """The least useful card: a low side card, from a short suit to make a void."""
        side = [c for c in legal if suit_of(c) != SPADES] or list(legal)
        counts = [0, 0, 0, 0]
        for c in legal:
            counts[suit_of(c)] += 1
        return min(side, key=lambda c: (rank_of(c), counts[suit_of(c)]))

    def duck(self, legal: Sequence[int]) -> int:
        """Lose this trick if possible (bags); if it must be won, win it with the highest card."""
        led = self.view.led_card
        if led is None:
            ducks = not self.opponent_wants_tricks()
            return min(legal, key=lambda c: (self.led_and_won(c, ducks), -rank_of(c)))
        losers = [c for c in legal if trick_winner(led, c) == led]
        if losers:
            return max(losers, key=self.danger)
        return max(legal)

    def danger(self, card: int) -> float:
        """How likely a card is to take a trick later: few unseen cards above it, spades worst."""
        d = 1.0 / (1 + higher_unseen(card, self.unseen)) + rank_of(card) / 100
        return d + (1.0 if suit_of(card) == SPADES else 0.0)

    def keep_nil(self, legal: Sequence[int]) -> int:
        """Play for no trick at all (R-5.3)."""
        led = self.view.led_card
        if led is None:
            return min(legal, key=lambda c: (self.led_and_won(c, True), rank_of(c)))
        losers = [c for c in legal if trick_winner(led, c) == led]
        if not losers:
            return max(legal)  # the Nil is lost: get rid of the highest card
        same = [c for c in losers if suit_of(c) == suit_of(led)]
        if same:
            return max(same)  # the highest card that still goes under
        return self.most_dangerous(losers)

    def most_dangerous(self, candidates: Sequence[int]) -> int:
        """The discard that lowers the risk to a Nil most."""
        suits = by_suit(self.view.hand)

        def gain(card: int) -> tuple[float, int]:
            mine = suits[suit_of(card)]
            rest = [c for c in mine if c != card]
            before = suit_nil_risk(mine, self.unseen, self.q)
            after = suit_nil_risk(rest, self.unseen, self.q)
            return (before - after, rank_of(card))

        return max(candidates, key=gain)

    def set_nil(self, legal: Sequence[int]) -> int:
        """Make the Nil bidder take a trick: lead what it must beat, play under, never ruff."""
        led = self.view.led_card
        if led is None:
            return min(legal, key=lambda c: (self.led_and_won(c, True), rank_of(c)))
        losers = [c for c in legal if trick_winner(led, c) == led]
        if not losers:
            return max(legal)
        same = [c for c in losers if suit_of(c) == suit_of(led)]
        if same:
            return max(same)  # under the Nil bidder's card, keeping the low ones to lead
        return max(losers, key=rank_of)  # a discard, never a ruff


if __name__ == "__main__":
    serve(HeuristicBot())
