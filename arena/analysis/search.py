"""Double-dummy search in pure Python: the reference for the C search (``_dd.c``) and the
fallback where the extension was not built.

Alpha-beta over the rest of the hand with seat 0 maximising ``payoff[tricks seat 0 ends with]``
(``position.payoff_table``), so the search is valued in hand points, not tricks. What makes it
fast enough:

- a transposition table at the start of each trick, keyed by both hands, the leader, whether
  spades are broken and seat 0's tricks so far, holding a lower and an upper bound;
- equivalent cards merged: two cards of one hand and suit with no live card of the other hand
  (nor the card led) between them lead to the same futures, so only one of them is searched.
  Only the 26 cards in play are live; the 26 discards never separate cards;
- bounds from the payoff: the final trick count lies between the tricks won and the tricks won
  plus the tricks left, so the value lies between the payoff's least and greatest there;
- move ordering: the table's best card first, then winners before losers (the cheapest winner,
  the lowest loser), the leader's highest cards first.

A ``Search`` keeps its table between calls: every position of one hand shares the payoff, so
analysing a whole hand reuses what earlier positions found.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

SPADES_FIRST = 39
NON_SPADES = (1 << SPADES_FIRST) - 1
SUIT_MASKS = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
INF = 1 << 30


def beats(lead: int, card: int) -> bool:
    """Whether the answer ``card`` wins the trick led by ``lead`` (R-4.6)."""
    if card // 13 == lead // 13:
        return card > lead
    return card >= SPADES_FIRST


def groups(cards: int, other: int, lead: int) -> list[tuple[int, int]]:
    """``cards`` split into runs of equivalent cards: ``(lowest card, run mask)`` each.

    Cards of one suit are equivalent when no card of ``other`` (the other hand) and not the
    card ``lead`` lies between them in rank."""
    out: list[tuple[int, int]] = []
    stops = other | (1 << lead if lead >= 0 else 0)
    for suit_mask in SUIT_MASKS:
        mine = cards & suit_mask
        if not mine:
            continue
        live = (mine | stops) & suit_mask
        run = 0
        low = -1
        while live:
            bit = live & -live
            live ^= bit
            if mine & bit:
                if not run:
                    low = bit.bit_length() - 1
                run |= bit
            elif run:
                out.append((low, run))
                run = 0
        if run:
            out.append((low, run))
    return out


class Search:
    """Alpha-beta search of one hand's play under a fixed payoff (seat 0 maximises)."""

    __slots__ = ("_deadline", "_limit", "nodes", "payoff", "table")

    def __init__(self, payoff: Sequence[int]) -> None:
        if len(payoff) != 14:
            raise ValueError(f"a payoff has 14 entries (0-13 tricks), got {len(payoff)}")
        self.payoff = tuple(int(v) for v in payoff)
        self.table: dict[tuple[int, int, int, bool, int], tuple[int, int, int]] = {}
        self.nodes = 0
        self._limit = 0
        self._deadline = 0.0

    def _start(self, limit: int | None, deadline: float | None) -> None:
        if limit is not None and limit < 1:
            raise ValueError("limit is None or a number of positions >= 1")
        if deadline is not None and not deadline > 0:
            raise ValueError("deadline is None or a time.monotonic() > 0")
        self._limit = 0 if limit is None else self.nodes + limit
        self._deadline = deadline or 0.0

    def value(
        self,
        h0: int,
        h1: int,
        to_act: int,
        lead: int,
        won0: int,
        broken: bool,
        limit: int | None = None,
        deadline: float | None = None,
    ) -> int | None:
        """The value, for seat 0, of the position with ``to_act`` to play; None once the search
        has walked ``limit`` positions or ``time.monotonic()`` has reached ``deadline`` (what
        it finished stays in its table)."""
        _check(h0, h1, to_act, lead, won0)
        self._start(limit, deadline)
        try:
            return self._search(h0, h1, to_act, lead, won0, broken, -INF, INF)
        except _Stopped:
            return None

    def card_values(
        self,
        h0: int,
        h1: int,
        to_act: int,
        lead: int,
        won0: int,
        broken: bool,
        limit: int | None = None,
        deadline: float | None = None,
    ) -> dict[int, int] | None:
        """Every legal card of ``to_act`` and the value, for seat 0, of playing it; None once
        the search has walked ``limit`` positions or reached ``deadline``."""
        _check(h0, h1, to_act, lead, won0)
        hand, other = (h0, h1) if to_act == 0 else (h1, h0)
        if not hand:
            raise ValueError("the hand is over: no card to play")
        self._start(limit, deadline)
        out: dict[int, int] = {}
        for low, run in groups(_legal(hand, lead, broken), other, lead):
            try:
                value = self._child(h0, h1, to_act, lead, won0, broken, low, -INF, INF)
            except _Stopped:
                return None
            while run:
                bit = run & -run
                run ^= bit
                out[bit.bit_length() - 1] = value
        return out

    def _child(
        self,
        h0: int,
        h1: int,
        mover: int,
        lead: int,
        won0: int,
        broken: bool,
        card: int,
        alpha: int,
        beta: int,
    ) -> int:
        bit = 1 << card
        if mover == 0:
            h0 ^= bit
        else:
            h1 ^= bit
        broken = broken or card >= SPADES_FIRST
        if lead < 0:
            return self._search(h0, h1, mover ^ 1, card, won0, broken, alpha, beta)
        winner = mover if beats(lead, card) else mover ^ 1
        return self._search(h0, h1, winner, -1, won0 + (winner == 0), broken, alpha, beta)

    def _search(
        self,
        h0: int,
        h1: int,
        mover: int,
        lead: int,
        won0: int,
        broken: bool,
        alpha: int,
        beta: int,
    ) -> int:
        self.nodes += 1
        if self.nodes >= self._limit > 0 or (
            self._deadline and not self.nodes & 1023 and time.monotonic() >= self._deadline
        ):
            raise _Stopped
        payoff = self.payoff
        left = (h0 | h1).bit_count()
        left = (left + 1) // 2 if lead >= 0 else left // 2
        span = payoff[won0 : won0 + left + 1]
        lo, hi = min(span), max(span)
        if lo == hi or lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        alpha = max(alpha, lo)
        beta = min(beta, hi)
        key = None
        first = -1
        if lead < 0:
            key = (h0, h1, mover, broken, won0)
            entry = self.table.get(key)
            if entry is not None:
                elo, ehi, first = entry
                if elo >= beta or elo == ehi:
                    return elo
                if ehi <= alpha:
                    return ehi
                lo, hi = max(lo, elo), min(hi, ehi)
                alpha, beta = max(alpha, elo), min(beta, ehi)
        hand, other = (h0, h1) if mover == 0 else (h1, h0)
        moves = _ordered(groups(_legal(hand, lead, broken), other, lead), lead, first)
        a0, b0 = alpha, beta
        best_card = -1
        if mover == 0:
            best = -INF
            for card in moves:
                value = self._child(h0, h1, 0, lead, won0, broken, card, alpha, beta)
                if value > best:
                    best, best_card = value, card
                    if best > alpha:
                        alpha = best
                        if alpha >= beta:
                            break
        else:
            best = INF
            for card in moves:
                value = self._child(h0, h1, 1, lead, won0, broken, card, alpha, beta)
                if value < best:
                    best, best_card = value, card
                    if best < beta:
                        beta = best
                        if alpha >= beta:
                            break
        if key is not None:
            if best <= a0:
                self.table[key] = (lo, best, best_card)
            elif best >= b0:
                self.table[key] = (best, hi, best_card)
            else:
                self.table[key] = (best, best, best_card)
        return best


class _Stopped(Exception):
    """The search walked its limit of positions: unwinds it, storing nothing on the way."""


def _check(h0: int, h1: int, to_act: int, lead: int, won0: int) -> None:
    """Refuse what the search cannot walk (the C search refuses the same)."""
    if h0 < 0 or h1 < 0 or (h0 | h1) >> 52 or h0 & h1:
        raise ValueError("hands must be disjoint masks of cards 0-51")
    if to_act not in (0, 1):
        raise ValueError("to_act is seat 0 or 1")
    if not -1 <= lead <= 51 or (lead >= 0 and (h0 | h1) >> lead & 1):
        raise ValueError("lead is -1 or a card (0-51) in neither hand")
    n0, n1 = h0.bit_count(), h1.bit_count()
    mine, theirs = (n0, n1) if to_act == 0 else (n1, n0)
    left = mine if lead >= 0 else n0
    if mine != theirs + (lead >= 0) or won0 < 0 or won0 + left > 13:
        raise ValueError("the hands, the card led and seat 0's tricks do not make a play position")


def _legal(hand: int, lead: int, broken: bool) -> int:
    """The cards ``hand`` may play: follow suit (R-4.3), no spade lead before broken (R-4.5)."""
    if lead >= 0:
        return hand & SUIT_MASKS[lead // 13] or hand
    if broken:
        return hand
    return hand & NON_SPADES or hand


def _ordered(runs: list[tuple[int, int]], lead: int, first: int) -> list[int]:
    """One card of each run: the table's best first, winners before losers when following
    (the cheapest winner first), the highest first when leading."""
    if lead < 0:
        cards = sorted(((run.bit_length() - 1) % 13, low) for low, run in runs)
        moves = [low for _, low in reversed(cards)]
    else:
        win = [low for low, _ in runs if beats(lead, low)]
        lose = [low for low, _ in runs if not beats(lead, low)]
        win.sort(key=lambda c: (c // 13 != lead // 13, c))
        lose.sort(key=lambda c: c % 13)
        moves = win + lose
    if first >= 0:
        for i, card in enumerate(moves):
            if card == first:
                if i:
                    moves.insert(0, moves.pop(i))
                break
    return moves
