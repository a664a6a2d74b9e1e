"""A lean play policy over bit masks, and the play-out of a determinized hand to its end.

Both players follow the same policy, which sees both hands (the deal is a sample): each picks a
mode from the bids and tricks (take tricks, duck bags, keep a Nil, set the opponent's Nil) and
plays the card that mode calls for. Legality, spades breaking and trick winners are the engine's
(``arena.rules.playout``): ``legal_plays`` and ``FOLLOWER_WINS``.
"""

from __future__ import annotations

from arena.rules.playout import FOLLOWER_WINS, NON_SPADES, legal_plays

TAKE, DUCK, NIL, SET = range(4)
SET_REACH = 2
"""A player whose bid is made plays to set the opponent while the tricks it needs for that are
at most two, or at most half the tricks left plus this many halves; else it ducks bags."""
_SUIT = tuple(0x1FFF << (13 * s) for s in range(4))
_SPADES = _SUIT[3]


def mode_of(bid: int, won: int, opp_bid: int, opp_won: int, tricks_left: int) -> int:
    """What a player with these bids and tricks plays for."""
    if bid == 0 and won == 0:
        return NIL
    if opp_bid == 0 and opp_won == 0:
        return SET
    if won < bid:
        return TAKE
    need = opp_bid - opp_won
    to_set = tricks_left - need + 1
    if need > 0 and (to_set <= 2 or 2 * to_set <= tricks_left + SET_REACH):
        return TAKE  # a set is within reach: worth far more than the bags it may cost
    return DUCK


def _lowest_rank(mask: int) -> int:
    """The card of lowest rank in ``mask`` (non-spades first on a tie)."""
    best = -1
    best_rank = 99
    for s in (0, 1, 2, 3):
        x = mask & _SUIT[s]
        if x:
            c = (x & -x).bit_length() - 1
            r = c - 13 * s
            if r < best_rank:
                best_rank = r
                best = c
    return best


def _highest_rank(mask: int) -> int:
    """The card of highest rank in ``mask`` (non-spades first on a tie)."""
    best = -1
    best_rank = -1
    for s in (0, 1, 2, 3):
        x = mask & _SUIT[s]
        if x:
            c = x.bit_length() - 1
            r = c - 13 * s
            if r > best_rank:
                best_rank = r
                best = c
    return best


def choose(hand: int, opp: int, lead: int, broken: bool, mode: int) -> int:
    """The policy's card for a player holding ``hand`` against ``opp`` (both masks)."""
    if lead < 0:
        legal = legal_plays(hand, -1, broken)
        if mode == TAKE:
            spade_master = -1
            for s in (0, 1, 2, 3):
                mine = legal & _SUIT[s]
                if not mine:
                    continue
                top = mine.bit_length() - 1
                theirs = opp & _SUIT[s]
                if theirs:
                    if top > theirs.bit_length() - 1:
                        if s < 3:
                            return top
                        spade_master = top
                elif s == 3 or not opp & _SPADES:
                    if s < 3:
                        return top
                    spade_master = top
            if spade_master >= 0:
                return spade_master
            side = legal & NON_SPADES
            return _lowest_rank(side or legal)
        # DUCK, NIL, SET: lead a card the opponent must beat, else the lowest.
        best = -1
        best_rank = 99
        for s in (0, 1, 2, 3):
            mine = legal & _SUIT[s]
            theirs = opp & _SUIT[s]
            if mine and theirs:
                low = (mine & -mine).bit_length() - 1
                if (theirs & -theirs) > (mine & -mine):  # all theirs above our lowest
                    r = low - 13 * s
                    if r < best_rank:
                        best_rank = r
                        best = low
        if best >= 0:
            return best
        if mode == DUCK:
            return _lowest_rank(legal)
        # A Nil (ours or theirs) suit the opponent lacks gives the trick to the leader.
        covered = 0
        for s in (0, 1, 2, 3):
            if opp & _SUIT[s]:
                covered |= _SUIT[s]
        return _lowest_rank(legal & covered or legal)
    suit = _SUIT[lead // 13]
    follow = hand & suit
    if mode == TAKE:
        if follow:
            above = follow >> (lead + 1) << (lead + 1)
            if above:
                return (above & -above).bit_length() - 1
            return (follow & -follow).bit_length() - 1
        if lead < 39:
            spades = hand & _SPADES
            if spades:
                return (spades & -spades).bit_length() - 1
        side = hand & NON_SPADES
        return _lowest_rank(side or hand)
    # DUCK, NIL, SET: lose the trick with the highest card that still loses.
    if follow:
        below = follow & ((1 << lead) - 1)
        if below:
            return below.bit_length() - 1
        if mode == SET:
            return (follow & -follow).bit_length() - 1
        return follow.bit_length() - 1
    side = hand & NON_SPADES
    if lead >= 39:
        return _highest_rank(side or hand)
    if side:
        return _highest_rank(side)
    return (hand & -hand).bit_length() - 1  # only spades: ruff as low as possible


def playout(
    hands: list[int],
    to_act: int,
    lead: int,
    broken: bool,
    won: list[int],
    bids: tuple[int, int],
) -> int:
    """Play the hand to its end from the position given (``hands`` and ``won`` are changed in
    place); returns the tricks won by seat 0."""
    tricks_left = 13 - won[0] - won[1]
    b0, b1 = bids
    while tricks_left:
        p = to_act
        hand = hands[p]
        if hand & (hand - 1) == 0:
            card = hand.bit_length() - 1
        else:
            if p == 0:
                mode = mode_of(b0, won[0], b1, won[1], tricks_left)
            else:
                mode = mode_of(b1, won[1], b0, won[0], tricks_left)
            card = choose(hand, hands[p ^ 1], lead, broken, mode)
        hands[p] = hand ^ (1 << card)
        if card >= 39:
            broken = True
        if lead < 0:
            lead = card
            to_act = p ^ 1
        else:
            winner = p if FOLLOWER_WINS[lead * 52 + card] else p ^ 1
            won[winner] += 1
            lead = -1
            to_act = winner
            tricks_left -= 1
    return won[0]
