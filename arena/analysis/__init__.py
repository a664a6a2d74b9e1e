"""Double-dummy analysis of the card play: par for every position, the value of every card,
and how many hand points each play gave away.

Pure and beside the engine: it imports ``arena.rules`` only, and the engine does not import it.
"""

from arena.analysis.position import Position, payoff_table, seat_score
from arena.analysis.solver import (
    C_SEARCH,
    SOLVER_VERSION,
    Solution,
    max_tricks,
    new_search,
    solve,
    trick_payoff,
)

__all__ = [
    "C_SEARCH",
    "SOLVER_VERSION",
    "Position",
    "Solution",
    "max_tricks",
    "new_search",
    "payoff_table",
    "seat_score",
    "solve",
    "trick_payoff",
]
