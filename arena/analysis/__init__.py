"""Double-dummy analysis of the card play: par for every position, the value of every card,
and how many hand points each play gave away.

Pure and beside the engine: it imports ``arena.rules`` only, and the engine does not import it.
"""

from arena.analysis.card_play_loss import LossSummary, summarise
from arena.analysis.par import (
    BLUNDER,
    INACCURACY,
    MISTAKE,
    HandAnalysis,
    MatchAnalysis,
    PlayAnalysis,
    PlayClass,
    analyse_match,
    trick_loss,
)
from arena.analysis.position import Position, payoff_table, seat_score
from arena.analysis.report import analysis_from_dict, analysis_to_dict
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
    "BLUNDER",
    "C_SEARCH",
    "INACCURACY",
    "MISTAKE",
    "SOLVER_VERSION",
    "HandAnalysis",
    "LossSummary",
    "MatchAnalysis",
    "PlayAnalysis",
    "PlayClass",
    "Position",
    "Solution",
    "analyse_match",
    "analysis_from_dict",
    "analysis_to_dict",
    "max_tricks",
    "new_search",
    "payoff_table",
    "seat_score",
    "solve",
    "summarise",
    "trick_loss",
    "trick_payoff",
]
