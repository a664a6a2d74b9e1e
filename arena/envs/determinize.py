"""Positions sampled from one seat's information set: the hidden cards dealt at random.

Search over hidden information (ISMCTS, PIMC) plays on *determinizations*: full positions that
the seat cannot tell from the real one. ``determinize(obs, rng)`` builds one from the seat's
``Observation`` alone - never from the real position - as an engine ``Match`` of the same hand
(``Match.from_hand``) replayed up to the same point, so every rule holds in it, and checks that
the seat's observation of it is ``obs``.

What is sampled (spades-rules.md, "What each player may know"): the opponent's hand, its
discards and kept cards, the order of the stock, each seat's keep-or-reject choices unless
public (R-2.2), the cards the opponent put aside and drew in a Double Nil exchange, and which of
the seat's own cards an exchange drew (R-3.4). The seat's own kept cards go to its turns in an
arbitrary order: the information set does not hold it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from arena.rules import Action, Decision, Match, Observation


class DeterminizeError(ValueError):
    """No position fits the observation (it is not one a seat can have)."""


@dataclass(frozen=True)
class Position:
    """A sampled position: the match, and how its hand was made (to replay it)."""

    match: Match
    stock: list[int]
    exchange_draws: list[int]
    actions: list[Action]
    """The hand's actions so far, in order."""


def determinize(obs: Observation, rng: random.Random) -> Match:
    """A position of the same hand in which ``obs.seat`` observes exactly ``obs``."""
    return sample_position(obs, rng).match


def sample_position(obs: Observation, rng: random.Random) -> Position:
    """``determinize`` with the stock, exchange draws and actions the match was made from."""
    p, fd = obs.seat, obs.first_drawer
    o = p ^ 1
    seat_p, seat_o = obs.seats[p], obs.seats[o]
    is_draw = obs.decision is Decision.DRAW
    turns = (52 - obs.stock_size - is_draw) // 2
    my_turns = len(obs.own_discards)
    opp_turns = turns - my_turns
    if not 0 <= turns <= 26 or my_turns != (turns + (p == fd)) // 2:
        raise DeterminizeError(
            f"{my_turns} own discards do not fit {turns} draw turns done (R-2.1, R-2.3)"
        )
    plays = [
        (c, who)
        for t in obs.tricks
        for c, who in zip(t.cards, (t.leader, t.leader ^ 1), strict=False)
    ]
    my_played = {c for c, who in plays if who == p}
    opp_played = {c for c, who in plays if who == o}
    hand = set(obs.hand)
    discards = set(obs.own_discards)
    aside = set(obs.own_put_aside)

    # which of this seat's cards its exchange drew (its own discards surely).
    k_p = seat_p.cards_exchanged or 0
    mine = hand | my_played
    forced = mine & discards
    if len(forced) > k_p:
        raise DeterminizeError("more own discards in hand than cards drawn in the exchange")
    x_p = forced | set(rng.sample(sorted(mine - discards), k_p - len(forced)))
    kept_p = (mine | aside) - x_p

    seen = mine | aside | discards
    if obs.looking_at is not None:
        seen.add(obs.looking_at)
    unknown = [c for c in range(52) if c not in seen and c not in opp_played]
    rng.shuffle(unknown)
    # The opponent's hand holds no card of a suit it showed it has none of.
    void = _voids(obs, o)
    fits = [c for c in unknown if c // 13 not in void]

    # The opponent's exchange: it drew the seat's discards that it played, and more at random.
    k_o = seat_o.cards_exchanged or 0
    x_o = opp_played & discards
    if len(x_o) > k_o:
        raise DeterminizeError("the opponent played more of this seat's discards than it drew")
    hand_size_o = (13 - len(opp_played)) if turns == 26 else opp_turns
    # Its hand: unseen cards, and perhaps discards of this seat that its exchange drew.
    back = [c for c in sorted(discards - x_p - opp_played) if c // 13 not in void]
    candidates = fits + (back if k_o > len(x_o) else [])
    rng.shuffle(candidates)
    hand_o: set[int] = set()
    room = k_o - len(x_o)
    for c in candidates:
        if len(hand_o) == hand_size_o:
            break
        if c in discards:
            if not room:
                continue
            room -= 1
        hand_o.add(c)
    if len(hand_o) != hand_size_o:
        raise DeterminizeError("not enough unseen cards for the opponent's hand")
    x_o |= hand_o & discards
    # The rest of its draws: cards it holds or played, from its own discards.
    drawable = sorted((hand_o | opp_played) - discards)
    if k_o - len(x_o) > len(drawable):
        raise DeterminizeError("too few cards for the opponent's exchange draws")
    x_o_fresh = rng.sample(drawable, k_o - len(x_o))
    x_o |= set(x_o_fresh)
    pool = iter([c for c in unknown if c not in hand_o])
    a_o = set(_take(pool, k_o))
    kept_o = ((hand_o | opp_played) - x_o) | a_o
    # The opponent's discards: the seat's exchange draws that were not its own, its fresh
    # draws, and more unknown cards.
    d_o = (x_p - discards) | set(x_o_fresh)
    d_o |= set(_take(pool, opp_turns - len(d_o)))
    if len(kept_o) != opp_turns or len(kept_p) != my_turns or len(d_o) != opp_turns:
        raise DeterminizeError("the card counts of the observation do not add up")

    stock, choices = _stock(obs, rng, kept_p, kept_o, d_o, pool)
    first_x, then_x = (x_p, x_o) if fd ^ 1 == p else (x_o, x_p)  # second player first
    draws = [*sorted(first_x), *sorted(then_x)]
    m = Match.from_hand(
        obs.rules,
        hand_number=obs.hand_number,
        first_drawer=fd,
        scores=(obs.seats[0].score, obs.seats[1].score),
        bags=(obs.seats[0].bags, obs.seats[1].bags),
        stock=stock,
        exchange_draws=draws,
    )
    actions = _replay(m, obs, choices, {p: aside, o: a_o}, [c for c, _ in plays])
    if m.observation(p) != obs:
        raise DeterminizeError("the sampled position does not give the same observation")
    return Position(m, stock, draws, actions)


def _voids(obs: Observation, seat: int) -> set[int]:
    """The suits ``seat`` showed it no longer holds: a suit led that it did not follow, and
    every side suit when it led a spade before spades were broken."""
    void: set[int] = set()
    broken = False
    for trick in obs.tricks:
        cards = trick.cards
        if trick.leader == seat and cards[0] // 13 == 3 and not broken:
            void |= {0, 1, 2}
        if len(cards) == 2 and trick.leader != seat and cards[1] // 13 != cards[0] // 13:
            void.add(cards[0] // 13)
        if any(c // 13 == 3 for c in cards):
            broken = True
    return void


def _take(pool: Iterator[int], n: int) -> list[int]:
    if n < 0:
        raise DeterminizeError("the card counts of the observation do not add up")
    out = []
    for _ in range(n):
        card = next(pool, None)
        if card is None:
            raise DeterminizeError("not enough unseen cards for the opponent's")
        out.append(card)
    return out


def _stock(
    obs: Observation,
    rng: random.Random,
    kept_p: set[int],
    kept_o: set[int],
    d_o: set[int],
    pool: Iterator[int],
) -> tuple[list[int], list[bool]]:
    """The stock, top first, and each done turn's choice: the turn's two cards are in the
    order its choice took them (R-2.1)."""
    p, fd = obs.seat, obs.first_drawer
    public = obs.rules.draw_decision_public
    mine_kept = sorted(kept_p)
    rng.shuffle(mine_kept)
    theirs_kept = sorted(kept_o)
    rng.shuffle(theirs_kept)
    theirs_disc = sorted(d_o)
    rng.shuffle(theirs_disc)
    stock: list[int] = []
    keeps: list[bool] = []
    n = {0: 0, 1: 0}
    turns = len(mine_kept) + len(theirs_kept)
    for t in range(turns):
        seat = fd if t % 2 == 0 else fd ^ 1
        i = n[seat]
        n[seat] += 1
        if seat == p:
            kept, dropped = mine_kept[i], obs.own_discards[i]
        else:
            kept, dropped = theirs_kept[i], theirs_disc[i]
        choices = obs.seats[seat].draw_choices if public else None
        keep = choices[i] if choices is not None else rng.random() < 0.5
        keeps.append(keep)
        stock.extend((kept, dropped) if keep else (dropped, kept))
    if obs.looking_at is not None:
        stock.append(obs.looking_at)
    stock.extend(pool)
    if len(stock) != 52:
        raise DeterminizeError("the card counts of the observation do not add up")
    return stock, keeps


def _replay(
    m: Match,
    obs: Observation,
    keeps: list[bool],
    aside: dict[int, set[int]],
    plays: list[int],
) -> list[Action]:
    """Play the hand on ``m`` up to ``obs``'s point: the draws by ``keeps``, the exchanges by
    ``aside``, the Double Nils, bids and plays as the observation shows them."""
    public_dn = {s: obs.seats[s].double_nil for s in (0, 1)}
    bids = {s: obs.seats[s].bid for s in (0, 1)}
    target = (obs.stock_size, len(plays), obs.decision, obs.to_act)
    n_played = 0
    done: list[Action] = []
    seat_p = obs.seat
    while (m.information_set(seat_p)[5], n_played, m.decision, m.to_act) != target:
        decision, seat = m.decision, m.to_act
        assert seat is not None
        action: Action
        if decision is Decision.DOUBLE_NIL:
            action = public_dn[seat]
        elif decision is Decision.DRAW:
            turn = (52 - len(m.stock)) // 2
            if turn >= len(keeps):
                raise DeterminizeError("the replay went past the observation's draws")
            action = keeps[turn]
        elif decision is Decision.EXCHANGE:
            action = tuple(sorted(aside[seat]))
        elif decision is Decision.BID:
            bid = bids[seat]
            if bid is None:
                raise DeterminizeError("the replay reached a bid the observation has not")
            action = bid
        elif decision is Decision.PLAY:
            if n_played >= len(plays):
                raise DeterminizeError("the replay went past the observation's tricks")
            action = plays[n_played]
            n_played += 1
        else:
            raise DeterminizeError("the replay reached the end of the match")
        m.apply(action)
        done.append(action)
    return done
