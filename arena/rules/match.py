"""The two-player Spades engine: one mutable ``Match`` that enforces every rule of spades-rules.md.

Like python-chess's ``Board`` the state is mutable: ``apply`` changes it in place and ``copy``
takes a snapshot. Cards are ints and sets of cards are int bit masks (arena.rules.cards), so the
step path is a handful of integer operations: legality is a bit test against a mask of legal
cards kept up to date at each transition, and no object is built until someone asks for an
``observation`` or the ``hand_results``.

Chance is a pure function of the seed: the stock of hand ``h`` is ordered by SHAKE-256 of
``(seed, h)`` (``stock_order``) and the exchange draws of hand ``h`` follow their own order
(``exchange_order``), so a seed gives the same stocks whatever the players do, and the duplicate
pairs of a tournament see the same cards.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable, Sequence
from itertools import combinations
from random import Random

from arena.rules.cards import (
    FULL_DECK,
    NUM_CARDS,
    SPADES_MASK,
    SUIT_MASKS,
    SUIT_NAMES,
    card_name,
    cards_of,
    format_cards,
    mask_of,
)
from arena.rules.decisions import Action, Decision
from arena.rules.errors import IllegalActionError, MatchOverError, RulesError, WrongDecisionError
from arena.rules.observation import InformationSet, Observation, SeatView, TrickView
from arena.rules.outcome import HandResult, Outcome, Termination
from arena.rules.ruleset import RuleSet
from arena.rules.scoring import bag_penalty, hand_points

ENGINE_VERSION = "1.1"
"""Changes whenever the same seed and actions could give a different match (record it)."""

TRICKS_PER_HAND = 13
MAX_BID = 13
MAX_EXCHANGE = 3

# Phases, in the order of a hand; each is one Decision (None once the match is over).
_DOUBLE_NIL, _DRAW, _EXCHANGE, _BID, _PLAY, _OVER = range(6)
_DECISION_OF = (
    Decision.DOUBLE_NIL,
    Decision.DRAW,
    Decision.EXCHANGE,
    Decision.BID,
    Decision.PLAY,
    None,
)

_NON_SPADES = FULL_DECK ^ SPADES_MASK
_new_information_set = tuple.__new__
"""``InformationSet``'s values made into one without its Python ``__new__``: a decision's
hot path."""
_FIRST_SPADE = 39
_SUIT_MASK_OF = tuple(SUIT_MASKS[c // 13] for c in range(NUM_CARDS))
# _FOLLOWER_WINS[lead * 52 + card]: the answer ``card`` beats the lead.
_FOLLOWER_WINS = tuple(
    (card // 13 == lead // 13 and card > lead) or (card >= _FIRST_SPADE > lead)
    for lead in range(NUM_CARDS)
    for card in range(NUM_CARDS)
)
_BIT_LENGTH = tuple(n.bit_length() for n in range(64))
# Exchanges of k cards out of a 13-card hand, cumulated: a uniform draw over all of them first
# picks k with weight C(13, k) (R-3.4 allows 0 to 3).
_EXCHANGE_COUNTS = (1, 13, 78, 286)
_EXCHANGE_TOTAL = sum(_EXCHANGE_COUNTS)
_SEAT_VIEWS: dict[tuple[object, ...], SeatView] = {}
"""Each seat state seen lately, as its ``SeatView`` (frozen, so shared); emptied when it holds
``_SEAT_VIEWS_MAX``. Scores differ from match to match, so few states recur across matches: the
bound is for the matches in play (a match sees some 250-650 states), and keeps the cache to
about 2 MB (at 65,536 it grew to some 15 MB)."""
_SEAT_VIEWS_MAX = 8192

_Pair = tuple[int, int]
_HandEntry = tuple[
    int, int, _Pair, tuple[bool, bool], _Pair, _Pair, _Pair, _Pair, _Pair,
    tuple[int, ...], tuple[int, ...],
]  # fmt: skip
"""A finished hand as the match logs it (``hand_results`` makes a HandResult of it): number,
first drawer, bids, Double Nil, tricks won, points, bag penalties, scores, bags, plays, winners."""


def stock_order(seed: int, hand_number: int) -> list[int]:
    """The stock of hand ``hand_number`` of a match seeded ``seed``, top card first (R-2).

    The 52 cards sorted by 64-bit keys read from SHAKE-256 of the seed and hand number: a
    uniform shuffle that depends on nothing else and is the same on every platform.
    """
    return _keyed_order(f"spades-arena stock:{seed}:{hand_number}")


def exchange_order(seed: int, hand_number: int) -> list[int]:
    """The order in which a Double Nil exchange of hand ``hand_number`` draws from the pile.

    An exchange of k cards takes the first k cards of this order that are on the discard pile
    (R-3.4); the order is a uniform shuffle independent of the stock's.
    """
    return _keyed_order(f"spades-arena exchange:{seed}:{hand_number}")


def _keyed_order(label: str) -> list[int]:
    keys = struct.unpack("<52Q", hashlib.shake_256(label.encode()).digest(8 * NUM_CARDS))
    return sorted(range(NUM_CARDS), key=keys.__getitem__)


def _lead_mask(hand: int, broken: bool) -> int:
    """Cards the leader may lead (R-4.5)."""
    if broken:
        return hand
    return hand & _NON_SPADES or hand


def _names(mask: int) -> str:
    return ", ".join(card_name(c) for c in cards_of(mask)) or "no card"


def _kind(value: object) -> str:
    return f"{value!r} ({type(value).__name__})"


class Match:
    """One match of two-player Spades, from its first draw to its outcome (R-1 … R-7).

    ``Match(seed, rules)`` starts the first hand. Ask ``to_act`` and ``decision``, choose among
    ``legal_actions()`` (or ``random_action(rng)``), and ``apply`` it; ``observation(seat)`` is
    what that seat may know, ``outcome`` is set once ``is_over``. Illegal actions raise
    ``IllegalActionError``, actions of the wrong kind ``WrongDecisionError``, and actions after
    the end ``MatchOverError``; each names the rule in its message and in ``.rule``.
    """

    __slots__ = (
        "_aside",
        "_bags",
        "_bids",
        "_broken",
        "_discard",
        "_dn",
        "_dn_allowed",
        "_draw_choices",
        "_exchanged",
        "_first_drawer",
        "_hand_log",
        "_hand_number",
        "_hands",
        "_lead",
        "_legal",
        "_outcome",
        "_own_discards",
        "_phase",
        "_plays",
        "_pos",
        "_results",
        "_rules",
        "_scores",
        "_seats",
        "_seats_tricks",
        "_seed",
        "_stock",
        "_stocks",
        "_to_act",
        "_views",
        "_winners",
        "_won",
        "_xorder",
    )
    # The slots' types (annotations only: no class attribute, so the slots stay).
    _aside: list[int]
    _bags: list[int]
    _bids: list[int | None]
    _broken: bool
    _discard: int
    _dn: list[bool]
    _dn_allowed: bool
    _draw_choices: list[list[bool]]
    _exchanged: list[int | None]
    _first_drawer: int
    _hand_log: list[_HandEntry]
    _hand_number: int
    _hands: list[int]
    _lead: int
    _legal: int
    _outcome: Outcome | None
    _own_discards: list[list[int]]
    _phase: int
    _plays: list[int]
    _pos: int
    _results: list[HandResult]
    _rules: RuleSet
    _scores: list[int]
    _seats: tuple[SeatView, SeatView] | None
    _seats_tricks: int
    _seed: int
    _stock: Sequence[int]
    _stocks: tuple[list[int], ...]
    _to_act: int
    _views: list[TrickView]
    _winners: list[int]
    _won: list[int]
    _xorder: list[int] | None

    def __init__(self, seed: int, rules: RuleSet = RuleSet()) -> None:  # noqa: B008
        if type(seed) is not int:
            raise TypeError(f"a match seed is an int, got {_kind(seed)}")
        if not isinstance(rules, RuleSet):
            raise TypeError(f"rules must be a RuleSet, got {_kind(rules)}")
        self._begin(seed, rules, (), 1, 0, [0, 0], [0, 0])

    def _begin(
        self,
        seed: int,
        rules: RuleSet,
        stocks: tuple[list[int], ...],
        hand_number: int,
        first_drawer: int,
        scores: list[int],
        bags: list[int],
    ) -> None:
        """The match's state at the start of hand ``hand_number`` (checked by the caller)."""
        self._seed = seed
        self._rules = rules
        self._stocks = stocks
        self._dn_allowed = rules.double_nil_allowed
        self._hand_number = hand_number
        self._first_drawer = first_drawer
        self._scores = scores
        self._bags = bags
        self._hand_log = []
        self._results = []
        self._outcome = None
        self._start_hand()

    @classmethod
    def from_stocks(
        cls,
        stocks: Iterable[Sequence[int]],
        rules: RuleSet = RuleSet(),  # noqa: B008
        seed: int = 0,
    ) -> Match:
        """A match whose first hands use the given stocks (top card first), for set positions.

        Hand ``h`` uses ``stocks[h - 1]`` while there is one, then ``stock_order(seed, h)``;
        exchanges draw by ``exchange_order(seed, h)``. Each stock must hold the 52 cards once.
        For tests, teaching and analysis of a particular deal; a referee uses ``Match(seed)``.
        """
        fixed = tuple(list(s) for s in stocks)
        for i, stock in enumerate(fixed, 1):
            if sorted(stock) != list(range(NUM_CARDS)) or any(type(c) is not int for c in stock):
                raise ValueError(f"stock {i} must hold each of the 52 cards (ints 0-51) once")
        m = cls(seed, rules)
        m._stocks = fixed
        m._start_hand()
        return m

    @classmethod
    def from_hand(
        cls,
        rules: RuleSet,
        *,
        hand_number: int,
        first_drawer: int,
        scores: tuple[int, int],
        bags: tuple[int, int],
        stock: Sequence[int],
        exchange_draws: Sequence[int] = (),
        seed: int = 0,
    ) -> Match:
        """A match at the start of hand ``hand_number`` with those scores and bag counts, its
        stock ``stock`` (top card first), its Double Nil exchanges drawing ``exchange_draws``
        first (those still on the pile, R-3.4), then by ``exchange_order(seed, h)``.

        For games whose chance is dealt outside the engine (OpenSpiel's chance nodes) and for
        search that samples the hidden cards of a position; later hands follow ``seed``. A
        referee uses ``Match(seed)``.
        """
        if type(hand_number) is not int or not 1 <= hand_number <= rules.max_hands:
            raise ValueError(f"hand_number must be 1 to max_hands (R-6.3), got {hand_number!r}")
        if first_drawer not in (0, 1) or type(first_drawer) is not int:
            raise ValueError(f"first_drawer must be seat 0 or 1 (R-1.3), got {first_drawer!r}")
        if len(scores) != 2 or any(type(s) is not int for s in scores):
            raise ValueError(f"scores must be two ints, got {scores!r}")
        if len(bags) != 2 or any(type(b) is not int or not 0 <= b < 10 for b in bags):
            raise ValueError(f"bags must be two counts 0-9 (R-5.5), got {bags!r}")
        stock = list(stock)
        if sorted(stock) != list(range(NUM_CARDS)) or any(type(c) is not int for c in stock):
            raise ValueError("the stock must hold each of the 52 cards (ints 0-51) once")
        draws = list(exchange_draws)
        if len(set(draws)) != len(draws) or any(
            type(c) is not int or not 0 <= c < NUM_CARDS for c in draws
        ):
            raise ValueError(f"exchange draws must be distinct cards 0-51, got {draws!r}")
        if type(seed) is not int:
            raise TypeError(f"a match seed is an int, got {_kind(seed)}")
        if not isinstance(rules, RuleSet):
            raise TypeError(f"rules must be a RuleSet, got {_kind(rules)}")
        m = cls.__new__(cls)
        # hand h plays stocks[h - 1]: this hand the stock given, later hands by the seed
        m._begin(seed, rules, (stock,) * hand_number, hand_number, first_drawer, [*scores], [*bags])
        if draws:
            taken = mask_of(draws)
            m._xorder = draws + [c for c in exchange_order(seed, hand_number) if not taken >> c & 1]
        return m

    # --- what the referee asks -------------------------------------------------------------

    @property
    def to_act(self) -> int | None:
        """The seat whose decision it is; None once the match is over."""
        return None if self._phase == _OVER else self._to_act

    @property
    def decision(self) -> Decision | None:
        return _DECISION_OF[self._phase]

    @property
    def is_over(self) -> bool:
        return self._phase == _OVER

    @property
    def outcome(self) -> Outcome | None:
        return self._outcome

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def rules(self) -> RuleSet:
        return self._rules

    @property
    def hand_number(self) -> int:
        """1 for the first hand; the last hand played once the match is over."""
        return self._hand_number

    @property
    def first_drawer(self) -> int:
        """The first drawer of the current hand (R-1.3, R-7.1)."""
        return self._first_drawer

    @property
    def scores(self) -> tuple[int, int]:
        return self._scores[0], self._scores[1]

    @property
    def bags(self) -> tuple[int, int]:
        return self._bags[0], self._bags[1]

    @property
    def hand_results(self) -> list[HandResult]:
        """The completed hands, in order, each with its 13 tricks."""
        results = self._results
        for entry in self._hand_log[len(results) :]:
            h, fd, bids, dn, won, points, penalties, scores, bags, plays, winners = entry
            results.append(
                HandResult(
                    hand_number=h,
                    first_drawer=fd,
                    bids=bids,
                    double_nil=dn,
                    tricks_won=won,
                    points=points,
                    bag_penalties=penalties,
                    scores=scores,
                    bags=bags,
                    tricks=_trick_views(fd ^ 1, plays, winners),
                )
            )
        return list(results)

    def legal_actions(self) -> list[Action]:
        """Every legal action, in a fixed order (EXCHANGE: every sorted tuple of 0-3 cards)."""
        phase = self._phase
        if phase == _PLAY:
            return list(cards_of(self._legal))
        if phase in (_DRAW, _DOUBLE_NIL):
            return [False, True]
        if phase == _BID:
            return list(range(MAX_BID + 1))
        if phase == _EXCHANGE:
            hand = cards_of(self._hands[self._to_act])
            return [c for k in range(MAX_EXCHANGE + 1) for c in combinations(hand, k)]
        return []

    @property
    def legal_mask(self) -> int:
        """In a PLAY decision, the legal cards as a mask (R-4.3, R-4.5); 0 in any other."""
        return self._legal if self._phase == _PLAY else 0

    def is_legal(self, action: Action) -> bool:
        if self._phase == _PLAY:
            return (
                action.__class__ is int and 0 <= action < NUM_CARDS and (self._legal >> action) & 1
            ) == 1
        return self._problem(action) is None

    def random_action(self, rng: Random) -> Action:
        """A legal action drawn uniformly at random with ``rng`` (exactly uniform, no bias)."""
        phase = self._phase
        getrandbits = rng.getrandbits
        if phase == _PLAY:
            legal = self._legal
            n = legal.bit_count()
            if n > 1:
                bits = _BIT_LENGTH[n]
                k = getrandbits(bits)
                while k >= n:
                    k = getrandbits(bits)
                while k:
                    legal &= legal - 1
                    k -= 1
            return (legal & -legal).bit_length() - 1
        if phase in (_DRAW, _DOUBLE_NIL):
            return getrandbits(1) == 1
        if phase == _BID:
            k = getrandbits(4)
            while k > MAX_BID:
                k = getrandbits(4)
            return k
        if phase == _EXCHANGE:
            r = getrandbits(9)
            while r >= _EXCHANGE_TOTAL:
                r = getrandbits(9)
            count = 0
            while r >= _EXCHANGE_COUNTS[count]:
                r -= _EXCHANGE_COUNTS[count]
                count += 1
            return tuple(sorted(rng.sample(cards_of(self._hands[self._to_act]), count)))
        raise self._refusal(None)

    def apply(self, action: Action) -> None:
        """Play ``action`` for the seat to act; raise a RulesError naming the rule if it is not
        legal, leaving the match unchanged."""
        phase = self._phase
        if phase == _PLAY:
            if (
                action.__class__ is not int
                or not 0 <= action < 52
                or not (self._legal >> action) & 1
            ):
                raise self._refusal(action)
            seat = self._to_act
            hands = self._hands
            hands[seat] ^= 1 << action
            self._plays.append(action)
            if action >= _FIRST_SPADE:
                self._broken = True  # led (only spades held) or trumped
            lead = self._lead
            if lead < 0:
                self._lead = action
                seat ^= 1
                self._to_act = seat
                hand = hands[seat]
                self._legal = hand & _SUIT_MASK_OF[action] or hand
                return
            winner = seat if _FOLLOWER_WINS[lead * 52 + action] else seat ^ 1
            self._won[winner] += 1
            winners = self._winners
            winners.append(winner)
            if len(winners) == TRICKS_PER_HAND:
                self._end_hand()
                return
            self._lead = -1
            self._to_act = winner
            hand = hands[winner]
            self._legal = hand if self._broken else hand & _NON_SPADES or hand
            return
        if phase == _DRAW:
            if action.__class__ is not bool:
                raise self._refusal(action)
            seat = self._to_act
            pos = self._pos
            stock = self._stock
            if action:  # keep the card looked at, the next goes to the pile
                keep, drop = stock[pos], stock[pos + 1]
            else:  # reject it and keep the next
                drop, keep = stock[pos], stock[pos + 1]
            self._hands[seat] |= 1 << keep
            self._discard |= 1 << drop
            self._own_discards[seat].append(drop)
            self._draw_choices[seat].append(action)
            pos += 2
            self._pos = pos
            if pos == NUM_CARDS:
                self._end_draw()
            else:
                self._to_act = seat ^ 1
                if pos == 2 and self._dn_allowed:
                    self._phase = _DOUBLE_NIL  # asked before her own first draw
            return
        if phase == _DOUBLE_NIL:
            if action.__class__ is not bool:
                raise self._refusal(action)
            if action:
                seat = self._to_act
                self._dn[seat] = True
                self._bids[seat] = 0
                self._seats = None
            self._phase = _DRAW
            return
        if phase == _BID:
            if action.__class__ is not int or not 0 <= action <= MAX_BID:
                raise self._refusal(action)
            seat = self._to_act
            self._bids[seat] = action
            self._seats = None
            fd = self._first_drawer
            if seat != fd and not self._dn[fd]:
                self._to_act = fd  # the first drawer bids second
            else:
                self._start_play()
            return
        problem = self._problem(action)
        if problem is not None:
            raise problem
        assert not isinstance(action, int)  # what _problem leaves here: an exchange's cards
        self._exchange(action)

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know now: exactly the information set of the rules, nothing more."""
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, got {seat!r}")
        phase = self._phase
        fd = self._first_drawer
        pos = self._pos
        looking = phase == _DRAW and self._to_act == seat
        seats = self._seat_pair()
        return Observation(
            seat=seat,
            rules=self._rules,
            hand_number=self._hand_number,
            first_drawer=fd,
            to_act=self.to_act,
            decision=_DECISION_OF[phase],
            hand=cards_of(self._hands[seat]),
            looking_at=self._stock[pos] if looking else None,
            own_discards=tuple(self._own_discards[seat]),
            stock_size=NUM_CARDS - pos - (phase == _DRAW),
            seats=seats,
            tricks=self._trick_views(),
            spades_broken=self._broken,
            own_put_aside=cards_of(self._aside[seat]) if self._aside[seat] else (),
        )

    def information_set(self, seat: int) -> InformationSet:
        """What ``observation(seat)`` holds, as the engine's own plain values, for encoders on a
        referee's hot path (``arena.referee.wire``): nothing is built but the seats' shared
        views, so it costs a fraction of an observation. ``InformationSet`` says what each
        value is; its lists are the engine's own: read them before the next ``apply`` and never
        change them. The same facts as ``observation(seat)``, no more (tests check one against
        the other)."""
        if seat != 0 and seat != 1:
            raise ValueError(f"seat must be 0 or 1, got {seat!r}")
        phase = self._phase
        pos = self._pos
        return _new_information_set(
            InformationSet,
            (
                self._hand_number,
                self._first_drawer,
                self._hands[seat],
                self._stock[pos] if phase == _DRAW and self._to_act == seat else None,
                self._own_discards[seat],
                NUM_CARDS - pos - (phase == _DRAW),
                self._seat_pair(),
                self._plays,
                self._winners,
                self._broken,
                self._aside[seat],
            ),
        )

    def _seat_pair(self) -> tuple[SeatView, SeatView]:
        """Both seats' views as they stand: the pair kept in ``_seats`` while it holds, so
        that ``apply`` stays as it was on its hot paths (a play, a draw). ``apply`` sets
        ``_seats`` to None only on the transitions of a few per hand that change a seat's
        public facts (a bid, a Double Nil, an exchange, a new hand); a trick won (the hand's
        last too) is told by the count of tricks; and when draw choices are public (R-2.2) the
        views are made afresh outside the play."""
        seats = self._seats
        if (
            seats is not None
            and self._seats_tricks == len(self._winners)
            and (self._phase == _PLAY or not self._rules.draw_decision_public)
        ):
            return seats
        public = self._rules.draw_decision_public
        seats = self._seats = (self._seat_view(0, public), self._seat_view(1, public))
        self._seats_tricks = len(self._winners)
        return seats

    def _seat_view(self, s: int, public: bool) -> SeatView:
        """Seat ``s``'s public state, one shared frozen object per distinct state
        (``_SEAT_VIEWS``): it changes a few times a hand, and building it is most of what an
        observation costs."""
        key = (
            self._scores[s],
            self._bags[s],
            self._bids[s],
            self._dn[s],
            self._won[s],
            self._exchanged[s],
            tuple(self._draw_choices[s]) if public else None,
        )
        view = _SEAT_VIEWS.get(key)
        if view is None:
            view = SeatView(*key)
            if len(_SEAT_VIEWS) >= _SEAT_VIEWS_MAX:
                _SEAT_VIEWS.clear()
            _SEAT_VIEWS[key] = view
        return view

    def _trick_views(self) -> tuple[TrickView, ...]:
        """The tricks of the hand so far; the completed ones are built once (``_views``)."""
        views = self._views
        winners = self._winners
        plays = self._plays
        done = len(winners)
        if len(views) < done:
            leader = winners[len(views) - 1] if views else self._first_drawer ^ 1
            for t in range(len(views), done):
                winner = winners[t]
                views.append(TrickView(leader, (plays[2 * t], plays[2 * t + 1]), winner))
                leader = winner
        if len(plays) > 2 * done:
            leader = winners[done - 1] if done else self._first_drawer ^ 1
            return (*views, TrickView(leader, tuple(plays[2 * done :]), None))
        return tuple(views)

    def copy(self) -> Match:
        """An independent snapshot: applying actions to either leaves the other unchanged."""
        new = Match.__new__(Match)
        for name in Match.__slots__:
            setattr(new, name, getattr(self, name))
        new._scores = self._scores[:]
        new._bags = self._bags[:]
        new._hand_log = self._hand_log[:]
        new._results = self._results[:]
        new._hands = self._hands[:]
        new._aside = self._aside[:]
        new._dn = self._dn[:]
        new._exchanged = self._exchanged[:]
        new._bids = self._bids[:]
        new._won = self._won[:]
        new._plays = self._plays[:]
        new._winners = self._winners[:]
        new._views = self._views[:]
        new._own_discards = [d[:] for d in self._own_discards]
        new._draw_choices = [d[:] for d in self._draw_choices]
        return new

    # --- the full state, for analysis and tests (never show it to a bot) -------------------

    def hand(self, seat: int) -> tuple[int, ...]:
        """The cards ``seat`` holds now, lowest first (the card looked at in a draw excluded)."""
        return cards_of(self._hands[seat])

    @property
    def stock(self) -> tuple[int, ...]:
        """The stock, top card first; during a draw decision the top card is the one looked at."""
        return tuple(self._stock[self._pos :])

    @property
    def discard_pile(self) -> tuple[int, ...]:
        """The cards on the discard pile, lowest first (R-2.3, less any exchange draws)."""
        return cards_of(self._discard)

    @property
    def set_aside(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The cards each seat put aside in a Double Nil exchange; out of play (R-3.4)."""
        return cards_of(self._aside[0]), cards_of(self._aside[1])

    def __repr__(self) -> str:
        decision = self.decision
        state = "over" if decision is None else f"{decision.name} by {self._to_act}"
        return (
            f"<Match seed={self._seed} hand={self._hand_number} {state} "
            f"scores={self.scores} bags={self.bags}>"
        )

    # --- transitions ------------------------------------------------------------------------

    def _start_hand(self) -> None:
        h = self._hand_number
        stocks = self._stocks
        self._stock = stocks[h - 1] if h <= len(stocks) else stock_order(self._seed, h)
        self._xorder = None
        self._pos = 0
        self._hands = [0, 0]
        self._discard = 0
        self._own_discards = [[], []]
        self._draw_choices = [[], []]
        self._aside = [0, 0]
        self._dn = [False, False]
        self._exchanged = [None, None]
        self._bids = [None, None]
        self._won = [0, 0]
        self._seats = None
        self._seats_tricks = 0
        self._plays = []
        self._winners = []
        self._views = []
        self._lead = -1
        self._broken = False
        self._legal = 0
        self._to_act = self._first_drawer
        self._phase = _DOUBLE_NIL if self._dn_allowed else _DRAW

    def _end_draw(self) -> None:
        """R-3.4: Double Nil exchanges, the second player's first, then the bidding."""
        fd = self._first_drawer
        dn = self._dn
        if dn[fd ^ 1]:
            self._phase = _EXCHANGE
            self._to_act = fd ^ 1
        elif dn[fd]:
            self._phase = _EXCHANGE
            self._to_act = fd
        else:
            self._start_bidding()

    def _exchange(self, cards: Sequence[int]) -> None:
        seat = self._to_act
        mask = mask_of(cards)
        hands = self._hands
        hands[seat] ^= mask
        self._aside[seat] |= mask
        count = len(cards)
        if count:
            if self._xorder is None:
                self._xorder = exchange_order(self._seed, self._hand_number)
            discard = self._discard
            drawn = 0
            taken = 0
            for card in self._xorder:
                if discard >> card & 1:
                    drawn |= 1 << card
                    taken += 1
                    if taken == count:
                        break
            hands[seat] |= drawn
            self._discard = discard ^ drawn
        self._exchanged[seat] = count
        self._seats = None
        fd = self._first_drawer
        if seat != fd and self._dn[fd]:
            self._to_act = fd
        else:
            self._start_bidding()

    def _start_bidding(self) -> None:
        """R-3.2: the second player bids first; a Double Nil bidder makes no other bid."""
        fd = self._first_drawer
        dn = self._dn
        if not dn[fd ^ 1]:
            self._phase = _BID
            self._to_act = fd ^ 1
        elif not dn[fd]:
            self._phase = _BID
            self._to_act = fd
        else:
            self._start_play()

    def _start_play(self) -> None:
        """R-4.2: the second player leads the first trick."""
        leader = self._first_drawer ^ 1
        self._phase = _PLAY
        self._to_act = leader
        self._lead = -1
        self._legal = _lead_mask(self._hands[leader], self._broken)

    def _end_hand(self) -> None:
        """R-5 scoring, then R-6 (end of the match) or R-7 (the next hand)."""
        rules = self._rules
        bids, dn, won = self._bids, self._dn, self._won
        scores, bags = self._scores, self._bags
        b0, b1 = bids
        assert b0 is not None and b1 is not None  # both bid before the play
        points = [0, 0]
        penalties = [0, 0]
        for s, bid in ((0, b0), (1, b1)):
            pts, new_bags = hand_points(bid, dn[s], won[s], rules.nil_tricks_count_as_bags)
            penalty, bags[s] = bag_penalty(bags[s], new_bags)
            points[s] = pts
            penalties[s] = penalty
            scores[s] += pts + penalty
        h = self._hand_number
        self._hand_log.append(
            (
                h,
                self._first_drawer,
                (b0, b1),
                (dn[0], dn[1]),
                (won[0], won[1]),
                (points[0], points[1]),
                (penalties[0], penalties[1]),
                (scores[0], scores[1]),
                (bags[0], bags[1]),
                tuple(self._plays),
                tuple(self._winners),
            )
        )
        s0, s1 = scores
        leader = 0 if s0 > s1 else 1
        if max(s0, s1) >= rules.target_score and s0 != s1:
            self._finish(Termination.TARGET_REACHED, leader)
        elif h >= rules.max_hands:
            self._finish(Termination.HAND_LIMIT, None if s0 == s1 else leader)
        else:
            self._hand_number = h + 1
            self._first_drawer ^= 1
            self._start_hand()

    def _finish(self, termination: Termination, winner: int | None) -> None:
        self._phase = _OVER
        self._to_act = -1  # no one: ``to_act`` says None once the match is over
        self._legal = 0
        self._outcome = Outcome(
            termination=termination,
            winner=winner,
            scores=self.scores,
            hands_played=self._hand_number,
        )

    # --- validation, off the fast path ------------------------------------------------------

    def _refusal(self, action: object) -> RulesError:
        """The error of an action found illegal."""
        problem = self._problem(action)
        assert problem is not None, f"{action!r} was refused, yet _problem finds it legal"
        return problem

    def _problem(self, action: object) -> RulesError | None:
        """The error ``action`` would raise now, or None if it is legal."""
        phase = self._phase
        if phase == _OVER:
            outcome = self._outcome
            assert outcome is not None
            result = "a draw" if outcome.winner is None else f"seat {outcome.winner} won"
            return MatchOverError(
                "R-6",
                f"the match is over ({result}, {outcome.scores[0]} to {outcome.scores[1]}, "
                f"{outcome.termination.value}); no action can be applied",
            )
        if phase == _DOUBLE_NIL:
            if action.__class__ is not bool:
                return WrongDecisionError(
                    "R-3.3",
                    "the decision is whether to declare Double Nil before the first draw: "
                    f"answer True (declare) or False; got {_kind(action)}",
                )
            return None
        if phase == _DRAW:
            if action.__class__ is not bool:
                return WrongDecisionError(
                    "R-2.1",
                    f"the decision is a draw: True keeps the card looked at "
                    f"({card_name(self._stock[self._pos])}), False rejects it and keeps the "
                    f"next one; got {_kind(action)}",
                )
            return None
        if phase == _BID:
            if action.__class__ is not int:
                return WrongDecisionError(
                    "R-3.1",
                    f"the decision is a bid: an int from 0 (Nil) to 13; got {_kind(action)}",
                )
            if not 0 <= action <= MAX_BID:
                return IllegalActionError(
                    "R-3.1", f"a bid is a whole number from 0 (Nil) to 13; got {action}"
                )
            return None
        hand = self._hands[self._to_act]
        if phase == _EXCHANGE:
            return _exchange_problem(action, hand)
        return self._play_problem(action, hand)

    def _play_problem(self, action: object, hand: int) -> RulesError | None:
        if action.__class__ is not int:
            return WrongDecisionError(
                "R-4.1", f"the decision is a card to play (an int 0-51); got {_kind(action)}"
            )
        card: int = action
        if not 0 <= card < NUM_CARDS:
            return IllegalActionError("R-1.1", f"{card} is not a card: cards are 0 (2c) to 51 (As)")
        if not hand >> card & 1:
            return IllegalActionError(
                "R-4.1", f"{card_name(card)} is not in the hand, which holds {_names(hand)}"
            )
        if (self._legal >> card) & 1:
            return None
        lead = self._lead
        if lead >= 0:
            suit = lead // 13
            return IllegalActionError(
                "R-4.3",
                f"must follow suit: {SUIT_NAMES[suit]} were led and the hand holds "
                f"{_names(hand & SUIT_MASKS[suit])}; got {card_name(card)}",
            )
        return IllegalActionError(
            "R-4.5",
            "may not lead a spade before spades are broken while the hand holds other suits "
            f"({_names(hand & _NON_SPADES)}); got {card_name(card)}",
        )


def _exchange_problem(action: object, hand: int) -> RulesError | None:
    """R-3.4: a tuple or list of at most three distinct cards of the hand."""
    if not isinstance(action, (tuple, list)):
        return WrongDecisionError(
            "R-3.4",
            "the decision is a Double Nil exchange: a tuple of 0 to 3 distinct cards of the "
            f"hand to put aside; got {_kind(action)}",
        )
    for card in action:
        if card.__class__ is not int:
            return WrongDecisionError(
                "R-3.4", f"an exchange lists cards as ints 0-51; got {_kind(card)} in {action!r}"
            )
    if len(action) > MAX_EXCHANGE:
        return IllegalActionError(
            "R-3.4",
            f"at most 3 cards may be exchanged; got {len(action)}: "
            f"{', '.join(str(c) for c in action)}",
        )
    seen = 0
    for card in action:
        if not 0 <= card < NUM_CARDS:
            return IllegalActionError("R-3.4", f"{card} is not a card: cards are 0 (2c) to 51 (As)")
        if seen >> card & 1:
            return IllegalActionError(
                "R-3.4", f"the cards put aside must be distinct; got {card_name(card)} twice"
            )
        seen |= 1 << card
        if not hand >> card & 1:
            return IllegalActionError(
                "R-3.4",
                f"{card_name(card)} is not in the hand, which holds {format_cards(cards_of(hand))}",
            )
    return None


def _trick_views(
    first_leader: int, plays: Sequence[int], winners: Sequence[int]
) -> tuple[TrickView, ...]:
    """The tricks of a hand: the second player leads the first, each winner the next (R-4.2)."""
    views = []
    leader = first_leader
    for i in range(0, len(plays), 2):
        t = i >> 1
        winner = winners[t] if t < len(winners) else None
        views.append(TrickView(leader=leader, cards=tuple(plays[i : i + 2]), winner=winner))
        if winner is not None:
            leader = winner
    return tuple(views)
