"""The observation: one seat's information set (spades-rules.md) as a fixed-size float32 array.

Built from the engine's ``Observation`` - the information set and nothing else - and from the
cards picked so far in the seat's own exchange under way (``arena.envs.actions``), so it cannot
hold a hidden card. It is lossless: ``decode`` gives the information set back, which is how the
tests check it against the engine's. Orders are kept as values: a discard's turn, a card's
place in the hand's play.

Layout (``SIZE`` floats; offsets below): the decision (one-hot), whether this seat is to act,
its seat, whether it is first drawer; card planes of 52 (hand, card looked at, own discards by
turn ``(t + 1) / 13``, own cards put aside, cards picked in the exchange under way, cards
played by this seat and by the opponent by place ``(p + 1) / 26``); stock size / 52, spades
broken, hand number / max_hands; this seat's then the opponent's public facts (score / target,
bags / 10, bid one-hot [none, 0..13], Double Nil, tricks / 13, cards exchanged one-hot
[none, 0..3], 13 draw turns x [known, kept] when draw choices are public); the rule set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from arena.rules import Decision, Match, Observation, RuleSet, SeatView, TrickView

DECISIONS = (Decision.DOUBLE_NIL, Decision.DRAW, Decision.EXCHANGE, Decision.BID, Decision.PLAY)
_DECISION_INDEX = {d: i for i, d in enumerate(DECISIONS)}

DECISION = 0
TO_ACT = DECISION + len(DECISIONS)
SEAT = TO_ACT + 1
FIRST_DRAWER = SEAT + 1
HAND = FIRST_DRAWER + 1
LOOKING_AT = HAND + 52
OWN_DISCARDS = LOOKING_AT + 52
PUT_ASIDE = OWN_DISCARDS + 52
PICKED = PUT_ASIDE + 52
PLAYED_BY_ME = PICKED + 52
PLAYED_BY_OPP = PLAYED_BY_ME + 52
STOCK = PLAYED_BY_OPP + 52
BROKEN = STOCK + 1
HAND_NUMBER = BROKEN + 1
SEATS = HAND_NUMBER + 1
# Within a seat's block:
S_SCORE, S_BAGS, S_BID, S_DN, S_TRICKS, S_EXCHANGED, S_DRAWS = 0, 1, 2, 17, 18, 19, 24
SEAT_SIZE = S_DRAWS + 26
RULES = SEATS + 2 * SEAT_SIZE
SIZE = RULES + 5

RULE_SCALE = 1000.0


def encode(
    obs: Observation, picked: tuple[int, ...] = (), out: np.ndarray | None = None
) -> np.ndarray:
    """The observation array of ``obs`` (a seat's information set), ``picked`` the cards this
    seat has picked so far in its own exchange under way."""
    v = np.zeros(SIZE, np.float32) if out is None else out
    if out is not None:
        v.fill(0.0)
    seat = obs.seat
    if obs.decision is not None:
        v[DECISION + _DECISION_INDEX[obs.decision]] = 1.0
    v[TO_ACT] = obs.to_act == seat
    v[SEAT] = seat
    v[FIRST_DRAWER] = obs.first_drawer == seat
    v[[HAND + c for c in obs.hand]] = 1.0
    if obs.looking_at is not None:
        v[LOOKING_AT + obs.looking_at] = 1.0
    for t, c in enumerate(obs.own_discards):
        v[OWN_DISCARDS + c] = (t + 1) / 13
    v[[PUT_ASIDE + c for c in obs.own_put_aside]] = 1.0
    v[[PICKED + c for c in picked]] = 1.0
    place = 0
    for trick in obs.tricks:
        player = trick.leader
        for c in trick.cards:
            place += 1
            v[(PLAYED_BY_ME if player == seat else PLAYED_BY_OPP) + c] = place / 26
            player ^= 1
    v[STOCK] = obs.stock_size / 52
    v[BROKEN] = obs.spades_broken
    rules = obs.rules
    v[HAND_NUMBER] = obs.hand_number / rules.max_hands
    for k, s in enumerate((seat, seat ^ 1)):
        _encode_seat(v, SEATS + k * SEAT_SIZE, obs.seats[s], rules)
    v[RULES] = rules.target_score / RULE_SCALE
    v[RULES + 1] = rules.max_hands / RULE_SCALE
    v[RULES + 2] = rules.draw_decision_public
    v[RULES + 3] = rules.double_nil_allowed
    v[RULES + 4] = rules.nil_tricks_count_as_bags
    return v


def _encode_seat(v: np.ndarray, base: int, s: SeatView, rules: RuleSet) -> None:
    v[base + S_SCORE] = s.score / rules.target_score
    v[base + S_BAGS] = s.bags / 10
    v[base + S_BID + (0 if s.bid is None else s.bid + 1)] = 1.0
    v[base + S_DN] = s.double_nil
    v[base + S_TRICKS] = s.tricks_won / 13
    v[base + S_EXCHANGED + (0 if s.cards_exchanged is None else s.cards_exchanged + 1)] = 1.0
    for t, kept in enumerate(s.draw_choices or ()):
        v[base + S_DRAWS + 2 * t] = 1.0
        v[base + S_DRAWS + 2 * t + 1] = kept


def _mask_bits(mask: int) -> np.ndarray:
    """A card mask as 52 zeros and ones."""
    return _UNPACK(np.frombuffer(mask.to_bytes(7, "little"), np.uint8), bitorder="little")[:52]


_UNPACK = np.unpackbits
_SEAT_BLOCKS: dict[tuple[object, ...], np.ndarray] = {}
"""The array's tail (both seats' encoded public facts, the rule set) by (seats, seat, rules):
it changes a few times a hand."""


def encode_match_py(match: Match, seat: int, picked: tuple[int, ...] = ()) -> np.ndarray:
    """``encode(match.observation(seat), picked)``, from the engine's plain values
    (``Match.information_set``) without building the Observation: the reference of the C
    encoder (``encode_match``), and what serves where it was not built."""
    (
        hand_number,
        first_drawer,
        hand,
        looking_at,
        own_discards,
        stock_size,
        seats,
        plays,
        winners,
        broken,
        aside,
    ) = match.information_set(seat)
    rules = match.rules
    v = np.zeros(SIZE, np.float32)
    decision = match.decision
    to_act = match.to_act
    if decision is not None:
        v[DECISION + _DECISION_INDEX[decision]] = 1.0
    v[TO_ACT] = to_act == seat
    v[SEAT] = seat
    v[FIRST_DRAWER] = first_drawer == seat
    if hand:
        v[HAND : HAND + 52] = _mask_bits(hand)
    if looking_at is not None:
        v[LOOKING_AT + looking_at] = 1.0
    for t, c in enumerate(own_discards, 1):
        v[OWN_DISCARDS + c] = t / 13
    if aside:
        v[PUT_ASIDE : PUT_ASIDE + 52] = _mask_bits(aside)
    for c in picked:
        v[PICKED + c] = 1.0
    if plays:
        leader = first_drawer ^ 1
        n_won = len(winners)
        for i, c in enumerate(plays):
            t, second = divmod(i, 2)
            player = leader ^ second
            v[(PLAYED_BY_ME if player == seat else PLAYED_BY_OPP) + c] = (i + 1) / 26
            if second and t < n_won:
                leader = winners[t]
    v[STOCK] = stock_size / 52
    v[BROKEN] = broken
    v[HAND_NUMBER] = hand_number / rules.max_hands
    v[SEATS:] = _tail(seats, seat, rules)
    return v


def _tail(seats: tuple[SeatView, SeatView], seat: int, rules: RuleSet) -> np.ndarray:
    """The array from ``SEATS`` on (both seats' public facts, the rule set) for ``seat``."""
    key = (seats, seat, rules)
    tail = _SEAT_BLOCKS.get(key)
    if tail is None:
        scratch = np.zeros(SIZE, np.float32)
        for k, s in enumerate((seat, seat ^ 1)):
            _encode_seat(scratch, SEATS + k * SEAT_SIZE, seats[s], rules)
        scratch[RULES:] = _rules_floats(rules)
        tail = scratch[SEATS:].copy()
        tail.flags.writeable = False
        if len(_SEAT_BLOCKS) >= 4096:
            _SEAT_BLOCKS.clear()
        _SEAT_BLOCKS[key] = tail
    return tail


def _rules_floats(rules: RuleSet) -> np.ndarray:
    """The rule set's five floats (the array's last)."""
    return np.array(
        [
            rules.target_score / RULE_SCALE,
            rules.max_hands / RULE_SCALE,
            rules.draw_decision_public,
            rules.double_nil_allowed,
            rules.nil_tricks_count_as_bags,
        ],
        np.float32,
    )


class RulesCache:
    """The last rule set's encoded floats, by the rule set's identity (a match keeps its
    ``RuleSet`` object): kept by a caller that encodes many observations."""

    __slots__ = ("floats", "rules")

    def __init__(self) -> None:
        self.rules: object = None
        self.floats = np.zeros(5, np.float32)

    def get(self, rules: RuleSet) -> np.ndarray:
        if rules is not self.rules:
            self.floats = _rules_floats(rules)
            self.rules = rules
        return self.floats


def _c_layout_matches(layout: tuple[int, ...]) -> bool:
    return layout == (
        DECISION, TO_ACT, SEAT, FIRST_DRAWER, HAND, LOOKING_AT, OWN_DISCARDS, PUT_ASIDE,
        PICKED, PLAYED_BY_ME, PLAYED_BY_OPP, STOCK, BROKEN, HAND_NUMBER, SEATS, SEAT_SIZE,
        RULES, SIZE, len(DECISIONS), 71, S_SCORE, S_BAGS, S_BID, S_DN, S_TRICKS, S_EXCHANGED,
        S_DRAWS,
    )  # fmt: skip


try:
    import arena.envs._obs as _obs
except ImportError:  # not built (no compiler at install): the reference serves
    _obs = None
C_ENCODER = _obs is not None and _c_layout_matches(_obs.LAYOUT)
"""Whether ``encode_match`` runs in C (``arena/envs/_obs.c``); else it is ``encode_match_py``."""
_DECISION_NUMBER: dict[Decision | None, int] = {None: -1}
_DECISION_NUMBER.update(_DECISION_INDEX.items())


def encode_match_c(
    match: Match, seat: int, picked: tuple[int, ...] = (), cache: RulesCache | None = None
) -> np.ndarray:
    """``encode_match_py``'s array, written in C (``arena/envs/_obs.c``); ``cache`` kept by
    a caller that encodes many."""
    info = match.information_set(seat)
    rules = match.rules
    v = np.empty(SIZE, np.float32)
    _obs.fill(
        v,
        info,
        seat,
        _DECISION_NUMBER[match.decision],
        match.to_act,
        picked,
        (cache or RulesCache()).get(rules),
        rules.max_hands,
        rules.target_score,
    )
    return v


MATCH_SLOTS = (
    "_phase", "_to_act", "_hand_number", "_first_drawer", "_hands", "_stock", "_pos",
    "_own_discards", "_plays", "_winners", "_broken", "_aside", "_legal", "_scores", "_bags",
    "_bids", "_dn", "_won", "_exchanged", "_draw_choices",
)  # fmt: skip
"""The engine's state as ``Match`` keeps it, which the C observer reads through the slots'
descriptors (``arena/envs/_obs.c``, ``observe_new``): the facts of ``Match.information_set``,
the decision and the legal mask, without the Python calls that build them. Its phases 0-4 are
``DECISIONS``' indices and 5 the match's end (``_match_layout_matches``)."""


def _match_slots() -> tuple[object, ...] | None:
    """``MATCH_SLOTS``' descriptors, or None if the engine keeps its state otherwise (then the
    observer reads ``information_set``)."""
    from types import MemberDescriptorType

    from arena.rules import match as engine

    if tuple(engine._DECISION_OF) != (*DECISIONS, None):
        return None
    slots = tuple(Match.__dict__.get(name) for name in MATCH_SLOTS)
    if not all(isinstance(d, MemberDescriptorType) for d in slots):
        return None
    return slots


def observer(rules: RuleSet) -> object | None:
    """The C observer of matches of ``rules`` (``arena/envs/_obs.c``): ``observe_new(match,
    seat, picked)`` gives ``{"observation": encode_match's array, "action_mask": the mask}``
    read from the match's slots (``MATCH_SLOTS``), ``engine_action(match, action)`` is
    ``actions.quick_engine_action``; None where the extension was not built or the engine's
    state is not laid out as ``MATCH_SLOTS`` says."""
    if not C_ENCODER:
        return None
    slots = _match_slots()
    if slots is None:
        return None
    made = _SharedObserver(
        DECISIONS,
        _rules_floats(rules),
        rules.max_hands,
        rules.target_score,
        slots,
        rules.draw_decision_public,
    )
    made.rules = rules
    return made


if _obs is not None:

    class _SharedObserver(_obs.Observer):
        """An observer holds nothing of a match: copies of a state that keeps one (OpenSpiel's
        clone deep-copies a state's attributes, its serialization pickles them) share it, and
        it pickles as its rule set's."""

        rules: RuleSet

        def __copy__(self) -> _SharedObserver:
            return self

        def __deepcopy__(self, memo: dict[int, object]) -> _SharedObserver:
            return self

        def __reduce__(self) -> tuple[object, tuple[RuleSet]]:
            return observer, (self.rules,)


def encode_match(
    match: Match, seat: int, picked: tuple[int, ...] = (), cache: RulesCache | None = None
) -> np.ndarray:
    """``encode(match.observation(seat), picked)``, from the engine's plain values
    (``Match.information_set``) without building the Observation: the environments' step.
    In C where it was built (``encode_match_c``), else ``encode_match_py``; the same array."""
    if C_ENCODER:
        return encode_match_c(match, seat, picked, cache)
    return encode_match_py(match, seat, picked)


@dataclass(frozen=True)
class Decoded:
    """What ``decode`` reads back: the engine's ``Observation`` and the exchange's picks."""

    observation: Observation
    picked: tuple[int, ...]


def decode(v: np.ndarray) -> Decoded:
    """The information set an observation array encodes (the inverse of ``encode``)."""
    rules = RuleSet(
        target_score=round(float(v[RULES]) * RULE_SCALE),
        max_hands=round(float(v[RULES + 1]) * RULE_SCALE),
        draw_decision_public=bool(v[RULES + 2]),
        double_nil_allowed=bool(v[RULES + 3]),
        nil_tricks_count_as_bags=bool(v[RULES + 4]),
    )
    seat = round(float(v[SEAT]))
    hot = np.flatnonzero(v[DECISION : DECISION + len(DECISIONS)])
    decision = DECISIONS[hot[0]] if len(hot) else None
    to_act = None if decision is None else (seat if v[TO_ACT] else seat ^ 1)

    def cards(base: int) -> tuple[int, ...]:
        return tuple(int(c) for c in np.flatnonzero(v[base : base + 52]))

    def ordered(base: int, scale: int) -> list[tuple[int, int]]:
        return sorted((round(float(v[base + c]) * scale), c) for c in cards(base))

    looking = cards(LOOKING_AT)
    plays = sorted(
        [(p, c, seat) for p, c in ordered(PLAYED_BY_ME, 26)]
        + [(p, c, seat ^ 1) for p, c in ordered(PLAYED_BY_OPP, 26)]
    )
    first_drawer = seat if v[FIRST_DRAWER] else seat ^ 1
    tricks = []
    for i in range(0, len(plays), 2):
        pair = plays[i : i + 2]
        leader = pair[0][2]
        trick_cards = tuple(c for _, c, _ in pair)
        winner = None
        if len(pair) == 2:
            winner = leader ^ 1 if _answer_wins(*trick_cards) else leader
        tricks.append(TrickView(leader, trick_cards, winner))
    mine = _decode_seat(v, SEATS, rules)
    theirs = _decode_seat(v, SEATS + SEAT_SIZE, rules)
    obs = Observation(
        seat=seat,
        rules=rules,
        hand_number=round(float(v[HAND_NUMBER]) * rules.max_hands),
        first_drawer=first_drawer,
        to_act=to_act,
        decision=decision,
        hand=cards(HAND),
        looking_at=looking[0] if looking else None,
        own_discards=tuple(c for _, c in ordered(OWN_DISCARDS, 13)),
        stock_size=round(float(v[STOCK]) * 52),
        seats=(mine, theirs) if seat == 0 else (theirs, mine),
        tricks=tuple(tricks),
        spades_broken=bool(v[BROKEN]),
        own_put_aside=cards(PUT_ASIDE),
    )
    return Decoded(obs, cards(PICKED))


def _answer_wins(led: int, answer: int) -> bool:
    """R-4.6: the answer wins with a higher card of the suit led or a spade on another suit."""
    if answer // 13 == led // 13:
        return answer > led
    return answer // 13 == 3


def _decode_seat(v: np.ndarray, base: int, rules: RuleSet) -> SeatView:
    bid = int(np.flatnonzero(v[base + S_BID : base + S_BID + 15])[0])
    exchanged = int(np.flatnonzero(v[base + S_EXCHANGED : base + S_EXCHANGED + 5])[0])
    draws = [bool(v[base + S_DRAWS + 2 * t + 1]) for t in range(13) if v[base + S_DRAWS + 2 * t]]
    return SeatView(
        score=round(float(v[base + S_SCORE]) * rules.target_score),
        bags=round(float(v[base + S_BAGS]) * 10),
        bid=None if bid == 0 else bid - 1,
        double_nil=bool(v[base + S_DN]),
        tricks_won=round(float(v[base + S_TRICKS]) * 13),
        cards_exchanged=None if exchanged == 0 else exchanged - 1,
        draw_choices=tuple(draws) if rules.draw_decision_public else None,
    )
