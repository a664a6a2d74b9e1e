"""The kinds of decision a player makes, and the form of the action that answers each.

Actions are plain values so that the engine's step stays cheap:

=============  ==========================================================  ==========
decision       action                                                      rule
=============  ==========================================================  ==========
DOUBLE_NIL     ``bool``: True declares Double Nil                          R-3.3
DRAW           ``bool``: True keeps the card looked at, False rejects it   R-2.1
EXCHANGE       ``tuple[int, ...]``: 0 to 3 cards of the hand to put aside  R-3.4
BID            ``int``: 0 (Nil) to 13                                      R-3.1
PLAY           ``int``: a card of the hand                                 R-4
=============  ==========================================================  ==========
"""

from __future__ import annotations

import enum


class Decision(enum.Enum):
    DOUBLE_NIL = "double_nil"
    DRAW = "draw"
    EXCHANGE = "exchange"
    BID = "bid"
    PLAY = "play"

    # Hashed by identity, in C (Enum's own hash is a Python call on the name): a member equals
    # only itself, and tables keyed by the decision are read on every request and answer.
    __hash__ = object.__hash__


Action = bool | int | tuple[int, ...]
